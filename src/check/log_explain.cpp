#include "check/log_explain.hpp"

#include "core/rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bitset>
#include <cctype>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>

namespace pdcheck::check {

namespace {

using json = nlohmann::ordered_json;

// --- the closed cause vocabulary ------------------------------------------------

struct Cause
{
  std::string_view name;
  std::string_view fix;
};

const std::vector<Cause> k_causes = {
  {"attn_tp_mismatch", "Use the same attention TP size on both sides (--tp-size, --dp-size with "
                       "--enable-dp-attention, attention CP), or a version that reslices state across TP."},
  {"ssm_dtype_mismatch", "Use the same --mamba-ssm-dtype / SGLANG_MAMBA_SSM_DTYPE on both sides."},
  {"conv_dtype_mismatch", "Use the same SGLANG_MAMBA_CONV_DTYPE on both sides."},
  {"unified_memory_one_side", "Enable --enable-unified-memory on both sides or on neither."},
  {"unified_memory_unequal_tp", "With --enable-unified-memory use equal attention TP sizes on both sides."},
  {"unified_memory_requirements", "Meet --enable-unified-memory's PD requirements (Mooncake, pp 1, lazy compaction, "
                                  "no --enable-hisparse) or drop the flag."},
  {"missing_dim_metadata", "Run an SGLang that registers state_dim_per_tensor on both sides (PR #22240 or later, the "
                           "same version on both sides)."},
  {"mixed_sglang_versions", "Run the same SGLang version on both sides."},
  {"batched_state_indices", "Send Mamba state per sequence: one state index per Mamba component and request."},
  {"empty_state_indices", "Filter out empty state index lists (cancelled or finished requests) before sending."},
  {"page_size_mismatch", "Use the same --page-size on both sides."},
  {"kv_cache_dtype_mismatch", "Use the same --kv-cache-dtype on both sides."},
  {"pp_mismatch", "Run the decode with the prefill's --pp-size or with --pp-size 1, on a version that exchanges "
                  "layer ids."},
  {"decode_context_parallel", "Run the decode without attention context parallelism."},
  {"tp_not_divisible", "Pick an attention TP size that divides the model's state heads and channels (see "
                       "`pdcheck layout`)."},
  {"model_mismatch", "Point both sides at the same model (same config.json)."},
  {"backend_version_too_old", "Upgrade SGLang on both sides, or use the Mooncake backend."},
  {"mori_registration_bug", "Upgrade the decode past v0.5.12.post1 (PR #26539), or use Mooncake."},
  {"state_layout_mismatch", "Run the same SGLang version, model, TP sizes and state dtypes on both sides."},
  {"pipeline_parallel_unsupported", "Run the prefill with --pp-size 1: this state component cannot be split over "
                                    "pipeline stages."},
  {"state_type_unsupported", "Use a transfer backend that has a path for this state component (Mooncake)."},
  {"dcp_backend_unsupported", "Run with --dcp-size 1, or use a backend with DCP-aware transfer (Mooncake, NIXL)."},
  {"transfer_failed", "Check the RDMA path between the two hosts (`pdcheck probe`, ibv_devinfo) and the peer's log."},
};

std::string_view cause_fix(std::string_view name)
{
  for (const Cause& c : k_causes) {
    if (c.name == name) {
      return c.fix;
    }
  }
  throw std::logic_error("unknown log cause " + std::string(name));
}

// --- templates: SGLang's f-strings with typed placeholders ---------------------
//
// `{name:int}` an integer, `{name:list}` a Python list of integers, `{name:word}`
// text without spaces up to the next literal, `{name:text}` any text up to the next
// literal (or the end of the line). Two placeholders are never adjacent.

struct Piece
{
  bool is_value = false;
  std::string literal;
  std::string name;
  char type = 0; ///< 'i' int, 'l' list, 'w' word, 't' text
};

std::vector<Piece> compile(std::string_view pattern)
{
  std::vector<Piece> pieces;
  std::size_t i = 0;
  while (i < pattern.size()) {
    const std::size_t open = pattern.find('{', i);
    if (open != i) {
      const std::size_t end = open == std::string_view::npos ? pattern.size() : open;
      pieces.push_back(Piece{false, std::string(pattern.substr(i, end - i)), "", 0});
      i = end;
      continue;
    }
    const std::size_t close = pattern.find('}', open);
    const std::string_view inner = pattern.substr(open + 1, close - open - 1);
    const std::size_t colon = inner.find(':');
    Piece p;
    p.is_value = true;
    p.name = std::string(inner.substr(0, colon));
    p.type = inner.substr(colon + 1)[0];
    pieces.push_back(std::move(p));
    i = close + 1;
  }
  return pieces;
}

struct Captured
{
  std::size_t begin = 0;
  std::size_t end = 0;
  json values = json::object();
};

bool parse_int(std::string_view s, std::size_t& pos, std::int64_t& out)
{
  std::size_t p = pos;
  bool neg = false;
  if (p < s.size() && s[p] == '-') {
    neg = true;
    ++p;
  }
  const std::size_t digits = p;
  std::int64_t v = 0;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
    v = v * 10 + (s[p] - '0');
    ++p;
  }
  if (p == digits) {
    return false;
  }
  out = neg ? -v : v;
  pos = p;
  return true;
}

bool parse_list(std::string_view s, std::size_t& pos, json& out)
{
  if (pos >= s.size() || s[pos] != '[') {
    return false;
  }
  std::size_t p = pos + 1;
  out = json::array();
  while (p < s.size() && s[p] == ' ') {
    ++p;
  }
  if (p < s.size() && s[p] == ']') {
    pos = p + 1;
    return true;
  }
  while (true) {
    std::int64_t v = 0;
    if (!parse_int(s, p, v)) {
      return false;
    }
    out.push_back(v);
    while (p < s.size() && s[p] == ' ') {
      ++p;
    }
    if (p < s.size() && s[p] == ']') {
      pos = p + 1;
      return true;
    }
    if (p >= s.size() || s[p] != ',') {
      return false;
    }
    ++p;
    while (p < s.size() && s[p] == ' ') {
      ++p;
    }
  }
}

/// Matches `pieces` against `line` starting with the literal at `start`.
std::optional<Captured> match_at(const std::vector<Piece>& pieces, std::string_view line, std::size_t start)
{
  Captured c;
  c.begin = start;
  std::size_t pos = start;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const Piece& p = pieces[k];
    if (!p.is_value) {
      if (line.substr(pos, p.literal.size()) != p.literal) {
        return std::nullopt;
      }
      pos += p.literal.size();
      continue;
    }
    const std::string* next = k + 1 < pieces.size() ? &pieces[k + 1].literal : nullptr;
    switch (p.type) {
    case 'i': {
      std::int64_t v = 0;
      if (!parse_int(line, pos, v)) {
        return std::nullopt;
      }
      c.values[p.name] = v;
      break;
    }
    case 'l': {
      json list;
      if (!parse_list(line, pos, list)) {
        return std::nullopt;
      }
      c.values[p.name] = std::move(list);
      break;
    }
    default: {
      std::size_t end = next ? line.find(*next, pos) : line.size();
      if (end == std::string_view::npos) {
        return std::nullopt;
      }
      std::string_view value = line.substr(pos, end - pos);
      if (!next) {
        while (!value.empty() && (value.back() == ' ' || value.back() == '\r' || value.back() == '"')) {
          value.remove_suffix(1);
        }
      }
      if (p.type == 'w' && (value.empty() || value.find(' ') != std::string_view::npos)) {
        return std::nullopt;
      }
      c.values[p.name] = std::string(value);
      pos = end;
      break;
    }
    }
  }
  c.end = pos;
  return c;
}

