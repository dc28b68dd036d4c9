#include "io/side_file.hpp"
#include "model/catalog.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include "../../support/temp_dir.hpp"

#include "../../support/error_of.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

using namespace pdcheck;
using namespace pdcheck::sglang;

using test::error_of;

namespace {

/// Each test file keeps its own temp-dir prefix, so leftovers say who left them.
struct SideTempDir : test::TempDir
{
  SideTempDir() : test::TempDir("pdcheck-side") {}
};

const std::string k_data = std::string(PDCHECK_SOURCE_DIR) + "/tests/data/sides/";

} // namespace

TEST_CASE("closest_match suggests near spellings only", "[util][spellcheck]")
{
  const std::vector<std::string> fields = {"role", "sglang", "model", "args", "env"};
  CHECK(closest_match("modle", fields) == "model");
  CHECK(closest_match("arg", fields) == "args");
  CHECK(closest_match("ROLE", fields) == "role"); // case differs: worth pointing out
  CHECK(closest_match("Rol", fields) == "role");
  CHECK(closest_match("sglnag", fields) == "sglang");
  CHECK(closest_match("role", fields) == std::nullopt);
  CHECK(closest_match("hostname", fields) == std::nullopt);
  CHECK(closest_match("x", {}) == std::nullopt);
  CHECK(edit_distance("modle", "model") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("", "abc") == 3);
  // Longer words tolerate more edits: max(2, len/3).
  CHECK(closest_match("disagregation-mod", {"disaggregation-mode"}) == "disaggregation-mode");
}

TEST_CASE("load_side_file reads a YAML side", "[io][side]")
{
  const std::string path = k_data + "prefill.yaml";
  const Side side = io::load_side_file(path);
  CHECK(side.role == Role::prefill);
  CHECK(side.origin == path);
  CHECK(side.sglang == "components");
  CHECK(side.profile.name == "components");
  CHECK(side.model.name == "qwen3-next-80b-a3b");
  CHECK(side.args.tp_size == 4);
  CHECK(side.args.disaggregation_mode == DisaggregationMode::prefill);
  CHECK(side.args.transfer_backend == TransferBackend::mooncake);
  CHECK(side.args.ib_device == "mlx5_0");
  CHECK(side.args.env.at("SGLANG_MAMBA_SSM_DTYPE") == "float32");
  // The flag's own line inside the folded `args: >-` scalar, so a finding
  // about TP points at line 8, not at the `args:` key.
  CHECK(side.args.given.at("tp_size").origin == path + ":8:3");
  CHECK(side.args.given.at("disaggregation_ib_device").origin == path + ":11:3");
  CHECK(side.args.unknown.empty());
  REQUIRE(side.locations.size() == 5);
  CHECK(side.locations.at("role").file == path);
  CHECK(side.locations.at("role").line == 2);
  CHECK(side.locations.at("role").column == 1);
  CHECK(side.locations.at("args").line == 5);
  CHECK(side.locations.at("env").line == 12);
}

TEST_CASE("load_side_file reads a JSON side, model from --model-path", "[io][side]")
{
  const Side side = io::load_side_file(k_data + "decode.json");
  CHECK(side.role == Role::decode);
  CHECK(side.profile.name == "0.5.15");
  CHECK(side.model.name == "qwen3-next-80b-a3b");
  CHECK(side.args.tp_size == 2);
  CHECK(side.args.model_path == "Qwen/Qwen3-Next-80B-A3B-Instruct");
  CHECK(side.args.env.at("SGLANG_MAMBA_CONV_DTYPE") == "bfloat16");
  CHECK(side.locations.at("args").line == 4);
  CHECK(side.locations.at("args").column == 3);
}

