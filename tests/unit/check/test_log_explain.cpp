// `pdcheck explain LOG`: the matcher on inline logs (exact SGLang texts, the
// values it extracts, the causes it derives from the numbers), and the CLI on
// every bundled example log in examples/logs/. The inline log lines are built
// from the catalog with hand-chosen values, as SGLang would print them.
#include "check/log_explain.hpp"
#include "report/log_render.hpp"

#include "../../support/catalog_text.hpp"
#include "../../support/run_pdcheck.hpp"

#include <catch2/catch.hpp>

#include <regex>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

using namespace pdcheck;
using check::explain_log_text;
using test::message_head;
using test::repeated;

namespace {

using Lens = std::vector<std::uint64_t>;

/// str(e) of the Mooncake "layouts differ ... no per-tensor dim metadata" error.
std::string m9(const Lens& src, const Lens& dst)
{
  return render_message(MessageId::mooncake_layout_no_dims, {{"src_item_lens", src}, {"dst_item_lens", dst}});
}

/// Qwen3-Next at attention TP 1: 36 conv entries of 49152 bytes, then 36 temporal of 2097152.
const Lens k_src = repeated(49152, 36, 2097152, 36);

using Run = test::CliRun;

Run run_cli(const std::string& args)
{
  return test::run_pdcheck(args);
}

} // namespace

TEST_CASE("explain: one entry against many is unified memory on one side", "[explain]")
{
  const std::string log = "[2025-11-03 09:15:12 TP0] " +
                          render_delivered(MessageId::mooncake_layout_no_dims,
                                           {{"src_item_lens", k_src}, {"dst_item_lens", Lens{77266944}}}) +
                          "\n";
  const auto e = explain_log_text(log, "p.log");
  REQUIRE(e.matches.size() == 1);
  const auto& m = e.matches[0];
  CHECK(m.file == "p.log");
  CHECK(m.line == 1);
  CHECK(m.rule == "mooncake-layout-no-dims");
  CHECK(m.runtime_error ==
        message_head(MessageId::mooncake_layout_no_dims, {{"src_item_lens", k_src}, {"dst_item_lens", Lens{77266944}}}));
  CHECK(m.values["src_item_lens"].size() == 72);
  CHECK(m.values["dst_item_lens"] == nlohmann::ordered_json::array({77266944}));
  CHECK(m.causes == std::vector<std::string>{"unified_memory_one_side"});
  CHECK(m.analysis["unified_side"] == "decode");
  CHECK(m.explanation.find("Unified memory is enabled on the decode only") != std::string::npos);
  CHECK(m.fix == "Enable --enable-unified-memory on both sides or on neither.");
  CHECK(m.confirm.rfind("pdcheck check ", 0) == 0);
  CHECK(e.unrecognised.empty());
  CHECK(e.failures_found());
}

TEST_CASE("explain: every conv and temporal entry 2x with equal layer count is attention TP ratio 2", "[explain]")
{
  const Lens dst = repeated(24576, 36, 1048576, 36);
  const std::string thread = render_message(MessageId::transfer_thread_failed,
                                            {{"error", m9(k_src, dst)}, {"bootstrap_port", 8998}});
  const std::string log =
    "x " + render_message(MessageId::kv_transfer_error, {{"bootstrap_room", 61}, {"reason", thread}}) + "\n";
  const auto e = explain_log_text(log, "d.log");
  REQUIRE(e.matches.size() == 1);
  const auto& m = e.matches[0];
  CHECK(m.causes == std::vector<std::string>{"attn_tp_mismatch", "missing_dim_metadata"});
  CHECK(m.analysis["attn_tp_ratio"] == "2");
  CHECK(m.analysis["layers"] == 36);
  CHECK(m.analysis["conv_ratio"] == "2");
  CHECK(m.values["bootstrap_room"] == 61);
  CHECK(m.values["bootstrap_port"] == 8998);
  CHECK(m.explanation.find("the decode's attention TP is 2x the prefill's") != std::string::npos);
}