/// Leftmost match of a template anywhere in the line. A template may start with
/// an int or word placeholder ("{n:int} is not divisible by {d:int}",
/// "{manager:word} does not yet implement ..."): its characters are then read
/// backwards from the first literal.
std::optional<Captured> search(const std::vector<Piece>& pieces, std::string_view line)
{
  const bool leading_value = pieces.front().is_value;
  const bool leading_word = leading_value && pieces.front().type == 'w';
  const std::string& first = leading_value ? pieces[1].literal : pieces.front().literal;
  auto belongs = [&](char c) {
    return leading_word ? (c != ' ' && c != '\t' && c != ':' && c != '"' && c != '\'')
                        : (c >= '0' && c <= '9');
  };
  std::size_t at = line.find(first);
  while (at != std::string_view::npos) {
    std::size_t start = at;
    if (leading_value) {
      while (start > 0 && belongs(line[start - 1])) {
        --start;
      }
      if (start == at) {
        at = line.find(first, at + 1);
        continue;
      }
    }
    if (auto c = match_at(pieces, line, start)) {
      return c;
    }
    at = line.find(first, at + 1);
  }
  return std::nullopt;
}

// --- what a match means ----------------------------------------------------------

struct Analysis
{
  std::vector<std::string> causes;
  json derived = json::object();
  std::string explanation;
};

using Analyzer = Analysis (*)(const json& v);

/// p/q in lowest terms, printed as "2" or "1/2".
std::string ratio_text(std::int64_t p, std::int64_t q)
{
  if (q == 0) {
    return "inf";
  }
  const std::int64_t g = std::gcd(p, q);
  p /= g;
  q /= g;
  return q == 1 ? std::to_string(p) : fmt::format("{}/{}", p, q);
}

bool is_two(std::int64_t a, std::int64_t b)
{
  return a == 2 * b || b == 2 * a;
}

bool divides_either(std::int64_t a, std::int64_t b)
{
  return a > 0 && b > 0 && (a % b == 0 || b % a == 0);
}

std::string which_larger(std::int64_t src, std::int64_t dst)
{
  return src > dst ? "prefill" : "decode";
}

/// A single slot-size mismatch (whole-item path, or replicated state).
Analysis slot_size(std::int64_t src, std::int64_t dst, std::string_view what)
{
  Analysis a;
  a.derived["ratio_prefill_to_decode"] = ratio_text(src, dst);
  if (is_two(src, dst)) {
    a.causes = {"ssm_dtype_mismatch"};
    a.explanation = fmt::format(
      "The {} slot is {} bytes on the prefill and {} on the decode, exactly a factor 2 apart: the same shape with "
      "2-byte elements on one side and 4-byte on the other. The {} side most likely keeps the SSM state in float32 "
      "and the other in bfloat16 (--mamba-ssm-dtype / SGLANG_MAMBA_SSM_DTYPE; a conv dtype difference "
      "(SGLANG_MAMBA_CONV_DTYPE) gives the same factor on the conv entries).",
      what, src, dst, which_larger(src, dst));
  } else if (divides_either(src, dst)) {
    a.causes = {"attn_tp_mismatch", "missing_dim_metadata"};
    a.explanation = fmt::format(
      "The {} slot is {} bytes on the prefill and {} on the decode (ratio {}): the sizes of a state sharded over "
      "different attention TP sizes, copied whole because one side registered no per-tensor dims to reslice with.",
      what, src, dst, ratio_text(src, dst));
  } else {
    a.causes = {"state_layout_mismatch"};
    a.explanation = fmt::format("The {} slot is {} bytes on the prefill and {} on the decode: the two sides built "
                                "different state layouts (model, version or flags).",
                                what, src, dst);
  }
  return a;
}

std::vector<std::int64_t> ints(const json& list)
{
  std::vector<std::int64_t> v;
  for (const auto& x : list) {
    v.push_back(x.get<std::int64_t>());
  }
  return v;
}

std::int64_t sum(const std::vector<std::int64_t>& v)
{
  return std::accumulate(v.begin(), v.end(), std::int64_t{0});
}

/// Maximal runs of equal values: (first index, length).
std::vector<std::pair<std::size_t, std::size_t>> runs(const std::vector<std::int64_t>& v)
{
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j < v.size() && v[j] == v[i]) {
      ++j;
    }
    out.emplace_back(i, j - i);
    i = j;
  }
  return out;
}

/// The ratio src/dst over a range when it is the same for every entry there.
std::optional<std::pair<std::int64_t, std::int64_t>> uniform_ratio(const std::vector<std::int64_t>& s,
                                                                    const std::vector<std::int64_t>& d,
                                                                    std::size_t begin, std::size_t count)
{
  std::optional<std::pair<std::int64_t, std::int64_t>> r;
  for (std::size_t i = begin; i < begin + count; ++i) {
    if (d[i] == 0) {
      return std::nullopt;
    }
    const std::int64_t g = std::gcd(s[i], d[i]);
    const std::pair<std::int64_t, std::int64_t> here{s[i] / g, d[i] / g};
    if (r && *r != here) {
      return std::nullopt;
    }
    r = here;
  }
  return r;
}

std::string tp_sentence(std::int64_t p, std::int64_t q)
{
  // Entries p/q times larger on the prefill: the prefill shards over p/q times fewer ranks.
  return p > q ? fmt::format("the decode's attention TP is {}x the prefill's", ratio_text(p, q))
               : fmt::format("the prefill's attention TP is {}x the decode's", ratio_text(q, p));
}