TEST_CASE("load_side_file defaults and derived fields", "[io][side]")
{
  SideTempDir dir;

  SECTION("no sglang: newest profile; no --disaggregation-mode: SGLang's default stays")
  {
    const Side side = io::load_side_file(dir.write("a.yaml", "role: decode\nmodel: nemotron-h-8b\n"));
    CHECK(side.sglang.empty());
    CHECK(side.profile.name == default_profile().name);
    CHECK(side.role == Role::decode);
    CHECK(side.args.disaggregation_mode == DisaggregationMode::null);
    CHECK(side.model.name == "nemotron-h-8b");
  }
  SECTION("no role: taken from --disaggregation-mode")
  {
    const Side side = io::load_side_file(dir.write("b.yaml", "model: nemotron-h-8b\nargs: --disaggregation-mode prefill\n"));
    CHECK(side.role == Role::prefill);
  }
  SECTION("model relative to the side file, --config relative to the side file")
  {
    const model::CatalogEntry* entry = model::find_catalog_entry("qwen3-next-80b-a3b");
    REQUIRE(entry != nullptr);
    dir.write("sides/models/q/config.json", std::string(entry->config_json));
    const std::string cfg = dir.write("sides/server.yaml", "tp-size: 8\nenable-dp-attention: true\ndp-size: 2\n");
    const std::string path =
      dir.write("sides/p.yaml", "role: prefill\nsglang: v0.5.20\nmodel: models/q\nargs:\n  - --config\n  - server.yaml\n  - --dp\n  - '4'\n");
    const Side side = io::load_side_file(path);
    CHECK(side.model.num_hidden_layers > 0);
    CHECK(side.profile.name == "v0.5.20");
    CHECK(side.args.tp_size == 8);
    CHECK(side.args.dp_size == 4);
    CHECK(side.args.enable_dp_attention);
    CHECK(side.args.given.at("tp_size").origin == cfg + ":1:1");
  }
}