TEST_CASE("explain: temporal entries 2x with conv equal is an SSM dtype mismatch", "[explain]")
{
  const Lens dst = repeated(49152, 36, 1048576, 36);
  const auto e = explain_log_text(
    render_delivered(MessageId::mooncake_layout_no_dims, {{"src_item_lens", k_src}, {"dst_item_lens", dst}}) + "\n",
    "p.log");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].causes == std::vector<std::string>{"ssm_dtype_mismatch", "missing_dim_metadata"});
  CHECK(e.matches[0].analysis["temporal_ratio"] == "2");
  CHECK(e.matches[0].analysis["conv_ratio"] == "1");
}

TEST_CASE("explain: conv entries differing alone is a conv dtype mismatch; both differing is TP plus dtype",
          "[explain]")
{
  const Lens conv_only = repeated(24576, 36, 2097152, 36);
  CHECK(explain_log_text(m9(k_src, conv_only), "l").matches.at(0).causes ==
        std::vector<std::string>{"conv_dtype_mismatch", "missing_dim_metadata"});
  const Lens both = repeated(24576, 36, 524288, 36);
  CHECK(explain_log_text(m9(k_src, both), "l").matches.at(0).causes ==
        std::vector<std::string>{"attn_tp_mismatch", "ssm_dtype_mismatch", "missing_dim_metadata"});
}

TEST_CASE("explain: a divisor entry count is a pipeline mismatch", "[explain]")
{
  const Lens half = repeated(49152, 18, 2097152, 18);
  const auto m = explain_log_text(m9(half, k_src), "l").matches.at(0);
  CHECK(m.causes == std::vector<std::string>{"pp_mismatch", "missing_dim_metadata"});
  CHECK(m.analysis["entry_ratio"] == 2);
}

TEST_CASE("explain: slot size mismatch factor 2 is an SSM dtype mismatch", "[explain]")
{
  const auto e = explain_log_text(
    render_delivered(MessageId::mooncake_slot_size, {{"src", 2097152}, {"dst", 1048576}}) + "\n", "l");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].rule == "mooncake-slot-size");
  CHECK(e.matches[0].runtime_error == message_head(MessageId::mooncake_slot_size, {{"src", 2097152}, {"dst", 1048576}}));
  CHECK(e.matches[0].values == nlohmann::ordered_json{{"src", 2097152}, {"dst", 1048576}});
  CHECK(e.matches[0].causes == std::vector<std::string>{"ssm_dtype_mismatch"});
}

TEST_CASE("explain: Mori batched state indices inside the submission wrapper", "[explain]")
{
  const std::string line =
    "E " +
    render_message(MessageId::transfer_submission_failed,
                   {{"error", render_message(MessageId::mori_single_state_index, {{"src", 1}, {"dst", 2}})}}) +
    "\n";
  const auto e = explain_log_text(line + line, "m.log");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].rule == "mori-single-state-index");
  CHECK(e.matches[0].count == 2);
  CHECK(e.matches[0].lines == std::vector<std::int64_t>{1, 2});
  CHECK(e.matches[0].causes == std::vector<std::string>{"batched_state_indices"});
}

TEST_CASE("explain: bootstrap texts give page size, kv dtype and pp causes with both values", "[explain]")
{
  const auto e = explain_log_text(
    render_delivered(MessageId::page_size_mismatch, {{"prefill_page_size", 64}, {"decode_page_size", 1}}) + "\n" +
      render_delivered(MessageId::kv_cache_dtype_mismatch,
                       {{"prefill_kv_cache_dtype", "fp8_e4m3"}, {"decode_kv_cache_dtype", "auto"}}) +
      "\n" + render_delivered(MessageId::decode_pp_size, {{"decode_pp_size", 2}, {"prefill_pp_size", 4}}) + "\n",
    "b.log");
  REQUIRE(e.matches.size() == 3);
  CHECK(e.matches[0].rule == "bootstrap-page-size");
  CHECK(e.matches[0].values == nlohmann::ordered_json{{"prefill_page_size", 64}, {"decode_page_size", 1}});
  CHECK(e.matches[0].causes == std::vector<std::string>{"page_size_mismatch"});
  CHECK(e.matches[1].values ==
        nlohmann::ordered_json{{"prefill_kv_cache_dtype", "fp8_e4m3"}, {"decode_kv_cache_dtype", "auto"}});
  CHECK(e.matches[1].causes == std::vector<std::string>{"kv_cache_dtype_mismatch"});
  CHECK(e.matches[2].rule == "bootstrap-pp-size");
  CHECK(e.matches[2].line == 3);
  CHECK(e.matches[2].causes == std::vector<std::string>{"pp_mismatch"});
}

