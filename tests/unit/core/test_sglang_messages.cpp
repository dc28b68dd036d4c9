#include "check/log_causes.hpp"
#include "check/log_explain.hpp"
#include "core/rules.hpp"
#include "core/sglang_messages.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace pdcheck;

namespace {

/// A distinct value for each placeholder, so a swapped pair of values shows.
struct Sample
{
  std::vector<MessageArg> args;
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
};

Sample sample_for(MessageId id)
{
  Sample s;
  int n = 0;
  for (const TemplatePiece& p : message_pieces(id)) {
    ++n;
    const std::string name(p.name);
    switch (p.type) {
    case TemplatePiece::Type::literal: --n; break;
    case TemplatePiece::Type::integer:
      s.args.push_back({p.name, 10 + n});
      s.values[name] = 10 + n;
      break;
    case TemplatePiece::Type::list:
      s.args.push_back({p.name, std::vector<std::uint64_t>{static_cast<std::uint64_t>(n), 4096, 4096}});
      s.values[name] = {n, 4096, 4096};
      break;
    case TemplatePiece::Type::word:
      s.args.push_back({p.name, "w" + std::to_string(n)});
      s.values[name] = "w" + std::to_string(n);
      break;
    case TemplatePiece::Type::text:
      s.args.push_back({p.name, "some text " + std::to_string(n)});
      s.values[name] = "some text " + std::to_string(n);
      break;
    }
  }
  return s;
}

std::string render_sample(MessageId id, const Sample& s)
{
  // MessageArgs is an initializer_list: hand the vector over by its size.
  switch (s.args.size()) {
  case 0: return render_delivered(id, {});
  case 1: return render_delivered(id, {s.args[0]});
  case 2: return render_delivered(id, {s.args[0], s.args[1]});
  case 3: return render_delivered(id, {s.args[0], s.args[1], s.args[2]});
  case 4: return render_delivered(id, {s.args[0], s.args[1], s.args[2], s.args[3]});
  default: FAIL("a message with more than 4 placeholders: extend render_sample"); return "";
  }
}

/// The text of every string literal of a C++ file, adjacent literals joined
/// ("a" "b" -> "ab"), one entry per run of literals.
std::vector<std::string> string_literals(const std::string& code)
{
  std::vector<std::string> out;
  std::string current;
  bool in_run = false;
  std::size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    if (c == '/' && i + 1 < code.size() && code[i + 1] == '/') {
      i = code.find('\n', i);
      if (i == std::string::npos) {
        break;
      }
      continue;
    }
    if (c == '\'') {
      if (i > 0 && std::isalnum(static_cast<unsigned char>(code[i - 1]))) {
        ++i; // a digit separator (0x7f00'0000)
        continue;
      }
      // a character literal: skip it whole
      i = code.find('\'', i + (code[i + 1] == '\\' ? 3 : 2)) + 1;
      continue;
    }
    if (c == 'R' && i + 1 < code.size() && code[i + 1] == '"') {
      // a raw string R"delim(...)delim": kept as one literal
      const std::size_t open = code.find('(', i);
      const std::string close = ")" + code.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = code.find(close, open);
      current += code.substr(open + 1, end - open - 1);
      i = end + close.size();
      in_run = true;
      continue;
    }
    if (c == '"') {
      ++i;
      while (i < code.size() && code[i] != '"') {
        if (code[i] == '\\' && i + 1 < code.size()) {
          current += code[i + 1];
          i += 2;
          continue;
        }
        current += code[i++];
      }
      ++i;
      in_run = true;
      continue;
    }
    if (in_run && !(c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
      out.push_back(current);
      current.clear();
      in_run = false;
    }
    ++i;
  }
  if (in_run) {
    out.push_back(current);
  }
  return out;
}

} // namespace

TEST_CASE("messages: handles index their own rows, and every rule's handle its row", "[messages]")
{
  for (const SglangMessage& m : sglang_messages()) {
    CHECK(&sglang_message(m.handle) == &m);
  }
  std::set<std::string_view> ids;
  for (const Rule& r : rules()) {
    CHECK(&rule(r.handle) == &r);
    CHECK(ids.insert(r.id).second);
    CHECK(find_rule(r.id) == &r);
  }
}

