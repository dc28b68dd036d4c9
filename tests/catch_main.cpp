// The unit tests' main: Catch2's, after pointing pdcheck's module lookup at the
// build tree's modules (beside pdcheck, not beside this binary) unless the
// caller chose a directory.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "platform/loadable_module.hpp"

#include <cstdlib>

int main(int argc, char* argv[])
{
  ::setenv(pdcheck::platform::k_module_dir_variable, PDCHECK_TEST_MODULE_DIR, 0);
  return Catch::Session().run(argc, argv);
}
