// The one table of exit numbers: every verdict keeps its documented number
// (exit codes are an interface), and the manual lists each of them.
#include "cli/run.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace pdcheck;

TEST_CASE("exit_status_for: the documented number of every verdict", "[cli]")
{
  CHECK(cli::exit_status_for(Verdict::ok) == 0);
  CHECK(cli::exit_status_for(Verdict::findings) == 1);
  CHECK(cli::exit_status_for(Verdict::usage) == 2);
  CHECK(cli::exit_status_for(Verdict::cannot_run) == 3);
  CHECK(cli::exit_status_for(Verdict::internal_error) == 70);
  CHECK(cli::exit_status_for(Verdict::interrupted) == 130);
}

TEST_CASE("exit_status_for: man/pdcheck.1 EXIT STATUS lists every number", "[cli]")
{
  std::ifstream in(std::string(PDCHECK_SOURCE_DIR) + "/man/pdcheck.1");
  REQUIRE(in);
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  const auto at = text.find(".SH EXIT STATUS");
  REQUIRE(at != std::string::npos);
  const std::string section = text.substr(at, text.find(".SH ", at + 1) - at);
  for (Verdict v : {Verdict::ok, Verdict::findings, Verdict::usage, Verdict::cannot_run, Verdict::internal_error,
                    Verdict::interrupted}) {
    const std::string entry = ".TP\n.B " + std::to_string(cli::exit_status_for(v)) + "\n";
    INFO(entry);
    CHECK(section.find(entry) != std::string::npos);
  }
}