TEST_CASE("messages: every row renders and `explain LOG` reads it back with its rule and values", "[messages]")
{
  for (const SglangMessage& m : sglang_messages()) {
    if (m.delivery == Delivery::wrapper) {
      continue;
    }
    INFO(m.text);
    const Sample s = sample_for(m.handle);
    const std::string delivered = render_sample(m.handle, s);
    // Generic Python texts are PD failures only inside SGLang's wrappers.
    const std::string line =
      m.log_scope == LogScope::pd_context
        ? render_delivered(MessageId::transfer_thread_failed, {{"error", delivered}, {"bootstrap_port", 8998}})
        : "[2026-12-02 03:00:00 TP0] " + delivered;
    const auto e = check::explain_log_text(line + "\n", "round-trip.log");
    REQUIRE(e.matches.size() == 1);
    const check::LogMatch& match = e.matches[0];
    CHECK(match.rule == (m.rule ? std::string(rule_id(*m.rule)) : std::string()));
    nlohmann::ordered_json got = match.values;
    got.erase("bootstrap_port"); // the wrapper's own value
    CHECK(got == s.values);
    CHECK_FALSE(match.causes.empty());
  }
}

TEST_CASE("messages: wrappers are peeled and the wrapped row is matched", "[messages]")
{
  const std::string inner = render_message(MessageId::single_state_index, {});
  for (const SglangMessage& m : sglang_messages()) {
    if (m.delivery != Delivery::wrapper) {
      continue;
    }
    INFO(m.text);
    std::vector<MessageArg> args;
    for (const TemplatePiece& p : message_pieces(m.handle)) {
      if (p.type == TemplatePiece::Type::text) {
        args.push_back({p.name, inner});
      } else if (p.type == TemplatePiece::Type::integer) {
        args.push_back({p.name, 7});
      }
    }
    REQUIRE(args.size() <= 2);
    const std::string line = args.size() == 1 ? render_delivered(m.handle, {args[0]})
                                              : render_delivered(m.handle, {args[0], args[1]});
    const auto e = check::explain_log_text(line + "\n", "w.log");
    REQUIRE(e.matches.size() == 1);
    CHECK(e.matches[0].rule == "state-index-count");
    CHECK(e.matches[0].runtime_error == inner);
  }
}

TEST_CASE("messages: every row names causes of the vocabulary, or `explain LOG` derives them", "[messages]")
{
  const auto& names = check::log_cause_names();
  for (const SglangMessage& m : sglang_messages()) {
    INFO(m.text);
    for (std::string_view c : check::split_causes(m.causes)) {
      CHECK(std::find(names.begin(), names.end(), c) != names.end());
    }
    if (m.rule == std::nullopt && m.delivery != Delivery::wrapper) {
      CHECK(m.delivery != Delivery::argparse); // argparse texts are always startup-argparse
    }
  }
}

TEST_CASE("causes: the explain schema and the manual list the vocabulary, in its order", "[messages]")
{
  const auto& names = check::log_cause_names();
  const std::vector<std::string> vocabulary(names.begin(), names.end());
  std::ifstream schema_file(std::string(PDCHECK_SOURCE_DIR) + "/schemas/explain.schema.json");
  REQUIRE(schema_file);
  const nlohmann::json schema = nlohmann::json::parse(schema_file);
  const nlohmann::json& causes =
    schema.at("$defs").at("match").at("properties").at("causes").at("items").at("enum");
  CHECK(causes.get<std::vector<std::string>>() == vocabulary);

  // The manual's list runs from "The causes are a closed vocabulary:" to the
  // paragraph after it: each cause is a ".TP" item tagged ".B name".
  std::ifstream man_file(std::string(PDCHECK_SOURCE_DIR) + "/man/pdcheck.1");
  REQUIRE(man_file);
  std::vector<std::string> listed;
  bool in_list = false;
  std::string previous;
  for (std::string line; std::getline(man_file, line); previous = line) {
    if (line == "The causes are a closed vocabulary:") {
      in_list = true;
    } else if (in_list && line == ".PP") {
      break;
    } else if (in_list && previous == ".TP" && line.rfind(".B ", 0) == 0) {
      listed.push_back(line.substr(3));
    }
  }
  CHECK(listed == vocabulary);
}

