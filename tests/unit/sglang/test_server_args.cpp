#include "io/sglang_config.hpp"
#include "sglang/launch_flags.hpp"
#include "sglang/server_args.hpp"
#include "util/error.hpp"

#include "../../support/temp_dir.hpp"

#include "../../support/error_of.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace pdcheck;
using namespace pdcheck::sglang;

using test::error_of;

namespace {

/// argparse's refusal of an abbreviation of --pp: the flags it could stand for,
/// in the parser's order (launch_flags/main.tsv).
std::string ambiguous_pp()
{
  return render_message(MessageId::argparse_ambiguous,
                        {{"option", "--pp"},
                         {"candidates", "--pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth"}});
}

/// Each test file keeps its own temp-dir prefix, so leftovers say who left them.
struct ArgsTempDir : test::TempDir
{
  ArgsTempDir() : test::TempDir("pdcheck-args") {}
};

ServerArgs parse(const std::string& line, const std::map<std::string, std::string>& env = {})
{
  return parse_launch_args(split_command_line(line, "test"), "test", env);
}


// A stand-in for the I/O layer: "cfg.yaml" holds tp 2, dp 2 and a switch.
std::vector<ConfigWord> fake_reader(const std::string& path, const std::string& base_dir)
{
  CHECK(path == "cfg.yaml");
  CHECK(base_dir == "/base");
  return {{"--tp-size", "cfg.yaml:1:1"},
          {"2", "cfg.yaml:1:10"},
          {"--dp-size", "cfg.yaml:2:1"},
          {"2", "cfg.yaml:2:10"},
          {"--enable-dp-attention", "cfg.yaml:3:1"}};
}

} // namespace

TEST_CASE("split_command_line handles quotes, escapes and continuations", "[sglang][args]")
{
  CHECK(split_command_line("  --tp 4\t--dp   2 \n", "x") == std::vector<std::string>{"--tp", "4", "--dp", "2"});
  CHECK(split_command_line(R"(--a 'b c' "d e" f\ g)", "x") == std::vector<std::string>{"--a", "b c", "d e", "f g"});
  CHECK(split_command_line(R"(--ib '{"0": "mlx5_0"}')", "x") == std::vector<std::string>{"--ib", R"({"0": "mlx5_0"})"});
  CHECK(split_command_line(R"("a\"b" "c\\d" "e\nf" 'g\h')", "x") ==
        std::vector<std::string>{"a\"b", "c\\d", "e\\nf", "g\\h"});
  CHECK(split_command_line("python -m sglang.launch_server \\\n  --tp 4 \\\r\n  --dp 2", "x") ==
        std::vector<std::string>{"python", "-m", "sglang.launch_server", "--tp", "4", "--dp", "2"});
  CHECK(split_command_line("--a '' \"\" b", "x") == std::vector<std::string>{"--a", "", "", "b"});
  CHECK(split_command_line("--a b # a comment\n--c d", "x") == std::vector<std::string>{"--a", "b", "--c", "d"});
  CHECK(split_command_line("--a=b#c", "x") == std::vector<std::string>{"--a=b#c"});
  CHECK(split_command_line("", "x").empty());

  CHECK(error_of([] { split_command_line("--tp 'four", "side.yaml:3:7"); }) ==
        "side.yaml:3:7: unterminated quote in launch arguments");
  CHECK(error_of([] { split_command_line("--tp \"four", "--prefill-args"); }) ==
        "--prefill-args: unterminated quote in launch arguments");
}

