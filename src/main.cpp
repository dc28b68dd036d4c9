#include "cli/run.hpp"

int main(int argc, char** argv)
{
  return pdcheck::cli::run(argc, argv);
}
