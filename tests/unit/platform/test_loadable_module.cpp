// pdcheck's modules: where they are looked for, and what a missing, foreign or
// mismatched one gives.
#include "io/http_module_abi.h"
#include "platform/loadable_module.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace pdcheck;

TEST_CASE("modules: beside the executable, then ../lib/pdcheck; PDCHECK_MODULE_DIR alone when set", "[platform]")
{
  CHECK(platform::module_candidates("pdcheck-http.so", "", "/usr/bin") ==
        std::vector<std::string>{"/usr/bin/pdcheck-http.so", "/usr/bin/../lib/pdcheck/pdcheck-http.so"});
  CHECK(platform::module_candidates("pdcheck-http.so", "/opt/pdcheck", "/usr/bin") ==
        std::vector<std::string>{"/opt/pdcheck/pdcheck-http.so"});
}

TEST_CASE("modules: a missing, foreign or mismatched module is a one-line reason", "[platform]")
{
  const std::string dir = std::getenv(platform::k_module_dir_variable); // set by the tests' main
  SECTION("none of the candidates exists")
  {
    const auto m = platform::load_module_from({"/nonexistent/a.so", "/nonexistent/b.so"}, PDCHECK_HTTP_ENTRY, 1);
    CHECK(m.entry_points == nullptr);
    CHECK(m.missing);
    CHECK(m.error == "looked for /nonexistent/a.so, /nonexistent/b.so");
  }
  SECTION("a file that is not a shared object: the loader's reason")
  {
    const auto m = platform::load_module_from({std::string(PDCHECK_SOURCE_DIR) + "/README.md"}, PDCHECK_HTTP_ENTRY, 1);
    CHECK(m.entry_points == nullptr);
    CHECK_FALSE(m.missing);
    CHECK(m.error.find("README.md") != std::string::npos);
  }
  SECTION("the module of another interface version, then of this one")
  {
    const std::string path = dir + "/pdcheck-http.so";
    const auto other = platform::load_module_from({path}, PDCHECK_HTTP_ENTRY, PDCHECK_HTTP_ABI_VERSION + 1);
    CHECK(other.entry_points == nullptr);
    CHECK(other.error == path + " is not this pdcheck's (interface 1, expected 2): install the one built with it");
    const auto same = platform::load_module_from({path}, PDCHECK_HTTP_ENTRY, PDCHECK_HTTP_ABI_VERSION);
    REQUIRE(same.entry_points != nullptr);
    CHECK(static_cast<const pdcheck_http_module*>(same.entry_points)->get != nullptr);
  }
  SECTION("a shared object without the entry point")
  {
    const auto m = platform::load_module_from({dir + "/pdcheck-http.so"}, "no_such_entry", 1);
    CHECK(m.entry_points == nullptr);
    CHECK(m.error.find("(interface 0, expected 1)") != std::string::npos);
  }
}