TEST_CASE("parse_launch_args skips the program prefix and collects env assignments", "[sglang][args]")
{
  SECTION("python -m sglang.launch_server")
  {
    const ServerArgs a = parse("python3 -m sglang.launch_server --tp 4");
    CHECK(a.tp_size == 4);
    CHECK(a.unknown.empty());
    CHECK(a.given.at("tp_size").origin == "argv[3]");
  }
  SECTION("interpreter path and options, env assignments")
  {
    const ServerArgs a = parse("CUDA_VISIBLE_DEVICES=0,1 SGLANG_MAMBA_SSM_DTYPE=bfloat16 /usr/bin/python3.11 -u -X importtime "
                               "-m sglang.launch_server --dp-size 2");
    CHECK(a.dp_size == 2);
    CHECK(a.env.at("CUDA_VISIBLE_DEVICES") == "0,1");
    CHECK(a.env.at("SGLANG_MAMBA_SSM_DTYPE") == "bfloat16");
    CHECK(a.unknown.empty());
    CHECK(a.given.at("dp_size").origin == "argv[8]");
  }
  SECTION("sglang serve")
  {
    const ServerArgs a = parse("env FOO=1 sglang serve --model-path Qwen/Qwen3.5-27B --pp-size 2");
    CHECK(a.model_path == "Qwen/Qwen3.5-27B");
    CHECK(a.pp_size == 2);
    CHECK(a.env.at("FOO") == "1");
    CHECK(a.unknown.empty());
  }
  SECTION("bare arguments")
  {
    const ServerArgs a = parse("--tp-size 8");
    CHECK(a.tp_size == 8);
    CHECK(a.given.at("tp_size").origin == "argv[0]");
  }
}

TEST_CASE("parse_launch_args keeps SGLang's defaults", "[sglang][args]")
{
  const ServerArgs a = parse("");
  CHECK_FALSE(a.model_path);
  CHECK(a.tp_size == 1);
  CHECK(a.dp_size == 1);
  CHECK(a.pp_size == 1);
  CHECK_FALSE(a.enable_dp_attention);
  CHECK(a.attn_cp_size == 1);
  CHECK(a.dcp_size == 1);
  CHECK_FALSE(a.mamba_ssm_dtype);
  CHECK_FALSE(a.enable_unified_memory);
  CHECK_FALSE(a.enable_page_major_kv_layout);
  CHECK(a.disaggregation_mode == DisaggregationMode::null);
  CHECK(a.transfer_backend == TransferBackend::mooncake);
  CHECK(a.page_size == 1);
  CHECK(a.kv_cache_dtype == "auto");
  CHECK(a.bootstrap_port == 8998);
  CHECK_FALSE(a.ib_device);
  CHECK_FALSE(a.speculative_algorithm);
  CHECK_FALSE(a.speculative_num_steps);
  CHECK_FALSE(a.speculative_eagle_topk);
  CHECK_FALSE(a.speculative_num_draft_tokens);
  CHECK_FALSE(a.enable_hisparse);
  CHECK_FALSE(a.enable_hierarchical_cache);
  CHECK_FALSE(a.max_mamba_cache_size);
  CHECK_FALSE(a.max_running_requests);
  CHECK(a.given.empty());
  CHECK(a.unknown.empty());
}