Analysis layouts_differ(const json& v)
{
  Analysis a;
  const auto s = ints(v["src_item_lens"]);
  const auto d = ints(v["dst_item_lens"]);
  a.derived["src_entries"] = s.size();
  a.derived["dst_entries"] = d.size();
  a.derived["src_bytes"] = sum(s);
  a.derived["dst_bytes"] = sum(d);
  const std::string counts = fmt::format("The prefill registered {} state entries ({} bytes per request) and the "
                                         "decode {} ({} bytes).",
                                         s.size(), sum(s), d.size(), sum(d));
  if ((s.size() == 1) != (d.size() == 1)) {
    const bool prefill_unified = s.size() == 1;
    a.causes = {"unified_memory_one_side"};
    a.derived["unified_side"] = prefill_unified ? "prefill" : "decode";
    a.explanation = fmt::format(
      "{} One entry against {}: the {} registered a single whole-slot envelope, which is what "
      "--enable-unified-memory registers (no per-layer entries, no per-tensor dims); the {} registered per-layer "
      "entries. Unified memory is enabled on the {} only, and Mooncake cannot match or reslice the layouts.",
      counts, prefill_unified ? d.size() : s.size(), prefill_unified ? "prefill" : "decode",
      prefill_unified ? "decode" : "prefill", prefill_unified ? "prefill" : "decode");
    return a;
  }
  if (s.size() != d.size()) {
    const std::size_t lo = std::min(s.size(), d.size());
    const std::size_t hi = std::max(s.size(), d.size());
    if (lo > 0 && hi % lo == 0) {
      a.causes = {"pp_mismatch", "missing_dim_metadata"};
      a.derived["entry_ratio"] = hi / lo;
      a.explanation = fmt::format("{} The {} holds {}x the entries of the {}: the two sides hold different layer "
                                  "subsets, as when their pipeline sizes differ, and without per-tensor dims and "
                                  "layer ids on both sides the entries cannot be paired.",
                                  counts, s.size() > d.size() ? "prefill" : "decode", hi / lo,
                                  s.size() > d.size() ? "decode" : "prefill");
    } else {
      a.causes = {"model_mismatch"};
      a.explanation = fmt::format("{} The entry counts do not divide each other: the sides most likely serve "
                                  "different models (or different layer counts).",
                                  counts);
    }
    return a;
  }
  // Equal counts: compare entry by entry, per tensor group (runs of equal values:
  // SGLang lists every layer's conv entry, then every layer's temporal entry).
  const auto groups = runs(s);
  std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> ratios;
  for (const auto& [begin, count] : groups) {
    ratios.push_back(uniform_ratio(s, d, begin, count));
  }
  const bool all_known = std::all_of(ratios.begin(), ratios.end(), [](const auto& r) { return r.has_value(); });
  const std::string dims = " Mooncake would reslice across TP with per-tensor dims, but at least one side registered "
                           "none (an SGLang before state_dim_per_tensor, PR #22240, or unified memory), so it raises.";
  if (all_known && groups.size() == 2) {
    const auto conv = *ratios[0];
    const auto temporal = *ratios[1];
    a.derived["layers"] = groups[0].second;
    a.derived["conv_ratio"] = ratio_text(conv.first, conv.second);
    a.derived["temporal_ratio"] = ratio_text(temporal.first, temporal.second);
    const bool conv_equal = conv.first == conv.second;
    const bool temporal_equal = temporal.first == temporal.second;
    const std::string layer_text = fmt::format("{} layers on both sides", groups[0].second);
    if (!conv_equal && conv == temporal) {
      a.causes = {"attn_tp_mismatch", "missing_dim_metadata"};
      a.derived["attn_tp_ratio"] = ratio_text(std::max(conv.first, conv.second), std::min(conv.first, conv.second));
      a.explanation = fmt::format("{} Same entry count ({}), and every conv and temporal entry differs by the same "
                                  "factor {} (prefill/decode): one state sharded over a different number of ranks, "
                                  "{}.{}",
                                  counts, layer_text, ratio_text(conv.first, conv.second),
                                  tp_sentence(conv.first, conv.second), dims);
      return a;
    }
    if (conv_equal && !temporal_equal) {
      a.causes = {"ssm_dtype_mismatch", "missing_dim_metadata"};
      a.explanation = fmt::format("{} Same entry count ({}); the conv entries are equal but every temporal (SSM) "
                                  "entry differs by {} (prefill/decode): same shapes, different element size. The {} "
                                  "keeps the SSM state in the wider dtype (float32 against bfloat16 gives 2).{}",
                                  counts, layer_text, ratio_text(temporal.first, temporal.second),
                                  which_larger(temporal.first, temporal.second), dims);
      return a;
    }
    if (!conv_equal && temporal_equal) {
      a.causes = {"conv_dtype_mismatch", "missing_dim_metadata"};
      a.explanation = fmt::format("{} Same entry count ({}); the temporal entries are equal but every conv entry "
                                  "differs by {} (prefill/decode): the conv state dtype differs "
                                  "(SGLANG_MAMBA_CONV_DTYPE).{}",
                                  counts, layer_text, ratio_text(conv.first, conv.second), dims);
      return a;
    }
    if (!conv_equal && !temporal_equal) {
      a.causes = {"attn_tp_mismatch", "ssm_dtype_mismatch", "missing_dim_metadata"};
      a.explanation = fmt::format("{} Same entry count ({}); conv entries differ by {} and temporal entries by {} "
                                  "(prefill/decode): the common factor is a different attention TP size, the rest a "
                                  "different SSM dtype.{}",
                                  counts, layer_text, ratio_text(conv.first, conv.second),
                                  ratio_text(temporal.first, temporal.second), dims);
      return a;
    }
  }
  const auto whole = uniform_ratio(s, d, 0, s.size());
  if (whole && whole->first != whole->second) {
    a.causes = {"attn_tp_mismatch", "missing_dim_metadata"};
    a.derived["attn_tp_ratio"] = ratio_text(std::max(whole->first, whole->second), std::min(whole->first, whole->second));
    a.explanation = fmt::format("{} Every entry differs by the same factor {} (prefill/decode): {}.{}", counts,
                                ratio_text(whole->first, whole->second), tp_sentence(whole->first, whole->second), dims);
    return a;
  }
  a.causes = {"state_layout_mismatch", "missing_dim_metadata"};
  a.explanation = fmt::format("{} The entries differ without a common pattern: the sides built different state "
                              "layouts.{}",
                              counts, dims);
  return a;
}

Analysis slot_mismatch(const json& v)
{
  return slot_size(v["src"].get<std::int64_t>(), v["dst"].get<std::int64_t>(), "Mamba");
}