TEST_CASE("load_side_file errors carry exact text and positions", "[io][side]")
{
  SideTempDir dir;
  // The message with the side file's path shown as "F".
  auto err = [&](const std::string& name, const std::string& text) {
    const std::string path = dir.write(name, text);
    std::string message = error_of([&] { io::load_side_file(path); });
    for (std::size_t at = message.find(path); at != std::string::npos; at = message.find(path, at + 1)) {
      message.replace(at, path.size(), "F");
    }
    return message;
  };

  const std::string missing = (dir.path / "missing.yaml").string();
  CHECK(error_of([&] { io::load_side_file(missing); }) == missing + ": cannot read side file: No such file or directory");
  CHECK(error_of([&] { io::load_side_file(dir.path.string()); }) ==
        dir.path.string() + ": cannot read side file: Is a directory");

  CHECK(err("syntax.yaml", "role: prefill\nargs: [--tp\n") == "F:3:1: YAML syntax error: end of sequence flow not found");
  CHECK(err("syntax.json", "{\"role\": \"prefill\",\n \"args\": \"--tp 2\"\n") ==
        "F:3:1: YAML syntax error: end of map flow not found");
  // yaml-cpp alone would take the rest of the file as the string's value.
  CHECK(err("open-quote.yaml", "role: prefill\nsglang: \"0.5.20\nmodel: lfm2-2.6b\n") ==
        "F:2:9: YAML syntax error: this double-quoted string has no closing \" before the end of the input");
  CHECK(err("open-single.yaml", "role: prefill\nargs: 'it''s\n") ==
        "F:2:7: YAML syntax error: this single-quoted string has no closing ' before the end of the input");
  CHECK(err("escaped.yaml", "role: prefill\nsglang: \"0.5.20\\\"\n") ==
        "F:2:9: YAML syntax error: this double-quoted string has no closing \" before the end of the input");
  CHECK(err("empty.yaml", "# nothing\n") ==
        "F: the side file is empty; expected a mapping with the fields role, sglang, model, args, env, extra_state_types");
  CHECK(err("list.yaml", "- role\n- prefill\n") ==
        "F:1:1: expected a mapping with the fields role, sglang, model, args, env, extra_state_types at the top level, got a sequence");
  CHECK(err("scalar.yaml", "prefill\n") ==
        "F:1:1: expected a mapping with the fields role, sglang, model, args, env, extra_state_types at the top level, got a scalar");

  CHECK(err("typo.yaml", "role: prefill\nmodle: nemotron-h-8b\n") ==
        "F:2:1: unknown field 'modle' (did you mean 'model'?)");
  CHECK(err("far.yaml", "role: prefill\n  # c\nhostname: x\n") ==
        "F:3:1: unknown field 'hostname' (allowed fields: role, sglang, model, args, env, extra_state_types)");
  CHECK(err("dup.yaml", "role: prefill\nmodel: nemotron-h-8b\nrole: decode\n") ==
        "F:3:1: duplicate field 'role' (first given at line 1)");

  CHECK(err("role.yaml", "role: prefil\nmodel: nemotron-h-8b\n") ==
        "F:1:7: role: expected prefill or decode, got 'prefil' (did you mean 'prefill'?)");
  CHECK(err("role2.yaml", "role: both\nmodel: nemotron-h-8b\n") ==
        "F:1:7: role: expected prefill or decode, got 'both'");
  CHECK(err("role3.yaml", "role: [prefill]\n") == "F:1:7: role: expected prefill or decode, got a sequence");
  CHECK(err("role4.yaml", "model: nemotron-h-8b\nrole:\n") == "F:2:1: role: expected prefill or decode, got nothing");
  CHECK(err("norole.yaml", "model: nemotron-h-8b\nargs: --tp 2\n") ==
        "F: missing field 'role' (prefill or decode), and args do not set --disaggregation-mode");

  CHECK(err("sglang.yaml", "role: prefill\nsglang: componets\nmodel: nemotron-h-8b\n") ==
        "F:2:9: sglang: " + unknown_profile_text("componets"));
  CHECK(err("sglang2.yaml", "role: prefill\nsglang: 0.4.0\nmodel: nemotron-h-8b\n") ==
        "F:2:9: sglang: " + unknown_profile_text("0.4.0"));
  CHECK(err("sglang3.yaml", "role: prefill\nsglang: {v: 1}\n") ==
        "F:2:9: sglang: expected a profile name or an SGLang version, got a mapping");

  CHECK(err("extra.yaml", "role: prefill\nmodel: nemotron-h-8b\nextra_state_types: [swa, swq]\n") ==
        "F:3:26: extra_state_types: expected one of swa, dsa, swa_ring, c128_state, minimax_index_k, "
        "minimax_dense_kv, got 'swq' (did you mean 'swa'?)");
  CHECK(err("extra2.yaml", "role: prefill\nmodel: nemotron-h-8b\nextra_state_types: swa\n") ==
        "F:3:20: extra_state_types: expected a list of state types (swa, dsa, swa_ring, c128_state, "
        "minimax_index_k, minimax_dense_kv), got 'swa'");
  CHECK(io::load_side_file(dir.write("extra3.yaml", "role: prefill\nmodel: nemotron-h-8b\n"
                                                    "extra_state_types: [swa, minimax_index_k]\n"))
          .extra_state_types == std::vector<ExtraStateType>{ExtraStateType::swa, ExtraStateType::minimax_index_k});
  CHECK(err("model.yaml", "role: prefill\nmodel: [a]\n") == "F:2:8: model: expected a catalog name or a path, got a sequence");
  CHECK(err("nomodel.yaml", "role: prefill\nargs: --tp 2\n") == "F: missing field 'model', and args do not set --model-path");
  {
    const std::string text = err("badmodel.yaml", "role: prefill\nmodel: no-such-model-anywhere\n");
    CHECK(text.rfind("F:2:8: model: no-such-model-anywhere: ", 0) == 0);
  }

  CHECK(err("args.yaml", "role: prefill\nmodel: nemotron-h-8b\nargs: {tp: 2}\n") ==
        "F:3:7: args: expected a string or a list of strings, got a mapping");
  CHECK(err("args2.yaml", "role: prefill\nmodel: nemotron-h-8b\nargs:\n  - --tp\n  - [2]\n") ==
        "F:5:5: args[1]: expected a string, got a sequence");
  CHECK(err("args3.yaml", "role: prefill\nmodel: nemotron-h-8b\nargs: [\"--tp 4\"]\n") ==
        "F:3:8: args[0]: '--tp 4' holds a flag and its value in one item; list items are single words (write '--tp' "
            "and the value as two items, or '--tp=...')");
  CHECK(err("args4.yaml", "role: prefill\nmodel: nemotron-h-8b\nargs: \"--tp 'four\"\n") ==
        "F:3:7: unterminated quote in launch arguments");
  CHECK(err("args5.yaml", "role: prefill\nmodel: nemotron-h-8b\nargs: --tp four\n") ==
        "F:3:7: --tp: expected a positive integer, got 'four'");

  CHECK(err("env.yaml", "role: prefill\nmodel: nemotron-h-8b\nenv: [A]\n") ==
        "F:3:6: env: expected a mapping of variable names to strings, got a sequence");
  CHECK(err("env2.yaml", "role: prefill\nmodel: nemotron-h-8b\nenv:\n  A: {b: c}\n") ==
        "F:4:6: env.A: expected a string, got a mapping");
  CHECK(err("env3.yaml", "role: prefill\nmodel: nemotron-h-8b\nenv:\n  SGLANG_MAMBA_SSM_DTYPE: fp8\n") ==
        "F:4:27: SGLANG_MAMBA_SSM_DTYPE: expected one of float32, bfloat16, float16, got 'fp8'");
  // SGLang copies SGL_* over SGLANG_* at import: the legacy spelling is the one read.
  CHECK(err("env4.yaml", "role: prefill\nmodel: nemotron-h-8b\nenv:\n  SGLANG_MAMBA_SSM_DTYPE: float32\n"
                         "  SGL_MAMBA_SSM_DTYPE: fp8\n") ==
        "F:5:24: SGL_MAMBA_SSM_DTYPE: expected one of float32, bfloat16, float16, got 'fp8'");

  CHECK(err("conflict.yaml", "role: prefill\nmodel: nemotron-h-8b\nargs: --tp 2 --disaggregation-mode decode\n") ==
        "F:1:7: role is 'prefill' but args set --disaggregation-mode decode (F:3:14)");
  CHECK(err("conflict2.yaml", "role: decode\nmodel: nemotron-h-8b\nargs: [--disaggregation-mode=null]\n") ==
        "F:1:7: role is 'decode' but args set --disaggregation-mode null (F:3:8)");
}