TEST_CASE("parse_launch_args accepts every spelling, spaced and with '='", "[sglang][args]")
{
  struct Case
  {
    std::string flag;
    std::string value;
    std::string dest;
  };
  const std::vector<Case> cases = {
    {"--model-path", "m", "model_path"},
    {"--model", "m", "model_path"},
    {"--tp-size", "3", "tp_size"},
    {"--tensor-parallel-size", "3", "tp_size"},
    {"--tp", "3", "tp_size"},
    {"--dp-size", "3", "dp_size"},
    {"--data-parallel-size", "3", "dp_size"},
    {"--dp", "3", "dp_size"},
    {"--pp-size", "3", "pp_size"},
    {"--pipeline-parallel-size", "3", "pp_size"},
    {"--attn-cp-size", "3", "attn_cp_size"},
    {"--attention-context-parallel-size", "3", "attn_cp_size"},
    {"--dcp-size", "3", "dcp_size"},
    {"--decode-context-parallel-size", "3", "dcp_size"},
    {"--mamba-ssm-dtype", "float16", "mamba_ssm_dtype"},
    {"--disaggregation-mode", "decode", "disaggregation_mode"},
    {"--disaggregation-transfer-backend", "nixl", "disaggregation_transfer_backend"},
    {"--page-size", "64", "page_size"},
    {"--kv-cache-dtype", "fp8_e4m3", "kv_cache_dtype"},
    {"--disaggregation-bootstrap-port", "9000", "disaggregation_bootstrap_port"},
    {"--disaggregation-ib-device", "mlx5_0,mlx5_1", "disaggregation_ib_device"},
    {"--speculative-algorithm", "EAGLE", "speculative_algorithm"},
    {"--speculative-num-steps", "3", "speculative_num_steps"},
    {"--speculative-eagle-topk", "1", "speculative_eagle_topk"},
    {"--speculative-num-draft-tokens", "4", "speculative_num_draft_tokens"},
    {"--max-mamba-cache-size", "96", "max_mamba_cache_size"},
    {"--max-running-requests", "128", "max_running_requests"},
  };
  for (const Case& c : cases) {
    for (const bool joined : {false, true}) {
      const std::vector<std::string> words =
        joined ? std::vector<std::string>{c.flag + "=" + c.value} : std::vector<std::string>{c.flag, c.value};
      INFO(c.flag << (joined ? "=" : " ") << c.value);
      const ServerArgs a = parse_launch_args(words, "test");
      REQUIRE(a.given.count(c.dest) == 1);
      CHECK(a.given.at(c.dest).flag == c.flag);
      CHECK(a.given.at(c.dest).value == c.value);
      CHECK(a.given.at(c.dest).origin == "argv[0]");
      CHECK(a.unknown.empty());
    }
  }

  const ServerArgs a = parse("--model Qwen/Qwen3-Next-80B-A3B-Instruct --tensor-parallel-size=4 --data-parallel-size 2 "
                             "--pipeline-parallel-size 2 --attention-context-parallel-size 2 "
                             "--decode-context-parallel-size 2 --mamba-ssm-dtype bfloat16 "
                             "--disaggregation-mode=prefill --disaggregation-transfer-backend mori --page-size 16 "
                             "--kv-cache-dtype bf16 --disaggregation-bootstrap-port 9001 "
                             "--disaggregation-ib-device '{\"0\": \"mlx5_0\"}' --speculative-algorithm NEXTN "
                             "--speculative-num-steps 0 --speculative-eagle-topk 2 --speculative-num-draft-tokens 5 "
                             "--max-mamba-cache-size 5000000000 --max-running-requests 64");
  CHECK(a.model_path == "Qwen/Qwen3-Next-80B-A3B-Instruct");
  CHECK(a.tp_size == 4);
  CHECK(a.dp_size == 2);
  CHECK(a.pp_size == 2);
  CHECK(a.attn_cp_size == 2);
  CHECK(a.dcp_size == 2);
  CHECK(a.mamba_ssm_dtype == Dtype::bfloat16);
  CHECK(a.disaggregation_mode == DisaggregationMode::prefill);
  CHECK(a.transfer_backend == TransferBackend::mori);
  CHECK(a.page_size == 16);
  CHECK(a.kv_cache_dtype == "bf16");
  CHECK(a.bootstrap_port == 9001);
  CHECK(a.ib_device == R"({"0": "mlx5_0"})");
  CHECK(a.speculative_algorithm == "NEXTN");
  CHECK(a.speculative_num_steps == 0);
  CHECK(a.speculative_eagle_topk == 2);
  CHECK(a.speculative_num_draft_tokens == 5);
  CHECK(a.max_mamba_cache_size == 5000000000LL);
  CHECK(a.max_running_requests == 64);
}

TEST_CASE("parse_launch_args reads switches and every choice", "[sglang][args]")
{
  const ServerArgs a = parse("--enable-dp-attention --enable-unified-memory --enable-page-major-kv-layout "
                             "--enable-hisparse --enable-hierarchical-cache");
  CHECK(a.enable_dp_attention);
  CHECK(a.enable_unified_memory);
  CHECK(a.enable_page_major_kv_layout);
  CHECK(a.enable_hisparse);
  CHECK(a.enable_hierarchical_cache);
  CHECK(a.given.at("enable_dp_attention").value.empty());
  CHECK(a.given.at("enable_hierarchical_cache").origin == "argv[4]");

  CHECK(parse("--mamba-ssm-dtype float32").mamba_ssm_dtype == Dtype::float32);
  CHECK(parse("--mamba-ssm-dtype float16").mamba_ssm_dtype == Dtype::float16);
  CHECK(parse("--disaggregation-mode null").disaggregation_mode == DisaggregationMode::null);
  CHECK(parse("--disaggregation-mode decode").disaggregation_mode == DisaggregationMode::decode);
  for (TransferBackend b : {TransferBackend::mooncake, TransferBackend::nixl, TransferBackend::mori,
                            TransferBackend::ascend, TransferBackend::fake, TransferBackend::mooncake_tcp}) {
    const std::string name(transfer_backend_name(b));
    CHECK(parse("--disaggregation-transfer-backend " + name).transfer_backend == b);
  }
  CHECK(disaggregation_mode_name(DisaggregationMode::prefill) == "prefill");
  CHECK(disaggregation_mode_name(DisaggregationMode::null) == "null");
}