Analysis replicated_lengths(const json& v)
{
  return slot_size(v["src_item_len"].get<std::int64_t>(), v["dst_item_len"].get<std::int64_t>(), "replicated Mamba");
}

Analysis fixed(std::vector<std::string> causes, std::string explanation)
{
  Analysis a;
  a.causes = std::move(causes);
  a.explanation = std::move(explanation);
  return a;
}

Analysis single_index(const json&)
{
  return fixed({"batched_state_indices", "empty_state_indices"},
               "The prefill's Mamba send path asserts exactly one state index per request and component; it got "
               "several (a scheduler that batches requests' state indices into one send) or none (the empty list of "
               "a cancelled or finished request).");
}

Analysis nixl_index_count(const json&)
{
  return fixed({"batched_state_indices"},
               "NIXL's whole-copy path asserts that prefill and decode give the same number of state indices; the "
               "decode sent a different count, as when several requests' indices are batched into one send.");
}

Analysis mori_single_index(const json& v)
{
  const std::int64_t src = v["src"].get<std::int64_t>();
  const std::int64_t dst = v["dst"].get<std::int64_t>();
  Analysis a;
  if (src > 1 || dst > 1) {
    a.causes.push_back("batched_state_indices");
  }
  if (src == 0 || dst == 0) {
    a.causes.push_back("empty_state_indices");
  }
  if (a.causes.empty()) {
    a.causes.push_back("batched_state_indices");
  }
  a.explanation = fmt::format("Mori's _send_mamba_state requires exactly one state index on both sides; the prefill "
                              "gave {} and the decode {}: {}.",
                              src, dst,
                              src > 1 || dst > 1 ? "several requests' indices were batched into one send"
                                                 : "a request reached the send path without a state slot");
  return a;
}

Analysis component_count(const json& v)
{
  return fixed({"mixed_sglang_versions"},
               fmt::format("The prefill has {} state component(s) and the decode registered {}: the sides disagree on "
                           "which state types exist, as with different SGLang versions, models or flags.",
                           v["local"].get<std::int64_t>(), v["remote"].get<std::int64_t>()));
}

Analysis unified_one_side(const json&)
{
  return fixed({"unified_memory_one_side"}, "The decode registered a unified-memory layout but the prefill runs "
                                            "without --enable-unified-memory.");
}

Analysis unified_unequal(const json& v)
{
  std::string numbers;
  if (v.contains("prefill_attn_tp_size")) {
    numbers = fmt::format(" (prefill attention TP {}, decode {})", v["prefill_attn_tp_size"].get<std::int64_t>(),
                          v["decode_attn_tp_size"].get<std::int64_t>());
  }
  return fixed({"unified_memory_unequal_tp", "attn_tp_mismatch"},
               "With --enable-unified-memory the state is one whole envelope per slot, which cannot be resliced "
               "across different attention TP sizes" + numbers + ".");
}

Analysis envelope_kv(const json& v)
{
  return fixed({"unified_memory_one_side", "page_size_mismatch"},
               fmt::format("On the unified-memory whole-envelope path the prefill has {} KV region(s) and the decode "
                           "{}: unified memory on one side only, or different page sizes or models.",
                           v["src_regions"].get<std::int64_t>(), v["dst_regions"].get<std::int64_t>()));
}

Analysis page_size(const json& v)
{
  return fixed({"page_size_mismatch"}, fmt::format("The prefill runs --page-size {} and the decode {}.",
                                                   v["prefill_page_size"].get<std::int64_t>(),
                                                   v["decode_page_size"].get<std::int64_t>()));
}

Analysis kv_dtype(const json& v)
{
  return fixed({"kv_cache_dtype_mismatch"}, fmt::format("The prefill runs --kv-cache-dtype {} and the decode {}.",
                                                        v["prefill_kv_cache_dtype"].get<std::string>(),
                                                        v["decode_kv_cache_dtype"].get<std::string>()));
}

Analysis decode_cp(const json&)
{
  return fixed({"decode_context_parallel"}, "The decode runs with attention context parallelism, which the decode "
                                            "side of PD does not support.");
}

Analysis pp_size(const json& v)
{
  return fixed({"pp_mismatch"}, fmt::format("The decode runs --pp-size {} and the prefill {}; a decode may only use "
                                            "the prefill's pipeline size or 1.",
                                            v["decode_pp_size"].get<std::int64_t>(),
                                            v["prefill_pp_size"].get<std::int64_t>()));
}

Analysis tp_performance(const json&)
{
  return fixed({"attn_tp_mismatch"}, "Prefill and decode use different attention TP sizes on a non-MLA model: the "
                                     "KV cache and the Mamba state are sent head-sliced (a warning, not a failure).");
}

Analysis slice_info(const json& v)
{
  return fixed({"attn_tp_mismatch"},
               fmt::format("The prefill (attention TP {}) reslices Mamba state for a decode of attention TP {} "
                           "(information; correct only on versions with the sliced-conv fixes).",
                           v["prefill_attn_tp_size"].get<std::int64_t>(), v["decode_attn_tp_size"].get<std::int64_t>()));
}

Analysis divisibility(const json& v)
{
  return fixed({"tp_not_divisible"},
               fmt::format("SGLang's divide() asserts exact division while sizing the state pool: {} is not divisible "
                           "by {} (a state dimension by the attention TP size).",
                           v["numerator"].get<std::int64_t>(), v["denominator"].get<std::int64_t>()));
}

Analysis layer_ids_one_side(const json&)
{
  return fixed({"mixed_sglang_versions"}, "One side sent global layer ids with its state entries and the other did "
                                          "not (layer ids arrived with PR #32270): the sides run different SGLang "
                                          "versions.");
}

Analysis layer_metadata_length(const json& v)
{
  return fixed({"mixed_sglang_versions"},
               fmt::format("The layer-id lists do not match the entry lists (prefill {} ids for {} entries, decode {} "
                           "for {}): the sides encode state entries differently.",
                           v["src_metadata"].get<std::int64_t>(), v["src_entries"].get<std::int64_t>(),
                           v["dst_metadata"].get<std::int64_t>(), v["dst_entries"].get<std::int64_t>()));
}

Analysis missing_layer(const json& v)
{
  return fixed({"pp_mismatch", "model_mismatch"},
               fmt::format("The decode holds no state entry for model layer {}: its pipeline stage (or model) does not "
                           "hold the layers this prefill sends.",
                           v["layer_id"].get<std::int64_t>()));
}