TEST_CASE("side_from_args builds a side from command-line inputs", "[io][side]")
{
  const Side side = io::side_from_args(Role::decode,
                                       "python -m sglang.launch_server --model-path nemotron-h-8b --tp 2 "
                                       "--disaggregation-mode decode",
                                       "", "0.5.20", {{"SGLANG_MAMBA_SSM_DTYPE", "bfloat16"}}, "--decode-args");
  CHECK(side.role == Role::decode);
  CHECK(side.origin == "--decode-args");
  CHECK(side.profile.name == find_profile("0.5.20")->name);
  CHECK(side.model.name == "nemotron-h-8b");
  CHECK(side.args.tp_size == 2);
  CHECK(side.args.env.at("SGLANG_MAMBA_SSM_DTYPE") == "bfloat16");
  CHECK(side.locations.empty());

  const Side other = io::side_from_args(Role::prefill, "--tp 4", "qwen3-next-80b-a3b", "", {}, "--prefill-args");
  CHECK(other.role == Role::prefill);
  CHECK(other.args.disaggregation_mode == DisaggregationMode::null);
  CHECK(other.profile.name == default_profile().name);
  CHECK(other.model.name == "qwen3-next-80b-a3b");

  CHECK(error_of([] { io::side_from_args(Role::prefill, "--disaggregation-mode decode", "nemotron-h-8b", "", {}, "--prefill-args"); }) ==
        "--prefill-args: role is 'prefill' but args set --disaggregation-mode decode (argv[0])");
  CHECK(error_of([] { io::side_from_args(Role::prefill, "", "nemotron-h-8b", "0.4.0", {}, "--prefill-args"); }) ==
        "--prefill-args: sglang: " + unknown_profile_text("0.4.0"));
  CHECK(error_of([] { io::side_from_args(Role::prefill, "--tp 2", "", "", {}, "--prefill-args"); }) ==
        "--prefill-args: missing field 'model', and args do not set --model-path");
}