TEST_CASE("parse_launch_args keeps unmodelled SGLang flags with the values argparse gives them", "[sglang][args]")
{
  const ServerArgs a = parse("--tp 2 --mem-fraction-static 0.8 --trust-remote-code --cuda-graph-bs 1 2 4 "
                             "--chunked-prefill-size -1 --log-level=debug --pp 2 stray");
  const ServerArgs b = parse("stray --tp 2");
  CHECK(a.tp_size == 2); // --tp: the one flag it abbreviates
  CHECK(a.pp_size == 1); // argparse rejects --pp as ambiguous; it is not --pp-size
  REQUIRE(a.unknown.size() == 5);
  CHECK(a.unknown[0].flag == "--mem-fraction-static");
  CHECK(a.unknown[0].value == "0.8");
  CHECK(a.unknown[0].origin == "argv[2]");
  CHECK(a.unknown[1].flag == "--trust-remote-code");
  CHECK(a.unknown[1].value.empty());
  CHECK(a.unknown[2].flag == "--cuda-graph-bs");
  CHECK(a.unknown[2].value == "1 2 4");
  CHECK(a.unknown[3].flag == "--chunked-prefill-size");
  CHECK(a.unknown[3].value == "-1");
  CHECK(a.unknown[4].flag == "--log-level");
  CHECK(a.unknown[4].value == "debug");
  REQUIRE(a.argparse.stop);
  CHECK(a.argparse.stop->flag == "--pp");
  CHECK(a.argparse.message == ambiguous_pp());
  CHECK(a.argparse.message_id == MessageId::argparse_ambiguous);
  REQUIRE(b.argparse.unrecognized.size() == 1);
  CHECK(b.argparse.unrecognized[0].flag == "stray");
  CHECK(b.argparse.unrecognized[0].origin == "argv[0]");
  CHECK(b.tp_size == 2);
}

TEST_CASE("parse_launch_args rejects bad values of known flags with exact messages", "[sglang][args]")
{
  auto err = [](const std::string& line) { return error_of([&] { parse_launch_args(split_command_line(line, "o"), "side.yaml:4:7"); }); };
  CHECK(err("--tp-size four") == "side.yaml:4:7: --tp-size: expected a positive integer, got 'four'");
  CHECK(err("--tp=four") == "side.yaml:4:7: --tp: expected a positive integer, got 'four'");
  CHECK(err("--dp-size 0") == "side.yaml:4:7: --dp-size: expected a positive integer, got '0'");
  CHECK(err("--pp-size -2") == "side.yaml:4:7: --pp-size: expected a positive integer, got '-2'");
  CHECK(err("--attn-cp-size 1.5") == "side.yaml:4:7: --attn-cp-size: expected a positive integer, got '1.5'");
  CHECK(err("--tp-size 99999999999") == "side.yaml:4:7: --tp-size: expected a positive integer, got '99999999999'");
  CHECK(err("--speculative-num-steps -1") ==
        "side.yaml:4:7: --speculative-num-steps: expected a non-negative integer, got '-1'");
  CHECK(err("--mamba-ssm-dtype fp8") ==
        "side.yaml:4:7: --mamba-ssm-dtype: expected one of float32, bfloat16, float16, got 'fp8'");
  CHECK(err("--disaggregation-mode prefil") ==
        "side.yaml:4:7: --disaggregation-mode: expected one of null, prefill, decode, got 'prefil'");
  CHECK(err("--disaggregation-transfer-backend ucx") ==
        "side.yaml:4:7: --disaggregation-transfer-backend: expected one of mooncake, nixl, ascend, fake, mori, "
        "mooncake_tcp, got 'ucx'");
  CHECK(err("--kv-cache-dtype fp16") ==
        "side.yaml:4:7: --kv-cache-dtype: expected one of auto, fp8_e5m2, fp8_e4m3, mxfp8, bf16, bfloat16, nvfp4, "
        "fp4_mx_block16, fp4_e2m1, got 'fp16'");
  CHECK(err("--disaggregation-bootstrap-port 70000") ==
        "side.yaml:4:7: --disaggregation-bootstrap-port: expected a port number (1-65535), got '70000'");
  CHECK(err("--tp-size") == "side.yaml:4:7: --tp-size: expected a positive integer, got nothing");
  CHECK(err("--tp-size --dp-size 2") == "side.yaml:4:7: --tp-size: expected a positive integer, got nothing");
  CHECK(err("--model-path") == "side.yaml:4:7: --model-path: expected a value, got nothing");
  CHECK(err("--enable-dp-attention=true") ==
        "side.yaml:4:7: --enable-dp-attention: is a switch and takes no value, got 'true'");
}