TEST_CASE("messages: deliveries decorate the message as SGLang and argparse print it", "[messages]")
{
  const std::string pp = render_message(MessageId::decode_pp_size, {{"decode_pp_size", 2}, {"prefill_pp_size", 4}});
  CHECK(render_delivered(MessageId::decode_pp_size, {{"decode_pp_size", 2}, {"prefill_pp_size", 4}}) ==
        "AssertionError: ('" + pp + "',)");
  const std::string words = render_message(MessageId::argparse_unrecognized, {{"words", "--mamba-ssm-dtpe bfloat16"}});
  CHECK(as_delivered(MessageId::argparse_unrecognized, words) == "error: " + words);
  const std::string slot = render_message(MessageId::mooncake_slot_size, {{"src", 24576}, {"dst", 49152}});
  CHECK(as_delivered(MessageId::mooncake_slot_size, slot) == "RuntimeError: " + slot);
  // The numbers land where the template puts them, the tail follows.
  CHECK(slot.find("(src=24576, dst=49152).") != std::string::npos);
  CHECK(slot.size() > sglang_message(MessageId::mooncake_slot_size).tail.size());
  CHECK(slot.substr(slot.size() - sglang_message(MessageId::mooncake_slot_size).tail.size()) ==
        sglang_message(MessageId::mooncake_slot_size).tail);
  const std::string perf = render_delivered(MessageId::tp_performance, {});
  CHECK(perf == render_message(MessageId::tp_performance, {})); // a log line has no class
}

TEST_CASE("messages: lists render as Python's repr and wide integers as digits", "[messages]")
{
  const std::string s = render_message(MessageId::mooncake_layout_no_dims,
                                       {{"src_item_lens", std::vector<std::uint64_t>{24576, 1048576}},
                                        {"dst_item_lens", std::vector<std::uint64_t>{}}});
  CHECK(s.find("src item_lens=[24576, 1048576], dst item_lens=[])") != std::string::npos);
  const std::string wide =
    render_message(MessageId::pp_partition_sum, {{"sum", "170141183460469231731687303715884105727"}, {"num_hidden_layers", 48}});
  CHECK(wide.find("=170141183460469231731687303715884105727 ") != std::string::npos);
}

TEST_CASE("messages: a wrong call is a programming error, not a wrong text", "[messages]")
{
  CHECK_THROWS_AS(render_message(MessageId::mooncake_slot_size, {{"src", 1}}), std::logic_error);
  CHECK_THROWS_AS(render_message(MessageId::mooncake_slot_size, {{"src", 1}, {"dst", 2}, {"other", 3}}),
                  std::logic_error);
  CHECK_THROWS_AS(render_message(MessageId::mooncake_slot_size, {{"src", "many"}, {"dst", 2}}), std::logic_error);
  CHECK_THROWS_AS(render_message(MessageId::kv_cache_dtype_mismatch,
                                 {{"prefill_kv_cache_dtype", "two words"}, {"decode_kv_cache_dtype", "auto"}}),
                  std::logic_error);
}

TEST_CASE("messages: no SGLang text is written a second time anywhere in src/", "[messages]")
{
  namespace fs = std::filesystem;
  const fs::path root = fs::path(PDCHECK_SOURCE_DIR) / "src";
  std::vector<std::pair<std::string, std::vector<std::string>>> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) {
      continue;
    }
    std::ifstream in(entry.path());
    std::stringstream buf;
    buf << in.rdbuf();
    files.emplace_back(fs::relative(entry.path(), root).string(), string_literals(buf.str()));
  }
  REQUIRE(files.size() > 50);
  std::vector<std::string> repeats;
  for (const SglangMessage& m : sglang_messages()) {
    // The longest literal stretch of the row stands for the text.
    std::string_view longest;
    for (const TemplatePiece& p : message_pieces(m.handle)) {
      if (p.type == TemplatePiece::Type::literal && p.literal.size() > longest.size()) {
        longest = p.literal;
      }
    }
    if (longest.size() < 22) {
      continue; // too short to stand for the text: " is not divisible by " is plain English too
    }
    for (const auto& [file, literals] : files) {
      for (const std::string& lit : literals) {
        if (lit.find(longest) != std::string::npos) {
          repeats.push_back(file + ": " + std::string(longest));
        }
      }
    }
  }
  CHECK(repeats == std::vector<std::string>{});
}