TEST_CASE("explain: generic Python errors count only inside a disaggregation traceback or a wrapper", "[explain]")
{
  const std::string index_error = render_delivered(MessageId::list_index, {}) + "\n";
  CHECK(explain_log_text(index_error, "l").matches.empty());
  // The traceback frame as Python prints it for the Mooncake send.
  const auto e = explain_log_text("  File \"/sglang/srt/disaggregation/mooncake/conn.py\", line 655, in "
                                  "_send_mamba_state\n"
                                  "    dst_index = int(dst_state_indices[0])\n" +
                                    index_error,
                                  "l");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].rule == "state-index-empty");
  CHECK(e.matches[0].line == 3);
  CHECK(e.matches[0].causes == std::vector<std::string>{"empty_state_indices"});
  CHECK(e.matches[0].analysis["traceback_frame"].get<std::string>().find("_send_mamba_state") != std::string::npos);
}

TEST_CASE("explain: JSON lines are matched on their decoded message and traceback", "[explain]")
{
  nlohmann::json line = {{"level", "ERROR"},
                         {"message", "Exception in transfer worker"},
                         {"exc_info", "Traceback (most recent call last):\n" +
                                        render_delivered(MessageId::single_state_index, {})}};
  const auto e = explain_log_text("{\"level\": \"INFO\", \"message\": \"ok\"}\n" + line.dump() + "\n", "j.jsonl");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].line == 2);
  CHECK(e.matches[0].rule == "state-index-count");
  CHECK(e.matches[0].causes == std::vector<std::string>{"batched_state_indices", "empty_state_indices"});
  CHECK(e.unrecognised.empty());
}

TEST_CASE("explain: unknown PD-looking errors are listed, not dropped; ordinary lines are ignored", "[explain]")
{
  const auto e = explain_log_text(
    "[TP0] Decode batch. #running-req: 8, error_count=0\n"
    "[TP0] RuntimeError: Mooncake transfer engine failed to register decode buffer (errno 12)\n"
    "[TP0] RuntimeError: Mooncake transfer engine failed to register decode buffer (errno 12)\n"
    "[TP0] " +
      render_message(MessageId::kv_transfer_error,
                     {{"bootstrap_room", 7},
                      {"reason", render_message(MessageId::transfer_thread_failed,
                                                {{"error", "something new"}, {"bootstrap_port", 1}})}}) +
      "\n"
    "ValueError: could not convert string to float: 'abc'\n",
    "u.log");
  CHECK(e.matches.empty());
  REQUIRE(e.unrecognised.size() == 2);
  CHECK(e.unrecognised[0].line == 2);
  CHECK(e.unrecognised[0].count == 2);
  CHECK(e.unrecognised[0].text ==
        "[TP0] RuntimeError: Mooncake transfer engine failed to register decode buffer (errno 12)");
  CHECK(e.unrecognised[1].line == 4);
  CHECK(e.failures_found());
}

TEST_CASE("explain: the performance warning alone is a note, not a failure", "[explain]")
{
  const auto e = explain_log_text(render_delivered(MessageId::tp_performance, {}) + "\n", "l");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].severity == "info");
  CHECK_FALSE(e.failures_found());
}