Analysis pp_hetero(const json& v)
{
  return fixed({"pp_mismatch", "mixed_sglang_versions"},
               fmt::format("The prefill sends {} entries to a decode with {}, and without layer ids on both sides they "
                           "cannot be paired: pipeline sizes differ and one side is a version without layer ids.",
                           v["src_entries"].get<std::int64_t>(), v["dst_entries"].get<std::int64_t>()));
}

Analysis replication_metadata(const json&)
{
  return fixed({"mixed_sglang_versions"}, "One side marks a state tensor replicated (dim 0) and the other sharded: "
                                          "their layouts come from different SGLang versions.");
}

Analysis replicated_tp(const json&)
{
  return fixed({"attn_tp_mismatch"}, "The attention TP sizes do not divide each other, so replicated state cannot be "
                                     "assigned to writers.");
}

Analysis zero_division(const json&)
{
  return fixed({"missing_dim_metadata", "mixed_sglang_versions"},
               "Integer division by zero on the state send path: a per-tensor dim of 0 reached the slice arithmetic, "
               "as when one side's registration carries no (or different) dim metadata.");
}

Analysis index_error(const json&)
{
  return fixed({"empty_state_indices"},
               "IndexError on the state send path: Mooncake indexes dst_state_indices[0] without a check, so a request "
               "whose Mamba index list is empty (cancelled or finished) kills the transfer thread. (A decode with "
               "fewer state entries than the prefill, in generations without layer ids, raises the same text.)");
}

Analysis nixl_tp(const json&)
{
  return fixed({"attn_tp_mismatch", "backend_version_too_old"},
               "This NIXL version cannot slice Mamba state across different TP sizes (added by PR #22240).");
}

Analysis mooncake_tp(const json&)
{
  return fixed({"attn_tp_mismatch", "backend_version_too_old"},
               "This Mooncake version (before per-tensor state dims, PR #16056) cannot slice Mamba state across "
               "different attention TP sizes of a non-MLA model; the prefill's transfer thread dies on the first "
               "request.");
}

Analysis nixl_tp_other(const json& v)
{
  return fixed({"attn_tp_mismatch"},
               fmt::format("Different attention TP sizes are not supported for non-MLA {} state.",
                           v["state_type"].get<std::string>()));
}

Analysis mori_swa_tp(const json& v)
{
  return fixed({"attn_tp_mismatch"},
               fmt::format("Mori cannot move sliding-window state between prefill attention TP {} and decode TP {} on "
                           "a non-MLA model.",
                           v["prefill_attn_tp_size"].get<long long>(), v["decode_attn_tp_size"].get<long long>()));
}

Analysis minimax_pp(const json&)
{
  return fixed({"pipeline_parallel_unsupported"},
               "MiniMax sparse-index state lives in compacted per-layer lists that PP>1 would mis-slice; the prefill "
               "runs with --pp-size above 1.");
}

Analysis minimax_tp(const json&)
{
  return fixed({"attn_tp_mismatch"}, "MiniMax sparse-index state cannot be resliced across different attention TP "
                                     "sizes.");
}

Analysis unknown_state_type(const json& v)
{
  return fixed({"state_type_unsupported"},
               fmt::format("The transfer backend has no path for the {} state component this model registers.",
                           v["state_type"].get<std::string>()));
}

Analysis dcp_backend(const json& v)
{
  return fixed({"dcp_backend_unsupported"},
               fmt::format("{} has no DCP-aware transfer path but the server runs --dcp-size {}: it refuses to start "
                           "rather than corrupt the transferred KV cache.",
                           v["manager"].get<std::string>(), v["dcp_size"].get<long long>()));
}

Analysis mori_pack(const json&)
{
  return fixed({"mori_registration_bug", "mixed_sglang_versions"},
               "SGLang v0.5.12 and v0.5.12.post1 pack per-component state lists as flat integers on Mori (issue "
               "#26525): the decode cannot register with the prefill.");
}

Analysis unified_startup(const json&)
{
  return fixed({"unified_memory_requirements"}, "--enable-unified-memory with PD has startup requirements this "
                                                "server does not meet.");
}

Analysis unified_layouts(const json&)
{
  return fixed({"mixed_sglang_versions"}, "Both sides use unified memory but their state layouts differ: different "
                                          "versions, models or dtypes.");
}

Analysis state_send_failed(const json&)
{
  return fixed({"transfer_failed"}, "A state component's transfer returned an error (an RDMA failure, or a logged "
                                    "state-layout error just before this line).");
}

struct Known
{
  std::string_view rule; ///< "" for texts no pdcheck rule models
  Severity severity;
  std::string_view pattern;
  bool needs_context; ///< a generic Python text: PD only inside a wrapper or a disaggregation traceback
  Analyzer analyze;
};