TEST_CASE("parse_launch_args copies and validates the environment", "[sglang][args]")
{
  const ServerArgs a = parse("--tp 2", {{"SGLANG_MAMBA_SSM_DTYPE", "float16"}, {"SGLANG_MAMBA_CONV_DTYPE", "float32"},
                                        {"SGLANG_DISABLE_LAZY_COMPACTION", "1"}});
  CHECK(a.env.at("SGLANG_MAMBA_SSM_DTYPE") == "float16");
  CHECK(a.env.at("SGLANG_MAMBA_CONV_DTYPE") == "float32");
  CHECK(a.env.at("SGLANG_DISABLE_LAZY_COMPACTION") == "1");

  // An assignment in front of the command overrides the separate environment.
  const ServerArgs b = parse("SGLANG_MAMBA_SSM_DTYPE=bfloat16 python -m sglang.launch_server",
                             {{"SGLANG_MAMBA_SSM_DTYPE", "float32"}});
  CHECK(b.env.at("SGLANG_MAMBA_SSM_DTYPE") == "bfloat16");

  CHECK(error_of([] { parse_launch_args({}, "decode.yaml", {{"SGLANG_MAMBA_SSM_DTYPE", "fp32"}}); }) ==
        "decode.yaml: SGLANG_MAMBA_SSM_DTYPE: expected one of float32, bfloat16, float16, got 'fp32'");
  CHECK(error_of([] { parse_launch_args({"SGLANG_MAMBA_CONV_DTYPE=fp8", "python3"}, "--decode-args"); }) ==
        "--decode-args: SGLANG_MAMBA_CONV_DTYPE: expected one of float32, bfloat16, float16, got 'fp8'");
}

TEST_CASE("parse_launch_args merges --config with the command line winning", "[sglang][args][config]")
{
  SECTION("fake reader")
  {
    const ServerArgs a = parse_launch_args({"python", "-m", "sglang.launch_server", "--config", "cfg.yaml", "--tp", "8"},
                                           "test", {}, &fake_reader, "/base");
    CHECK(a.tp_size == 8);
    CHECK(a.given.at("tp_size").origin == "argv[5]");
    CHECK(a.given.at("tp_size").flag == "--tp");
    CHECK(a.dp_size == 2);
    CHECK(a.given.at("dp_size").origin == "cfg.yaml:2:1");
    CHECK(a.enable_dp_attention);
    CHECK(a.given.at("enable_dp_attention").origin == "cfg.yaml:3:1");
    CHECK(a.given.at("config").value == "cfg.yaml");
    CHECK(a.given.at("config").origin == "argv[3]");
    CHECK(a.unknown.empty());
  }
  SECTION("--config=PATH, placed after the flags it is overridden by")
  {
    const ServerArgs a = parse_launch_args({"--tp-size", "4", "--config=cfg.yaml"}, "test", {}, &fake_reader, "/base");
    CHECK(a.tp_size == 4);
    CHECK(a.dp_size == 2);
  }
  SECTION("errors")
  {
    CHECK(error_of([] { parse_launch_args({"--config", "cfg.yaml", "--config", "b.yaml"}, "p.yaml", {}, &fake_reader, "/base"); }) ==
          "p.yaml: --config: given twice (argv[0] and argv[2]); SGLang accepts one config file");
    CHECK(error_of([] { parse_launch_args({"--config"}, "p.yaml", {}, &fake_reader, "/base"); }) ==
          "p.yaml: --config: expected a file path, got nothing");
    CHECK(error_of([] { parse_launch_args({"--config", "--tp", "2"}, "p.yaml", {}, &fake_reader, "/base"); }) ==
          "p.yaml: --config: expected a file path, got nothing");
  }
  SECTION("without a reader the file is recorded, not read")
  {
    const ServerArgs a = parse_launch_args({"--config", "cfg.yaml", "--tp", "2"}, "p.yaml");
    CHECK(a.tp_size == 2);
    CHECK(a.dp_size == 1);
    CHECK(a.given.at("config").value == "cfg.yaml");
    CHECK(a.unknown.empty());
  }
}

