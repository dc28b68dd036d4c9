// .pdcheck.yaml, baseline files and `# pdcheck: ignore=` comments: what they
// read, and the one-line errors for what they refuse.
#include "io/inline_ignores.hpp"
#include "io/settings_file.hpp"
#include "io/side_file.hpp"

#include "../../support/error_of.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using test::error_of;

namespace {

struct SettingsTempDir : test::TempDir
{
  SettingsTempDir() : test::TempDir("pdcheck-settings") {}
};

const std::string k_root = PDCHECK_SOURCE_DIR;

} // namespace

TEST_CASE("settings: every key is read; the baseline is relative to the file", "[io][settings]")
{
  SettingsTempDir dir;
  const std::string path = dir.write("repo/.pdcheck.yaml", "fail-on: warning\n"
                                                           "format: sarif\n"
                                                           "ignore: [bootstrap-page-size, side-role]\n"
                                                           "select: model-mismatch\n"
                                                           "severity: {mooncake-layout-no-dims: warning}\n"
                                                           "show-advice: true\n"
                                                           "baseline: ci/pdcheck-baseline.json\n");
  const io::CheckSettings s = io::load_settings(path);
  CHECK(s.fail_on == "warning");
  CHECK(s.format == "sarif");
  CHECK(s.format_where == path + ":2:9");
  CHECK(s.ignore == std::vector<std::string>{"bootstrap-page-size", "side-role"});
  CHECK(s.select == std::vector<std::string>{"model-mismatch"});
  CHECK(s.severity.at("mooncake-layout-no-dims") == Severity::warning);
  CHECK(s.show_advice == true);
  CHECK(s.baseline == (dir.path / "repo/ci/pdcheck-baseline.json").string());
}

TEST_CASE("settings: found in the working directory or above it", "[io][settings]")
{
  SettingsTempDir dir;
  const std::string path = dir.write("repo/.pdcheck.yaml", "fail-on: info\n");
  dir.write("repo/deploy/pd/prefill.yaml", "role: prefill\n");
  CHECK(io::find_settings_file((dir.path / "repo/deploy/pd").string()) == path);
  CHECK(io::find_settings_file((dir.path / "repo").string()) == path);
  CHECK(io::find_settings_file(dir.path.string()) == std::nullopt);
}

TEST_CASE("settings: unknown keys, rules and values are one-line errors at file:line:col", "[io][settings]")
{
  SettingsTempDir dir;
  auto error_for = [&](const std::string& text) {
    const std::string path = dir.write(".pdcheck.yaml", text);
    return error_of([&] { io::load_settings(path); }).substr(path.size());
  };
  CHECK(error_for("fail-on: error\nfromat: json\n") == ":2:1: unknown key 'fromat' (did you mean 'format'?)");
  CHECK(error_for("ignore: [bootstrap-page-sise]\n") ==
        ":1:10: ignore: unknown rule 'bootstrap-page-sise' (did you mean 'bootstrap-page-size'?)");
  CHECK(error_for("fail-on: fatal\n") == ":1:10: fail-on: expected error, warning or info, got 'fatal'");
  CHECK(error_for("severity: [a]\n") == ":1:11: severity: expected a mapping RULE: error|warning|info");
  CHECK(error_for("show-advice: yes please\n") == ":1:14: show-advice: expected true or false, got 'yes please'");
  CHECK(error_for("- fail-on\n") ==
        ":1:1: expected a mapping with the keys fail-on, format, ignore, select, severity, show-advice, baseline");
}

TEST_CASE("baseline files: written, read back, and refused when not pdcheck's", "[io][settings]")
{
  SettingsTempDir dir;
  const std::vector<check::BaselineEntry> entries = {
    {"bootstrap-page-size", "decode", "62bc0fb54a04ad3e", "prefill page size 64 != decode page size 16"}};
  const std::string path = dir.write("baseline.json", io::baseline_to_text(entries));
  const auto back = io::load_baseline(path);
  REQUIRE(back.size() == 1);
  CHECK(back[0].fingerprint == "62bc0fb54a04ad3e");
  CHECK(back[0].message == entries[0].message);

  const std::string other = dir.write("other.json", "{\"runs\": []}");
  CHECK(error_of([&] { io::load_baseline(other); }) ==
        other + ": expected a baseline written by pdcheck check --write-baseline (schemas/baseline.schema.json)");
  const std::string broken = dir.write("broken.json", "{\"tool\": \"pdcheck\",\n \"causes\": [");
  CHECK(error_of([&] { io::load_baseline(broken); }) ==
        broken + ":2:13: invalid JSON; expected a baseline written by pdcheck check --write-baseline");
}

TEST_CASE("inline ignores: rules named in # pdcheck: comments, with where", "[io][settings]")
{
  const auto rules = io::read_inline_ignores("role: decode   # pdcheck: ignore=bootstrap-page-size\n"
                                             "# pdcheck:ignore=side-role, model-mismatch  accepted until Q3\n"
                                             "args: \"--x#pdcheck: ignore=not-a-comment\"\n",
                                             "d.yaml");
  REQUIRE(rules.size() == 3);
  CHECK(rules.at("bootstrap-page-size").line == 1);
  CHECK(rules.at("bootstrap-page-size").column == 34);
  CHECK(rules.at("model-mismatch").line == 2);
  CHECK(error_of([] { io::read_inline_ignores("role: decode\n# pdcheck: ignore=side-rol\n", "d.yaml"); }) ==
        "d.yaml:2:19: unknown rule 'side-rol' in '# pdcheck: ignore=' (did you mean 'side-role'?)");
  CHECK(error_of([] { io::read_inline_ignores("# pdcheck: disable=side-role\n", "d.yaml"); }) ==
        "d.yaml:1:12: unknown pdcheck directive 'disable=side-role'; expected 'ignore=RULE[,RULE...]'");
}

TEST_CASE("inline ignores: a side file's comments reach the side", "[io][settings]")
{
  SettingsTempDir dir;
  const std::string text = "role: decode  # pdcheck: ignore=bootstrap-page-size\n"
                           "sglang: 0.5.20\n"
                           "model: falcon-h1-1.5b\n"
                           "args: \"--tp-size 2 --page-size 16 --disaggregation-mode decode\"\n";
  const sglang::Side side = io::load_side_file(dir.write("decode.yaml", text));
  REQUIRE(side.inline_ignores.size() == 1);
  CHECK(side.inline_ignores.count("bootstrap-page-size") == 1);
}