// Every runtime_error pdcheck check produces (checker.cpp, plan.cpp,
// sglang_utils.cpp, layout.cpp) and the other PD texts of
// sglang-pd-wire-and-checks.md §4 that have a clear cause.
const std::vector<Known> k_known = {
  {"mooncake-layout-no-dims", Severity::error,
   "Mamba state layouts differ between prefill and decode (src item_lens={src_item_lens:list}, dst "
   "item_lens={dst_item_lens:list}) and no per-tensor dim metadata is available to reslice.",
   false, layouts_differ},
  {"mooncake-slot-size", Severity::error,
   "Prefill/Decode Mamba slot size mismatch (src={src:int}, dst={dst:int}).", false, slot_mismatch},
  {"state-index-count", Severity::error, "Mamba should have single state index", false, single_index},
  {"state-index-count", Severity::error, "State indices count mismatch between Prefill and Decode", false,
   nixl_index_count},
  {"mori-single-state-index", Severity::error,
   "PD state transfer failed: mamba requires single state index, got src={src:int}, dst={dst:int}", false,
   mori_single_index},
  {"mori-component-count", Severity::error,
   "PD state transfer failed: state component count mismatch (local={local:int}, remote={remote:int})", false,
   component_count},
  {"unified-one-side", Severity::error, "Both PD peers must enable unified memory", false, unified_one_side},
  {"unified-one-side", Severity::error,
   "PD KV layout mismatch on the whole-envelope path: prefill has {src_regions:int} KV region(s) with "
   "item_lens={src_item_lens:list}, decode has {dst_regions:int} with item_len={dst_item_len:word}.",
   false, envelope_kv},
  {"unified-unequal-tp", Severity::error,
   "Unified unequal-TP PD requires hybrid MLA, PP1/DCP1, and transfer layouts from both peers", false,
   unified_unequal},
  {"unified-unequal-tp", Severity::error,
   "--enable-unified-memory does not support different prefill / decode attention TP sizes "
   "(prefill={prefill_attn_tp_size:int}, decode={decode_attn_tp_size:int})",
   false, unified_unequal},
  {"bootstrap-page-size", Severity::error,
   "Page size mismatch: prefill server has page_size={prefill_page_size:int}, but decode server has "
   "page_size={decode_page_size:int}.",
   false, page_size},
  {"bootstrap-kv-cache-dtype", Severity::error,
   "KV cache dtype mismatch: prefill server has kv_cache_dtype={prefill_kv_cache_dtype:word}, but decode server has "
   "kv_cache_dtype={decode_kv_cache_dtype:word}.",
   false, kv_dtype},
  {"bootstrap-cp-size", Severity::error, "Decode cp size ({decode_cp_size:int}) should be equal to 1", false,
   decode_cp},
  {"bootstrap-cp-size", Severity::error,
   "When prefill cp size is 1, attn cp size should be 1, but got {decode_attn_cp_size:int}", false, decode_cp},
  {"bootstrap-pp-size", Severity::error,
   "Decode pp size ({decode_pp_size:int}) should be equal to prefill pp size ({prefill_pp_size:int}) or 1", false,
   pp_size},
  {"bootstrap-tp-performance", Severity::info,
   "Performance is NOT guaranteed when using different TP sizes for non-MLA models.", false, tp_performance},
  {"", Severity::info,
   "Using Mamba state slice transfer for different TP sizes between prefill and decode. Prefill "
   "attn_tp_size={prefill_attn_tp_size:int}, Decode attn_tp_size={decode_attn_tp_size:int}.",
   false, slice_info},
  {"startup-divisibility", Severity::error, "{numerator:int} is not divisible by {denominator:int}", true,
   divisibility},
  {"layer-pairing", Severity::error, "Layer metadata must be provided by both PD peers or neither", false,
   layer_ids_one_side},
  {"layer-pairing", Severity::error,
   "Layer metadata length must match transfer entries: src metadata={src_metadata:int} entries={src_entries:int}, "
   "dst metadata={dst_metadata:int} entries={dst_entries:int}",
   false, layer_metadata_length},
  {"layer-pairing", Severity::error, "Decode peer is missing a transfer entry for model layer {layer_id:int}", false,
   missing_layer},
  {"layer-pairing", Severity::error,
   "PP-heterogeneous transfer requires layer ids on both peers; got src={src_entries:int} dst={dst_entries:int} "
   "entries",
   false, pp_hetero},
  {"state-slice", Severity::error, "Mamba state replication metadata differs between prefill and decode", false,
   replication_metadata},
  {"state-slice", Severity::error,
   "Replicated Mamba state item lengths differ between prefill and decode: {src_item_len:int} != "
   "{dst_item_len:int}",
   false, replicated_lengths},
  {"state-slice", Severity::error, "Attention TP sizes must be positive for replicated-state transfer", false,
   replicated_tp},
  {"state-slice", Severity::error,
   "One attention TP size must divide the other for replicated-state transfer: src={src_attn_tp_size:int}, "
   "dst={dst_attn_tp_size:int}",
   false, replicated_tp},
  {"state-slice", Severity::error,
   "Source attention TP rank is out of range for replicated-state transfer: rank={rank:int}, size={size:int}", false,
   replicated_tp},
  {"state-slice", Severity::error, "integer division or modulo by zero", true, zero_division},
  {"state-index-empty", Severity::error, "list index out of range", true, index_error},
  {"nixl-unequal-tp", Severity::error,
   "PD Disaggregation does NOT support PD different TP sizes for hybrid mamba models yet.", false, nixl_tp},
  {"mooncake-unequal-tp-hybrid", Severity::error,
   "PD Disaggregation does NOT support PD different TP sizes for non-MLA hybrid models yet.", false, mooncake_tp},
  {"extra-state-unequal-tp", Severity::error,
   "PD Disaggregation does NOT support PD different TP sizes for non-MLA {state_type:word} hybrid models yet.", false,
   nixl_tp_other},
  {"extra-state-unequal-tp", Severity::error,
   "PD state transfer does not support TP-mismatched non-MLA SWA models (prefill_tp_size={prefill_attn_tp_size:int}, "
   "decode_tp_size={decode_attn_tp_size:int})",
   false, mori_swa_tp},
  {"extra-state-minimax", Severity::error, "PD disagg: PP>1 not supported for MiniMax {what:text} yet.", false,
   minimax_pp},
  {"extra-state-minimax", Severity::error, "PD disagg: heterogeneous TP not supported for MiniMax {what:text} yet.",
   false, minimax_tp},
  {"extra-state-unsupported", Severity::error, "PD state transfer failed: unknown state_type={state_type:word}", false,
   unknown_state_type},
  {"extra-state-unsupported", Severity::error,
   "PD Disaggregation via NIXL does NOT support {state_type:word} hybrid models yet.", false, unknown_state_type},
  {"startup-dcp-transfer", Severity::error,
   "{manager:word} does not yet implement DCP-aware KV transfer, but engine is configured with "
   "dcp_size={dcp_size:int}.",
   false, dcp_backend},
  {"mori-registration-pack", Severity::error, "struct.error: required argument is not an integer", false, mori_pack},
  {"startup-unified-memory", Severity::error,
   "--enable-unified-memory with PD disaggregation supports only the mooncake transfer backend; got "
   "{backend:text}.",
   false, unified_startup},
  {"startup-unified-memory", Severity::error,
   "--enable-unified-memory with PD disaggregation does not support pipeline parallelism", false, unified_startup},
  {"startup-unified-memory", Severity::error, "--enable-unified-memory with PD disaggregation requires lazy compaction",
   false, unified_startup},
  {"startup-unified-memory", Severity::error,
   "--enable-unified-memory with PD disaggregation is not compatible with --enable-hisparse", false, unified_startup},
  {"", Severity::error, "Unified state layouts differ between PD peers", false, unified_layouts},
  {"", Severity::error, "Failed to send state components of {room:word} to {peer:word}", false, state_send_failed},
};

struct Wrapper
{
  std::string_view pattern;
  std::string_view inner; ///< name of the value holding the wrapped text, "" for none
};

// SGLang's wrappers around a transfer failure (§4): their values are kept, and
// the wrapped text is what gets matched or listed as unrecognised.
const std::vector<Wrapper> k_wrappers = {
  {"Transfer thread failed because of {error:text}. Prefill instance with bootstrap_port={bootstrap_port:int} is "
   "dead.",
   "error"},
  {"KVTransferError(bootstrap_room={bootstrap_room:int}): {reason:text}", "reason"},
  {"Transfer submission failed: {error:text}", "error"},
};