TEST_CASE("explain: chunked feeding counts lines across chunks", "[explain]")
{
  check::LogScanner s("c.log");
  s.feed("a\nb\n");
  s.feed("c\n" + render_delivered(MessageId::unified_peers_must_enable, {}) + "\n");
  check::LogExplanation out;
  s.finish(out);
  REQUIRE(out.matches.size() == 1);
  CHECK(out.matches[0].line == 4);
  CHECK(out.matches[0].rule == "unified-one-side");
}

TEST_CASE("explain: values extracted from the extra-state and DCP texts", "[explain]")
{
  const auto mori = explain_log_text(
    render_message(MessageId::transfer_submission_failed,
                   {{"error", render_message(MessageId::mori_swa_unequal_tp,
                                             {{"prefill_attn_tp_size", 4}, {"decode_attn_tp_size", 2}})}}) +
      "\n",
    "p.log");
  REQUIRE(mori.matches.size() == 1);
  CHECK(mori.matches[0].values.dump() == R"({"prefill_attn_tp_size":4,"decode_attn_tp_size":2})");
  CHECK(mori.matches[0].explanation ==
        "Mori cannot move sliding-window state between prefill attention TP 4 and decode TP 2 on a non-MLA model.");
  const auto dcp = explain_log_text(
    render_delivered(MessageId::dcp_not_implemented, {{"manager", "NixlKVManager"}, {"dcp_size", 4}}) + "\n", "d.log");
  REQUIRE(dcp.matches.size() == 1);
  CHECK(dcp.matches[0].causes == std::vector<std::string>{"dcp_backend_unsupported"});
  CHECK(dcp.matches[0].explanation == "NixlKVManager has no DCP-aware transfer path but the server runs --dcp-size 4: "
                                      "it refuses to start rather than corrupt the transferred KV cache.");
  const auto pp =
    explain_log_text(render_delivered(MessageId::minimax_pp, {{"what", "sparse index"}}) + "\n", "p");
  REQUIRE(pp.matches.size() == 1);
  CHECK(pp.matches[0].causes == std::vector<std::string>{"pipeline_parallel_unsupported"});
}

TEST_CASE("explain: the JSON document has matches and unrecognised with the documented fields", "[explain]")
{
  const auto j = report::log_explanation_to_json(
    explain_log_text(render_delivered(MessageId::unified_peers_must_enable, {}) + "\n", "x.log"));
  REQUIRE(j["matches"].size() == 1);
  for (const char* key :
       {"file", "line", "rule", "runtime_error", "values", "causes", "explanation", "fix", "rooms", "links"}) {
    CHECK(j["matches"][0].contains(key));
  }
  CHECK(j["unrecognised"].is_array());
  CHECK(j["logs"] == nlohmann::ordered_json::array({{{"file", "x.log"}, {"role", "unknown"}, {"role_from", nullptr}}}));
}

TEST_CASE("pdcheck explain: each bundled example log", "[explain][cli]")
{
  struct Case
  {
    const char* file;
    int status;
    const char* rule;
    const char* cause;
  };
  const Case cases[] = {
    {"mooncake-unified-one-side.prefill.log", 1, "mooncake-layout-no-dims", "unified_memory_one_side"},
    {"kvtransfer-tp-ratio.decode.log", 1, "mooncake-layout-no-dims", "attn_tp_mismatch"},
    {"ssm-dtype.prefill.jsonl", 1, "mooncake-layout-no-dims", "ssm_dtype_mismatch"},
    {"mori-batched-indices.prefill.log", 1, "mori-single-state-index", "batched_state_indices"},
    {"bootstrap-mismatch.decode.log", 1, "bootstrap-page-size", "page_size_mismatch"},
    {"empty-state-indices.prefill.log", 1, "state-index-empty", "empty_state_indices"},
    {"healthy.decode.log", 0, nullptr, nullptr},
    // The pair linked by bootstrap room (test_log_liveness.cpp reads them together).
    {"room-link.prefill.log", 1, nullptr, "transfer_failed"},
    {"room-link.decode.log", 1, nullptr, "peer_failed"},
  };
  std::size_t seen = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(PDCHECK_SOURCE_DIR) + "/examples/logs")) {
    (void)entry;
    ++seen;
  }
  CHECK(seen == std::size(cases)); // a new example log needs a case here
  for (const Case& c : cases) {
    INFO(c.file);
    const Run r = run_cli(fmt::format("explain --format json examples/logs/{}", c.file));
    CHECK(r.code == c.status);
    const auto j = nlohmann::json::parse(r.out);
    if (c.status == 0) {
      for (const auto& m : j["matches"]) {
        CHECK(m["severity"] == "info");
      }
      CHECK(j["unrecognised"].empty());
      continue;
    }
    bool found = false;
    for (const auto& m : j["matches"]) {
      if (c.rule == nullptr ? m["rule"].is_null() : m["rule"] == c.rule) {
        found = true;
        CHECK(std::find(m["causes"].begin(), m["causes"].end(), c.cause) != m["causes"].end());
        CHECK(m["file"] == std::string("examples/logs/") + c.file);
      }
    }
    CHECK(found);
  }
}

