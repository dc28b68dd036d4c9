#include "check/log_analysis.hpp"

#include "check/log_causes.hpp"
#include "check/log_liveness.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace pdcheck::check {

namespace {

using json = nlohmann::ordered_json;

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

Analysis single_index(const json&)
{
  return explained("The prefill's Mamba send path asserts exactly one state index per request and component; it got "
               "several (a scheduler that batches requests' state indices into one send) or none (the empty list of "
               "a cancelled or finished request).");
}

Analysis nixl_index_count(const json&)
{
  return explained("NIXL's whole-copy path asserts that prefill and decode give the same number of state indices; the "
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
  return explained(fmt::format("The prefill has {} and the decode registered {}: the sides disagree on "
                           "which state types exist, as with different SGLang versions, models or flags.",
                           counted(v["local"].get<std::int64_t>(), "state component"), v["remote"].get<std::int64_t>()));
}

Analysis unified_one_side(const json&)
{
  return explained("The decode registered a unified-memory layout but the prefill runs "
                                            "without --enable-unified-memory.");
}

Analysis unified_unequal(const json& v)
{
  std::string numbers;
  if (v.contains("prefill_attn_tp_size")) {
    numbers = fmt::format(" (prefill attention TP {}, decode {})", v["prefill_attn_tp_size"].get<std::int64_t>(),
                          v["decode_attn_tp_size"].get<std::int64_t>());
  }
  return explained("With --enable-unified-memory the state is one whole envelope per slot, which cannot be resliced "
               "across different attention TP sizes" + numbers + ".");
}

Analysis envelope_kv(const json& v)
{
  return explained(fmt::format("On the unified-memory whole-envelope path the prefill has {} and the decode "
                           "{}: unified memory on one side only, or different page sizes or models.",
                           counted(v["src_regions"].get<std::int64_t>(), "KV region"), v["dst_regions"].get<std::int64_t>()));
}

Analysis page_size(const json& v)
{
  return explained(fmt::format("The prefill runs --page-size {} and the decode {}.",
                                                   v["prefill_page_size"].get<std::int64_t>(),
                                                   v["decode_page_size"].get<std::int64_t>()));
}

Analysis kv_dtype(const json& v)
{
  return explained(fmt::format("The prefill runs --kv-cache-dtype {} and the decode {}.",
                                                        v["prefill_kv_cache_dtype"].get<std::string>(),
                                                        v["decode_kv_cache_dtype"].get<std::string>()));
}

Analysis decode_cp(const json&)
{
  return explained("The decode runs with attention context parallelism, which the decode "
                                            "side of PD does not support.");
}

Analysis pp_size(const json& v)
{
  return explained(fmt::format("The decode runs --pp-size {} and the prefill {}; a decode may only use "
                                            "the prefill's pipeline size or 1.",
                                            v["decode_pp_size"].get<std::int64_t>(),
                                            v["prefill_pp_size"].get<std::int64_t>()));
}

Analysis tp_performance(const json&)
{
  return explained("Prefill and decode use different attention TP sizes on a non-MLA model: the "
                                     "KV cache and the Mamba state are sent head-sliced (a warning, not a failure).");
}

Analysis slice_info(const json& v)
{
  return explained(fmt::format("The prefill (attention TP {}) reslices Mamba state for a decode of attention TP {} "
                           "(information; correct only on versions with the sliced-conv fixes).",
                           v["prefill_attn_tp_size"].get<std::int64_t>(), v["decode_attn_tp_size"].get<std::int64_t>()));
}

Analysis divisibility(const json& v)
{
  return explained(fmt::format("SGLang's divide() asserts exact division while sizing the state pool: {} is not divisible "
                           "by {} (a state dimension by the attention TP size).",
                           v["numerator"].get<std::int64_t>(), v["denominator"].get<std::int64_t>()));
}

Analysis layer_ids_one_side(const json&)
{
  return explained("One side sent global layer ids with its state entries and the other did "
                                          "not (layer ids arrived with PR #32270): the sides run different SGLang "
                                          "versions.");
}

Analysis layer_metadata_length(const json& v)
{
  return explained(fmt::format("The layer-id lists do not match the entry lists (prefill {} ids for {} entries, decode {} "
                           "for {}): the sides encode state entries differently.",
                           v["src_metadata"].get<std::int64_t>(), v["src_entries"].get<std::int64_t>(),
                           v["dst_metadata"].get<std::int64_t>(), v["dst_entries"].get<std::int64_t>()));
}

Analysis missing_layer(const json& v)
{
  return explained(fmt::format("The decode holds no state entry for model layer {}: its pipeline stage (or model) does not "
                           "hold the layers this prefill sends.",
                           v["layer_id"].get<std::int64_t>()));
}

Analysis pp_hetero(const json& v)
{
  return explained(fmt::format("The prefill sends {} entries to a decode with {}, and without layer ids on both sides they "
                           "cannot be paired: pipeline sizes differ and one side is a version without layer ids.",
                           v["src_entries"].get<std::int64_t>(), v["dst_entries"].get<std::int64_t>()));
}

Analysis replication_metadata(const json&)
{
  return explained("One side marks a state tensor replicated (dim 0) and the other sharded: "
                                          "their layouts come from different SGLang versions.");
}

Analysis replicated_tp(const json&)
{
  return explained("The attention TP sizes do not divide each other, so replicated state cannot be "
                                     "assigned to writers.");
}

Analysis zero_division(const json&)
{
  return explained("Integer division by zero on the state send path: a per-tensor dim of 0 reached the slice arithmetic, "
               "as when one side's registration carries no (or different) dim metadata.");
}

Analysis index_error(const json&)
{
  return explained("IndexError on the state send path: Mooncake indexes dst_state_indices[0] without a check, so a request "
               "whose Mamba index list is empty (cancelled or finished) kills the transfer thread. (A decode with "
               "fewer state entries than the prefill, in generations without layer ids, raises the same text.)");
}

Analysis nixl_tp(const json&)
{
  return explained("This NIXL version cannot slice Mamba state across different TP sizes (added by PR #22240).");
}

Analysis mooncake_tp(const json&)
{
  return explained("This Mooncake version (before per-tensor state dims, PR #16056) cannot slice Mamba state across "
               "different attention TP sizes of a non-MLA model; the prefill's transfer thread dies on the first "
               "request.");
}

Analysis nixl_tp_other(const json& v)
{
  return explained(fmt::format("Different attention TP sizes are not supported for non-MLA {} state.",
                           v["state_type"].get<std::string>()));
}

Analysis mori_swa_tp(const json& v)
{
  return explained(fmt::format("Mori cannot move sliding-window state between prefill attention TP {} and decode TP {} on "
                           "a non-MLA model.",
                           v["prefill_attn_tp_size"].get<long long>(), v["decode_attn_tp_size"].get<long long>()));
}

Analysis minimax_pp(const json&)
{
  return explained("MiniMax sparse-index state lives in compacted per-layer lists that PP>1 would mis-slice; the prefill "
               "runs with --pp-size above 1.");
}

Analysis minimax_tp(const json&)
{
  return explained("MiniMax sparse-index state cannot be resliced across different attention TP "
                                     "sizes.");
}

Analysis unknown_state_type(const json& v)
{
  return explained(fmt::format("The transfer backend has no path for the {} state component this model registers.",
                           v["state_type"].get<std::string>()));
}

Analysis dcp_backend(const json& v)
{
  return explained(fmt::format("{} has no DCP-aware transfer path but the server runs --dcp-size {}: it refuses to start "
                           "rather than corrupt the transferred KV cache.",
                           v["manager"].get<std::string>(), v["dcp_size"].get<long long>()));
}

Analysis mori_pack(const json&)
{
  return explained("SGLang v0.5.12 and v0.5.12.post1 pack per-component state lists as flat integers on Mori (issue "
               "#26525): the decode cannot register with the prefill.");
}

Analysis unified_startup(const json&)
{
  return explained("--enable-unified-memory with PD has startup requirements this "
                                                "server does not meet.");
}

Analysis unified_layouts(const json&)
{
  return explained("Both sides use unified memory but their state layouts differ: different "
                                          "versions, models or dtypes.");
}

Analysis state_send_failed(const json&)
{
  return explained("A state component's transfer returned an error (an RDMA failure, or a logged "
                                    "state-layout error just before this line).");
}

struct RowAnalyzer
{
  MessageId id;
  Analyzer analyze;
};

// What pdcheck reads from each text's values. Rows without an entry get their
// causes from the catalog and the rule's explanation.
const std::vector<RowAnalyzer> k_analyzers = {
  {MessageId::mooncake_layout_no_dims, layouts_differ},
  {MessageId::mooncake_slot_size, slot_mismatch},
  {MessageId::single_state_index, single_index},
  {MessageId::state_index_count_mismatch, nixl_index_count},
  {MessageId::mori_single_state_index, mori_single_index},
  {MessageId::mori_component_count, component_count},
  {MessageId::unified_peers_must_enable, unified_one_side},
  {MessageId::envelope_kv_layout, envelope_kv},
  {MessageId::unified_unequal_tp_requirements, unified_unequal},
  {MessageId::unified_unequal_tp, unified_unequal},
  {MessageId::page_size_mismatch, page_size},
  {MessageId::kv_cache_dtype_mismatch, kv_dtype},
  {MessageId::decode_cp_size, decode_cp},
  {MessageId::decode_attn_cp_size, decode_cp},
  {MessageId::decode_pp_size, pp_size},
  {MessageId::tp_performance, tp_performance},
  {MessageId::mamba_slice_transfer, slice_info},
  {MessageId::not_divisible, divisibility},
  {MessageId::layer_ids_one_side, layer_ids_one_side},
  {MessageId::layer_metadata_length, layer_metadata_length},
  {MessageId::missing_layer, missing_layer},
  {MessageId::pp_heterogeneous, pp_hetero},
  {MessageId::replication_metadata, replication_metadata},
  {MessageId::replicated_item_lens, replicated_lengths},
  {MessageId::replicated_tp_positive, replicated_tp},
  {MessageId::replicated_tp_divide, replicated_tp},
  {MessageId::replicated_rank_range, replicated_tp},
  {MessageId::zero_division, zero_division},
  {MessageId::list_index, index_error},
  {MessageId::nixl_unequal_tp, nixl_tp},
  {MessageId::mooncake_unequal_tp_hybrid, mooncake_tp},
  {MessageId::extra_state_unequal_tp, nixl_tp_other},
  {MessageId::mori_swa_unequal_tp, mori_swa_tp},
  {MessageId::minimax_pp, minimax_pp},
  {MessageId::minimax_tp, minimax_tp},
  {MessageId::unknown_state_type, unknown_state_type},
  {MessageId::nixl_state_type_unsupported, unknown_state_type},
  {MessageId::dcp_not_implemented, dcp_backend},
  {MessageId::mori_flat_pack, mori_pack},
  {MessageId::unified_backend, unified_startup},
  {MessageId::unified_pipeline, unified_startup},
  {MessageId::unified_lazy_compaction, unified_startup},
  {MessageId::unified_hisparse, unified_startup},
  {MessageId::unified_layouts_differ, unified_layouts},
  {MessageId::state_send_failed, state_send_failed},
};

} // namespace

Analysis analyse_message(MessageId id, const nlohmann::ordered_json& values)
{
  const SglangMessage& m = sglang_message(id);
  Analysis a;
  const auto it = std::find_if(k_analyzers.begin(), k_analyzers.end(), [&](const RowAnalyzer& r) { return r.id == id; });
  if (it != k_analyzers.end()) {
    a = it->analyze(values);
  } else if (auto liveness = analyse_liveness(id, values)) {
    a = std::move(*liveness);
  } else if (m.rule) {
    a.explanation = std::string(rule(*m.rule).explanation);
  }
  if (a.causes.empty()) {
    for (std::string_view c : split_causes(m.causes)) {
      a.causes.emplace_back(c);
    }
  }
  if (a.causes.empty()) {
    throw std::logic_error("message " + std::string(m.text) + " has no causes for explain LOG");
  }
  return a;
}

Analysis explained(std::string explanation)
{
  Analysis a;
  a.explanation = std::move(explanation);
  return a;
}

} // namespace pdcheck::check