TEST_CASE("read_sglang_config converts an SGLang YAML config like ConfigArgumentMerger", "[sglang][args][config]")
{
  ArgsTempDir dir;
  dir.write("server.yaml", "model-path: Qwen/Qwen3-Next-80B-A3B-Instruct\n"
                           "tensor_parallel_size: 4\n"
                           "enable-dp-attention: true\n"
                           "enable-unified-memory: false\n"
                           "enable-hisparse: yes\n"
                           "disaggregation-ib-device: \"true\"\n"
                           "cuda-graph-bs: [1, 2, 4]\n"
                           "json-model-override-args: {a: 1}\n"
                           "empty-list: []\n"
                           "nothing: ~\n"
                           "mamba-ssm-dtype: bfloat16\n");

  const std::vector<ConfigWord> words = io::read_sglang_config("server.yaml", dir.path.string());
  std::vector<std::string> texts;
  for (const ConfigWord& w : words) {
    texts.push_back(w.text);
  }
  CHECK(texts == std::vector<std::string>{"--model-path", "Qwen/Qwen3-Next-80B-A3B-Instruct", "--tensor-parallel-size",
                                          "4", "--enable-dp-attention", "--enable-hisparse",
                                          "--disaggregation-ib-device", "true", "--cuda-graph-bs", "1", "2", "4",
                                          "--json-model-override-args", R"({"a": "1"})", "--mamba-ssm-dtype",
                                          "bfloat16"});
  const std::string file = (dir.path / "server.yaml").string();
  CHECK(words[0].origin == file + ":1:1");
  CHECK(words[1].origin == file + ":1:13");
  CHECK(words[3].origin == file + ":2:23");

  const ServerArgs a = parse_launch_args({"--config", "server.yaml", "--tp", "2"}, "test", {}, &io::read_sglang_config,
                                         dir.path.string());
  CHECK(a.tp_size == 2); // the command line wins
  CHECK(a.model_path == "Qwen/Qwen3-Next-80B-A3B-Instruct");
  CHECK(a.given.at("model_path").origin == file + ":1:1");
  CHECK(a.enable_dp_attention);
  CHECK_FALSE(a.enable_unified_memory);
  CHECK(a.enable_hisparse);
  CHECK(a.ib_device == "true");
  CHECK(a.mamba_ssm_dtype == Dtype::bfloat16);
  REQUIRE(a.unknown.size() == 2);
  CHECK(a.unknown[0].flag == "--cuda-graph-bs");
  CHECK(a.unknown[0].value == "1 2 4");
  CHECK(a.unknown[0].origin == file + ":7:1");
}

TEST_CASE("read_sglang_config errors name the file, line and column", "[sglang][args][config]")
{
  ArgsTempDir dir;
  const std::string base = dir.path.string();
  const std::string syntax = dir.write("syntax.yaml", "tp-size: 4\ndp-size: [2\n");
  const std::string list = dir.write("list.yml", "- --tp-size\n- 4\n");
  const std::string bad = dir.write("bad.yaml", "tp-size: four\n");
  dir.write("server.json", "{}");

  CHECK(error_of([&] { io::read_sglang_config("syntax.yaml", base); }) ==
        syntax + ":3:1: YAML syntax error: end of sequence flow not found");
  CHECK(error_of([&] { io::read_sglang_config("list.yml", base); }) ==
        list + ":1:1: an SGLang config file must be a mapping of argument names to values, got a sequence");
  CHECK(error_of([&] { io::read_sglang_config("server.json", base); }) ==
        (dir.path / "server.json").string() + ": SGLang reads only .yaml or .yml config files, got '.json'");
  CHECK(error_of([&] { io::read_sglang_config("missing.yaml", base); }) ==
        (dir.path / "missing.yaml").string() + ": cannot read SGLang config file: No such file or directory");
  CHECK(error_of([&] { parse_launch_args({"--config", "bad.yaml"}, "test", {}, &io::read_sglang_config, base); }) ==
        bad + ":1:1: --tp-size: expected a positive integer, got 'four'");

  const std::string empty = dir.write("empty.yaml", "");
  CHECK(io::read_sglang_config(empty, ".").empty());
}

