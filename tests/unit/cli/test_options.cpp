// ReportOptions: one installer for --format, --color and --fail-on, so every
// command that prints a report takes the same words with the same meaning.
#include "cli/options.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace pdcheck;

namespace {

/// Parses `args` (after the program name) with the report options installed.
cli::ReportOptions parsed(const cli::ReportFlags& flags, std::vector<std::string> args)
{
  cli::ReportOptions o;
  CLI::App app{"test", "pdcheck"};
  cli::add_report_options(&app, o, flags);
  std::reverse(args.begin(), args.end()); // CLI11 takes the vector form last word first
  app.parse(args);
  return o;
}

cli::ReportFlags all_flags()
{
  cli::ReportFlags f;
  f.formats = {"text", "json", "sarif"};
  f.color = true;
  f.fail_on = true;
  return f;
}

} // namespace

TEST_CASE("ReportOptions: the defaults are text, auto colour, failing on errors", "[cli]")
{
  const cli::ReportOptions o = parsed(all_flags(), {});
  CHECK(o.format == "text");
  CHECK(o.color == "auto");
  CHECK(o.fail_on_severity() == Severity::error);
}

TEST_CASE("ReportOptions: --format, --color and --fail-on as given", "[cli]")
{
  const cli::ReportOptions o = parsed(all_flags(), {"--format", "sarif", "--color", "never", "--fail-on", "warning"});
  CHECK(o.format == "sarif");
  CHECK_FALSE(o.use_color());
  CHECK(o.fail_on_severity() == Severity::warning);
  CHECK(parsed(all_flags(), {"--fail-on", "info"}).fail_on_severity() == Severity::info);
  CHECK(parsed(all_flags(), {"--color", "always"}).use_color());
}

TEST_CASE("ReportOptions: auto colour is off under NO_COLOR", "[cli]")
{
  setenv("NO_COLOR", "1", 1);
  CHECK_FALSE(parsed(all_flags(), {}).use_color());
  unsetenv("NO_COLOR");
}

TEST_CASE("add_report_options: values outside the lists are usage errors", "[cli]")
{
  CHECK_THROWS_AS(parsed(all_flags(), {"--format", "junit"}), CLI::ValidationError);
  CHECK_THROWS_AS(parsed(all_flags(), {"--color", "sometimes"}), CLI::ValidationError);
  CHECK_THROWS_AS(parsed(all_flags(), {"--fail-on", "fatal"}), CLI::ValidationError);
}

TEST_CASE("add_report_options: only --format unless the command asks for more", "[cli]")
{
  CHECK(parsed({}, {"--format", "json"}).format == "json");
  CHECK_THROWS_AS(parsed({}, {"--format", "sarif"}), CLI::ValidationError);
  CHECK_THROWS_AS(parsed({}, {"--color", "never"}), CLI::ExtrasError);
  CHECK_THROWS_AS(parsed({}, {"--fail-on", "warning"}), CLI::ExtrasError);
}