TEST_CASE("pdcheck explain: bootstrap example lists the unknown Mooncake error as unrecognised", "[explain][cli]")
{
  const Run r = run_cli("explain --format json examples/logs/bootstrap-mismatch.decode.log");
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["unrecognised"].size() == 1);
  CHECK(j["unrecognised"][0]["line"] == 8);
  CHECK(j["matches"].size() == 4);
}

TEST_CASE("pdcheck explain: rule ids, stdin, and errors", "[explain][cli]")
{
  const Run rule = run_cli("explain bootstrap-page-size");
  CHECK(rule.code == 0);
  CHECK(rule.out.rfind("bootstrap-page-size (bootstrap, error)\npage sizes differ\n", 0) == 0);

  const Run typo = run_cli("explain bootstrap-page-sise");
  CHECK(typo.code == 2);
  CHECK(typo.out == "pdcheck: error: explain: unknown rule 'bootstrap-page-sise' (did you mean 'bootstrap-page-size'?)\n");

  const Run missing = run_cli("explain no/such.log");
  CHECK(missing.code == 2);
  CHECK(missing.out == "pdcheck: error: no/such.log: cannot open log: No such file or directory\n");

  const Run mixed = run_cli("explain bootstrap-page-size examples/logs/healthy.decode.log");
  CHECK(mixed.code == 2);
  CHECK(mixed.out == "pdcheck: error: explain: 'bootstrap-page-size' is a rule id: give one rule id, or log files, "
                     "not both\n");

  const Run stdin_run = run_cli("explain - < examples/logs/mori-batched-indices.prefill.log");
  CHECK(stdin_run.code == 1);
  CHECK(stdin_run.out.rfind("<stdin>:2: error [mori-single-state-index] (2 times)\n", 0) == 0);

  const Run clean = run_cli("explain examples/logs/healthy.decode.log");
  CHECK(clean.code == 0);
  CHECK(clean.out.find("0 known PD failures, 1 note, 0 unrecognised\n") != std::string::npos);
}

TEST_CASE("explain: a number past int64 in a log line is no template value", "[explain]")
{
  // Found by fuzz_log_scan: the room number overflowed int64 while being read
  // (undefined behaviour); such a line now does not match the template.
  const std::string huge = "61529377777777777777777777777777748211";
  const std::string thread = render_message(MessageId::transfer_thread_failed,
                                            {{"error", m9(k_src, repeated(24576, 36, 1048576, 36))},
                                             {"bootstrap_port", 8998}});
  const std::string log =
    "x " + render_message(MessageId::kv_transfer_error, {{"bootstrap_room", 61}, {"reason", thread}}) + "\n";
  const std::string wrapped = std::regex_replace(log, std::regex("=61\\b"), "=" + huge);
  REQUIRE(wrapped != log);
  const auto fine = explain_log_text(log, "d.log");
  REQUIRE(fine.matches.size() == 1);
  CHECK(fine.matches[0].rooms == std::vector<std::int64_t>{61});
  const auto e = explain_log_text(wrapped, "d.log");
  for (const auto& m : e.matches) {
    CHECK(m.rooms.empty());
  }
}