TEST_CASE("parse_launch_args reads abbreviations as SGLang's argparse does", "[sglang][args][fidelity]")
{
  SECTION("a unique prefix is that flag")
  {
    const ServerArgs a = parse("--enable-unified-mem --mamba-ssm-dt bfloat16 --disaggregation-transfer mori");
    CHECK(a.enable_unified_memory);
    CHECK(a.given.at("enable_unified_memory").flag == "--enable-unified-mem");
    CHECK(a.mamba_ssm_dtype == Dtype::bfloat16);
    CHECK(a.transfer_backend == TransferBackend::mori);
    CHECK(a.argparse.unrecognized.empty());
    CHECK_FALSE(a.argparse.stop);
  }
  SECTION("an unknown flag and the words after it are unrecognized")
  {
    const ServerArgs a = parse("--tp-size 2 --mamba-ssm-dtpe bfloat16 --page-size 16");
    REQUIRE(a.argparse.unrecognized.size() == 2);
    CHECK(a.argparse.unrecognized[0].flag == "--mamba-ssm-dtpe");
    CHECK(a.argparse.unrecognized[1].flag == "bfloat16");
    CHECK(a.page_size == 16);
  }
  SECTION("an unmodelled flag without its value stops argparse")
  {
    const ServerArgs a = parse("--mem-fraction-static --tp-size 2");
    REQUIRE(a.argparse.stop);
    CHECK(a.argparse.message == render_message(MessageId::argparse_expected_one, {{"flag", "--mem-fraction-static"}}));
    CHECK(a.argparse.message_id == MessageId::argparse_expected_one);
  }
  SECTION("the flag list is SGLang's, with provenance")
  {
    CHECK(newest_flag_table().flags().size() > 400);
    CHECK(newest_flag_table().flags().front().option == "-h");
    CHECK(newest_flag_table().commit() == "001067fffe33427bee0ed2f007fb7551a1d76b44");
    for (const LaunchFlag& f : newest_flag_table().flags()) {
      const bool known_nargs = f.nargs == "0" || f.nargs == "1" || f.nargs == "?" || f.nargs == "*" || f.nargs == "+";
      CHECK(known_nargs);
      CHECK(f.option.rfind("-", 0) == 0);
    }
  }
  SECTION("environment names")
  {
    CHECK(known_sglang_env("SGLANG_PP_LAYER_PARTITION"));
    CHECK(known_sglang_env("SGLANG_MAMBA_SSM_DTYPE"));
    CHECK(known_sglang_env("SGL_MAMBA_SSM_DTYPE")); // SGL_* is read as SGLANG_*
    CHECK_FALSE(known_sglang_env("SGLANG_MAMBA_SSM_DTPYE"));
  }
}

TEST_CASE("parse_launch_args: argparse's order of errors, '--', and explicit values of switches", "[sglang][args]")
{
  SECTION("an ambiguous word wins over a bad value before it")
  {
    const ServerArgs a = parse("--tp-size x --pp 2");
    REQUIRE(a.argparse.stop);
    CHECK(a.argparse.message == ambiguous_pp());
  }
  SECTION("... and over a flag missing its value")
  {
    const ServerArgs a = parse("--cuda-graph-bs --pp 2");
    CHECK(a.argparse.message == ambiguous_pp());
  }
  SECTION("words after -- are positional, which ServerArgs has none of")
  {
    const ServerArgs a = parse("--tp-size 2 -- --pp-size 2");
    CHECK(a.pp_size == 1);
    REQUIRE(a.argparse.unrecognized.size() == 2);
    CHECK(a.argparse.unrecognized[0].flag == "--pp-size");
  }
  SECTION("a switch given a value")
  {
    const ServerArgs a = parse("--skip-tokenizer-init=true");
    CHECK(a.argparse.message == render_message(MessageId::argparse_ignored_value,
                                               {{"flag", "--skip-tokenizer-init"}, {"value", "true"}}));
    CHECK(a.argparse.message_id == MessageId::argparse_ignored_value);
  }
  SECTION("integers as Python's int() reads them")
  {
    CHECK(parse("--tp-size 1_0").tp_size == 10);
    CHECK(parse("--tp-size ' 2'").tp_size == 2);
  }
}