struct Compiled
{
  std::vector<std::vector<Piece>> known;
  std::vector<std::vector<Piece>> wrappers;
};

const Compiled& compiled()
{
  static const Compiled c = [] {
    Compiled out;
    for (const Known& k : k_known) {
      out.known.push_back(compile(k.pattern));
    }
    for (const Wrapper& w : k_wrappers) {
      out.wrappers.push_back(compile(w.pattern));
    }
    return out;
  }();
  return c;
}

// --- the fast pre-filter -----------------------------------------------------------
//
// Almost every line of a server log is an ordinary INFO line. A line is looked at
// closely only if it contains one of these words; they are found with a 4-byte
// rolling filter over the whole chunk, so the common case costs one table probe
// per byte.

constexpr std::array<std::string_view, 30> k_triggers = {
  "Error",          "ERROR",         "error",           "Exception",     "failed",        "Failed",
  "FAILED",         "Mamba",         "mamba",           "mismatch",      "Traceback",     "disaggregation",
  "Disaggregation", "not divisible", "should be equal", "should have",   "Performance is", "out of range",
  "unified",        "Unified",       "must",            "requires",      "does not",      "does NOT",
  "differ",         "struct.error",  "KVTransfer",      "Layer metadata", "Decode peer",   "modulo by zero",
};

std::uint32_t load4(const char* p)
{
  std::uint32_t v = 0;
  std::memcpy(&v, p, 4);
  return v;
}

constexpr std::uint32_t hash4(std::uint32_t v)
{
  return (v * 2654435761u) >> 16;
}

struct Prefilter
{
  std::bitset<65536> heads;
  Prefilter()
  {
    for (std::string_view t : k_triggers) {
      heads.set(hash4(load4(t.data())));
    }
  }
  bool trigger_at(const char* p, std::size_t left) const
  {
    for (std::string_view t : k_triggers) {
      if (t.size() <= left && std::memcmp(p, t.data(), t.size()) == 0) {
        return true;
      }
    }
    return false;
  }
};

const Prefilter& prefilter()
{
  static const Prefilter f;
  return f;
}

// --- helpers for one line --------------------------------------------------------

bool contains_ci(std::string_view text, std::string_view lower_needle)
{
  auto it = std::search(text.begin(), text.end(), lower_needle.begin(), lower_needle.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != text.end();
}

bool pd_looking(std::string_view line)
{
  // An exception line ("RuntimeError: ...", "KVTransferError(...)") or a failure
  // message; not a header such as "Exception in transfer worker", which only
  // introduces the traceback whose last line carries the error.
  static constexpr std::string_view k_errors[] = {"Error:", "Error(", "Exception:", "Exception(",
                                                  "failed", "Failed",  "FAILED"};
  static constexpr std::string_view k_pd[] = {"disagg", "kvtransfer", "bootstrap", "mooncake", "nixl",
                                              "mori",   "prefill",    "decode",    "mamba",    "state_ind",
                                              "kv_args", "transfer",  "conn.py"};
  if (line.find("Traceback (most recent call last)") != std::string_view::npos) {
    return false;
  }
  const bool error = std::any_of(std::begin(k_errors), std::end(k_errors),
                                 [&](std::string_view e) { return line.find(e) != std::string_view::npos; });
  return error && std::any_of(std::begin(k_pd), std::end(k_pd), [&](std::string_view k) { return contains_ci(line, k); });
}

std::string_view trim(std::string_view s)
{
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string confirm_command(std::string_view rule)
{
  return fmt::format("pdcheck check PREFILL.yaml DECODE.yaml   # or --prefill-args/--decode-args with the two "
                     "launch lines; reports {} while the cause is present",
                     rule.empty() ? std::string("the finding") : std::string(rule));
}

} // namespace

const std::vector<std::string_view>& log_cause_names()
{
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const Cause& c : k_causes) {
      n.push_back(c.name);
    }
    return n;
  }();
  return names;
}

bool LogExplanation::failures_found() const
{
  return !unrecognised.empty() || std::any_of(matches.begin(), matches.end(), [](const LogMatch& m) {
           return m.severity != "info";
         });
}

LogScanner::LogScanner(std::string file) : m_file(std::move(file)) {}

void LogScanner::feed(std::string_view chunk)
{
  const Prefilter& f = prefilter();
  const char* data = chunk.data();
  const std::size_t n = chunk.size();
  std::size_t counted = 0;          // newlines counted up to here
  std::int64_t line_no = m_lines_before;
  std::size_t i = 0;
  while (i + 4 <= n) {
    if (!f.heads[hash4(load4(data + i))] || !f.trigger_at(data + i, n - i)) {
      ++i;
      continue;
    }
    const char* nl_before = i == 0 ? nullptr : static_cast<const char*>(memrchr(data, '\n', i));
    const std::size_t begin = nl_before == nullptr ? 0 : static_cast<std::size_t>(nl_before - data) + 1;
    const char* nl_after = static_cast<const char*>(std::memchr(data + i, '\n', n - i));
    const std::size_t end = nl_after == nullptr ? n : static_cast<std::size_t>(nl_after - data);
    line_no += std::count(data + counted, data + begin, '\n');
    counted = begin;
    scan_line(chunk.substr(begin, end - begin), line_no + 1);
    i = end + 1;
  }
  m_lines_before = line_no + std::count(data + counted, data + n, '\n');
}

void LogScanner::scan_line(std::string_view line, std::int64_t line_number)
{
  const std::string_view t = trim(line);
  if (!t.empty() && t.front() == '{') {
    // JSON lines: the message (and any traceback field) is matched decoded.
    const auto j = nlohmann::json::parse(t, nullptr, false);
    if (j.is_object()) {
      std::string text;
      for (const char* key : {"message", "msg", "log", "text", "textPayload", "MESSAGE", "exc_info", "exception",
                              "traceback", "stack_trace"}) {
        auto it = j.find(key);
        if (it != j.end() && it->is_string()) {
          text += it->get<std::string>();
          text += '\n';
        }
      }
      std::string_view rest = text;
      while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        scan_text(rest.substr(0, nl), line_number);
        if (nl == std::string_view::npos) {
          break;
        }
        rest.remove_prefix(nl + 1);
      }
      return;
    }
  }
  scan_text(line, line_number);
}

void LogScanner::scan_text(std::string_view line, std::int64_t line_number)
{
  const Compiled& c = compiled();
  // A traceback frame in SGLang's disaggregation code makes the next generic
  // Python error ("list index out of range") a PD failure.
  const std::size_t frame = line.find("File \"");
  if (frame != std::string_view::npos && line.find("disaggregation") != std::string_view::npos) {
    m_last_frame_line = line_number;
    m_last_frame = std::string(trim(line.substr(frame)));
    return;
  }

  json wrapper_values = json::object();
  std::string_view inner = line;
  std::string inner_storage;
  bool wrapped = false;
  // Peel wrappers from the outside in: the outermost is the one that starts first.
  while (true) {
    std::optional<Captured> outer;
    std::size_t outer_index = 0;
    for (std::size_t w = 0; w < k_wrappers.size(); ++w) {
      auto m = search(c.wrappers[w], inner);
      if (m && (!outer || m->begin < outer->begin)) {
        outer = std::move(m);
        outer_index = w;
      }
    }
    if (!outer) {
      break;
    }
    wrapped = true;
    const std::string inner_name(k_wrappers[outer_index].inner);
    for (auto& [k, v] : outer->values.items()) {
      if (k != inner_name) {
        wrapper_values[k] = v;
      }
    }
    inner_storage = outer->values[inner_name].get<std::string>();
    inner = inner_storage;
  }
  const bool in_context = wrapped || line.find("AssertionError") != std::string_view::npos ||
                          line_number - m_last_frame_line <= 40;

  for (std::size_t k = 0; k < k_known.size(); ++k) {
    const Known& known = k_known[k];
    if (known.needs_context && !in_context) {
      continue;
    }
    auto m = search(c.known[k], inner);
    if (!m) {
      continue;
    }
    const std::string text(inner.substr(m->begin, m->end - m->begin));
    const std::string key = std::string(known.rule) + "\n" + text;
    auto it = m_match_index.find(key);
    if (it != m_match_index.end()) {
      LogMatch& lm = m_matches[it->second];
      lm.count += 1;
      if (lm.lines.size() < k_max_lines) {
        lm.lines.push_back(line_number);
      }
      for (auto& [name, v] : wrapper_values.items()) {
        if (!lm.values.contains(name)) {
          lm.values[name] = v;
        }
      }
      return;
    }
    LogMatch lm;
    lm.file = m_file;
    lm.line = line_number;
    lm.lines = {line_number};
    lm.count = 1;
    lm.rule = std::string(known.rule);
    lm.severity = std::string(severity_name(known.severity));
    lm.runtime_error = text;
    lm.values = m->values;
    for (auto& [name, v] : wrapper_values.items()) {
      lm.values[name] = v;
    }
    Analysis a = known.analyze(m->values);
    lm.analysis = std::move(a.derived);
    if (known.needs_context && !m_last_frame.empty() && line_number - m_last_frame_line <= 40) {
      lm.analysis["traceback_frame"] = m_last_frame;
    }
    lm.causes = std::move(a.causes);
    lm.explanation = std::move(a.explanation);
    std::vector<std::string> fixes;
    for (const std::string& cause : lm.causes) {
      fixes.emplace_back(cause_fix(cause));
    }
    lm.fix = fmt::format("{}", fmt::join(fixes, " "));
    lm.confirm = confirm_command(known.rule);
    m_match_index[key] = m_matches.size();
    m_matches.push_back(std::move(lm));
    return;
  }

  if (wrapped || pd_looking(line)) {
    std::string text(trim(wrapped ? line.substr(0) : line));
    const std::string key = text;
    auto it = m_unrecognised_index.find(key);
    if (it != m_unrecognised_index.end()) {
      m_unrecognised[it->second].count += 1;
      return;
    }
    m_unrecognised_index[key] = m_unrecognised.size();
    m_unrecognised.push_back(LogUnrecognised{m_file, line_number, 1, std::move(text)});
  }
}

void LogScanner::finish(LogExplanation& out)
{
  for (LogMatch& m : m_matches) {
    out.matches.push_back(std::move(m));
  }
  for (LogUnrecognised& u : m_unrecognised) {
    out.unrecognised.push_back(std::move(u));
  }
  m_matches.clear();
  m_unrecognised.clear();
  m_match_index.clear();
  m_unrecognised_index.clear();
}

LogExplanation explain_log_text(std::string_view text, const std::string& file)
{
  LogScanner scanner(file);
  scanner.feed(text);
  LogExplanation out;
  scanner.finish(out);
  return out;
}

nlohmann::ordered_json log_explanation_to_json(const LogExplanation& e)
{
  json matches = json::array();
  for (const LogMatch& m : e.matches) {
    json j;
    j["file"] = m.file;
    j["line"] = m.line;
    j["count"] = m.count;
    j["lines"] = m.lines;
    j["rule"] = m.rule.empty() ? json(nullptr) : json(m.rule);
    j["severity"] = m.severity;
    j["runtime_error"] = m.runtime_error;
    j["values"] = m.values;
    j["analysis"] = m.analysis;
    j["causes"] = m.causes;
    j["explanation"] = m.explanation;
    j["fix"] = m.fix;
    j["confirm"] = m.confirm;
    matches.push_back(std::move(j));
  }
  json unrecognised = json::array();
  for (const LogUnrecognised& u : e.unrecognised) {
    unrecognised.push_back({{"file", u.file}, {"line", u.line}, {"count", u.count}, {"text", u.text}});
  }
  return json{{"matches", std::move(matches)}, {"unrecognised", std::move(unrecognised)}};
}

std::string log_explanation_to_text(const LogExplanation& e)
{
  std::string out;
  for (const LogMatch& m : e.matches) {
    out += fmt::format("{}:{}: {} [{}]{}\n", m.file, m.line, m.severity, m.rule.empty() ? "no rule" : m.rule,
                       m.count > 1 ? fmt::format(" ({} times)", m.count) : "");
    out += fmt::format("  SGLang: {}\n", m.runtime_error);
    out += fmt::format("  cause: {}\n", fmt::join(m.causes, ", "));
    out += fmt::format("  {}\n", m.explanation);
    out += fmt::format("  fix: {}\n", m.fix);
    out += fmt::format("  confirm: {}\n\n", m.confirm);
  }
  if (!e.unrecognised.empty()) {
    out += "unrecognised PD-looking errors:\n";
    for (const LogUnrecognised& u : e.unrecognised) {
      out += fmt::format("  {}:{}: {}{}\n", u.file, u.line, u.text,
                         u.count > 1 ? fmt::format(" ({} times)", u.count) : "");
    }
    out += "\n";
  }
  std::size_t failures = 0;
  for (const LogMatch& m : e.matches) {
    failures += m.severity != "info" ? 1 : 0;
  }
  out += fmt::format("{} known PD failure(s), {} note(s), {} unrecognised\n", failures, e.matches.size() - failures,
                     e.unrecognised.size());
  return out;
}

} // namespace pdcheck::check
