#include "check/remedy.hpp"

#include "core/rules.hpp"
#include "model/layout.hpp"
#include "sglang/environ.hpp"
#include "sglang/side_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

namespace pdcheck::check {

namespace {

using sglang::Side;

/// "FILE:LINE" of a side-file key, the path as written but normalised
/// ("pairs//decode.yaml" reads as "pairs/decode.yaml"); "" when the side has no such key.
std::string file_place(const Side& s, const std::string& key)
{
  auto it = s.locations.find(key);
  if (it == s.locations.end() || it->second.line == 0) {
    return "";
  }
  const std::string& file = it->second.file.empty() ? s.origin : it->second.file;
  return fmt::format("{}:{}", std::filesystem::path(file).lexically_normal().string(), it->second.line);
}

/// Where a side sets its launch arguments: the side file's args line, or the
/// string given on pdcheck's command line.
std::string args_place(const Side& s)
{
  const std::string place = file_place(s, "args");
  return place.empty() ? s.origin : place;
}

std::string key_place(const Side& s, const std::string& key)
{
  const std::string place = file_place(s, key);
  return place.empty() ? args_place(s) : place;
}

/// Where a launch flag was given: its config file position when --config
/// brought it, else the side's args.
std::string flag_place(const Side& s, const std::string& dest)
{
  if (auto it = s.args.given.find(dest); it != s.args.given.end() && it->second.origin.find(':') != std::string::npos) {
    // "FILE:LINE:COL" with the path normalised as file_place does it.
    const std::string& origin = it->second.origin;
    const std::size_t col = origin.rfind(':');
    const std::size_t line = col == 0 ? std::string::npos : origin.rfind(':', col - 1);
    if (line == std::string::npos || line == 0) {
      return origin;
    }
    return std::filesystem::path(origin.substr(0, line)).lexically_normal().string() + origin.substr(line);
  }
  return args_place(s);
}

bool given(const Side& s, const std::string& dest)
{
  return s.args.given.count(dest) != 0;
}

std::string role(const Side& s)
{
  return std::string(sglang::role_name(s.role));
}

SettingDiff switch_diff(const Side& p, const Side& d, const std::string& dest, const std::string& flag, bool pv, bool dv)
{
  SettingDiff x{flag, pv ? "on" : "off", dv ? "on" : "off", flag_place(p, dest), flag_place(d, dest),
                given(p, dest), given(d, dest), ""};
  const Side& off = pv ? d : p;
  const std::string on_at = pv ? x.prefill_at : x.decode_at;
  const std::string off_at = pv ? x.decode_at : x.prefill_at;
  x.change = fmt::format("{} sets {}, the {} does not: add it to {} or remove it from {}", on_at, flag, role(off),
                         off_at, on_at);
  return x;
}

SettingDiff value_diff(const Side& p, const Side& d, const std::string& dest, const std::string& flag,
                       const std::string& pv, const std::string& dv)
{
  SettingDiff x{flag, pv, dv, flag_place(p, dest), flag_place(d, dest), given(p, dest), given(d, dest), ""};
  auto value = [&](const std::string& v, bool is_given) { return is_given ? v : v + " (SGLang's default)"; };
  x.change = fmt::format("the prefill runs {} {} ({}), the decode {} ({}): use one value on both sides", flag,
                         value(pv, x.prefill_given), x.prefill_at, value(dv, x.decode_given), x.decode_at);
  return x;
}

} // namespace

std::vector<SettingDiff> setting_diffs(const CheckInput& in)
{
  const Side& p = in.prefill;
  const Side& d = in.decode;
  std::vector<SettingDiff> out;
  if (p.profile.name != d.profile.name) {
    SettingDiff x{"SGLang release", p.profile.name, d.profile.name, key_place(p, "sglang"), key_place(d, "sglang"),
                  !p.sglang.empty(), !d.sglang.empty(), ""};
    x.change = fmt::format("the prefill runs SGLang {} ({}), the decode {} ({}): run one release on both sides",
                           x.prefill, x.prefill_at, x.decode, x.decode_at);
    out.push_back(std::move(x));
  }
  if (p.args.enable_unified_memory != d.args.enable_unified_memory) {
    out.push_back(switch_diff(p, d, "enable_unified_memory", "--enable-unified-memory", p.args.enable_unified_memory,
                              d.args.enable_unified_memory));
  }
  const model::LayoutInput pl = sglang::layout_input(p);
  const model::LayoutInput dl = sglang::layout_input(d);
  const int p_attn = model::attention_tp_size(pl.tp_size, pl.dp_size, pl.enable_dp_attention, pl.attn_cp_size);
  const int d_attn = model::attention_tp_size(dl.tp_size, dl.dp_size, dl.enable_dp_attention, dl.attn_cp_size);
  if (p_attn != d_attn) {
    SettingDiff x{"attention TP", std::to_string(p_attn), std::to_string(d_attn), flag_place(p, "tp_size"),
                  flag_place(d, "tp_size"), given(p, "tp_size"), given(d, "tp_size"), ""};
    x.change = fmt::format("the prefill's attention TP is {} (--tp-size {} at {}), the decode's {} (--tp-size {} at "
                           "{}): give both sides one attention TP size",
                           p_attn, p.args.tp_size, x.prefill_at, d_attn, d.args.tp_size, x.decode_at);
    out.push_back(std::move(x));
  } else if (p.model.state_sharded_by_full_tp && d.model.state_sharded_by_full_tp && pl.tp_size != dl.tp_size) {
    // Pure Mamba2 and ZAYA1 shard their state by the whole TP size: equal
    // attention TP sizes (DP attention on one side) still differ per slot.
    SettingDiff x{"attention TP", std::to_string(pl.tp_size), std::to_string(dl.tp_size), flag_place(p, "tp_size"),
                  flag_place(d, "tp_size"), given(p, "tp_size"), given(d, "tp_size"), ""};
    x.change = fmt::format("{} shards its state by the whole TP size, the prefill's {} (--tp-size at {}), the "
                           "decode's {} (--tp-size at {}): give both sides one --tp-size",
                           p.model.architecture, pl.tp_size, x.prefill_at, dl.tp_size, x.decode_at);
    out.push_back(std::move(x));
  }
  if (pl.ssm_dtype != dl.ssm_dtype) {
    SettingDiff x{"SSM state dtype", std::string(dtype_name(pl.ssm_dtype)), std::string(dtype_name(dl.ssm_dtype)),
                  key_place(p, sglang::find_env(p.args.env, "SGLANG_MAMBA_SSM_DTYPE") ? "env" : "args"),
                  key_place(d, sglang::find_env(d.args.env, "SGLANG_MAMBA_SSM_DTYPE") ? "env" : "args"), true, true, ""};
    x.change = fmt::format("the prefill keeps SSM state in {} ({}), the decode in {} ({}): set "
                           "SGLANG_MAMBA_SSM_DTYPE (or --mamba-ssm-dtype) to one dtype on both sides",
                           x.prefill, x.prefill_at, x.decode, x.decode_at);
    out.push_back(std::move(x));
  }
  if (p.args.page_size != d.args.page_size) {
    out.push_back(value_diff(p, d, "page_size", "--page-size", std::to_string(p.args.page_size),
                             std::to_string(d.args.page_size)));
  }
  if (p.args.pp_size != d.args.pp_size) {
    out.push_back(value_diff(p, d, "pp_size", "--pp-size", std::to_string(p.args.pp_size),
                             std::to_string(d.args.pp_size)));
  }
  if (p.args.kv_cache_dtype != d.args.kv_cache_dtype) {
    out.push_back(value_diff(p, d, "kv_cache_dtype", "--kv-cache-dtype", p.args.kv_cache_dtype, d.args.kv_cache_dtype));
  }
  if (p.args.transfer_backend != d.args.transfer_backend) {
    out.push_back(value_diff(p, d, "disaggregation_transfer_backend", "--disaggregation-transfer-backend",
                             std::string(transfer_backend_name(p.args.transfer_backend)),
                             std::string(transfer_backend_name(d.args.transfer_backend))));
  }
  return out;
}

std::vector<SettingDiff> diffs_for_rule(const std::string& rule, const std::vector<SettingDiff>& diffs)
{
  // Which settings can cause each rule's findings (decided from the rule's
  // explanation in core/rules.def); rules about one side alone are not here.
  static const std::map<std::string, std::vector<std::string>> k_causes = {
    {"backend-mismatch", {"--disaggregation-transfer-backend"}},
    {"bootstrap-page-size", {"--page-size"}},
    {"bootstrap-kv-cache-dtype", {"--kv-cache-dtype"}},
    {"bootstrap-pp-size", {"--pp-size"}},
    {"bootstrap-tp-performance", {"attention TP"}},
    {"rank-mapping", {"attention TP", "--pp-size"}},
    {"registration-generation", {"SGLang release"}},
    {"registration-misread", {"SGLang release"}},
    {"mooncake-layout-no-dims", {"--enable-unified-memory", "attention TP", "SGLang release", "SSM state dtype"}},
    {"mooncake-slot-size", {"SSM state dtype", "attention TP", "SGLang release"}},
    {"mooncake-unequal-tp-hybrid", {"attention TP", "SGLang release"}},
    {"layer-pairing", {"--pp-size", "SGLang release"}},
    {"state-slice", {"attention TP", "SSM state dtype", "SGLang release"}},
    {"mori-component-count", {"SGLang release"}},
    {"mori-descriptor-count", {"--pp-size", "SGLang release"}},
    {"nixl-unequal-tp", {"attention TP", "SGLang release"}},
    {"unified-one-side", {"--enable-unified-memory"}},
    {"unified-unequal-tp", {"attention TP"}},
    {"extra-state-unequal-tp", {"attention TP"}},
    {"dcp-ranks", {"attention TP"}},
    {"mori-state-pp-positional", {"--pp-size"}},
    {"silent-wrong-bytes", {"attention TP", "SSM state dtype", "SGLang release", "--enable-unified-memory"}},
    {"silent-unwritten", {"attention TP", "SSM state dtype", "SGLang release", "--enable-unified-memory", "--pp-size"}},
    {"silent-written-twice", {"attention TP", "SSM state dtype", "SGLang release"}},
    {"silent-outside-slot", {"attention TP", "SSM state dtype", "SGLang release", "--enable-unified-memory"}},
  };
  std::vector<SettingDiff> out;
  auto it = k_causes.find(rule);
  if (it == k_causes.end()) {
    return out;
  }
  for (const SettingDiff& d : diffs) {
    if (std::find(it->second.begin(), it->second.end(), d.setting) != it->second.end()) {
      out.push_back(d);
    }
  }
  return out;
}

namespace {

/// The launch flags (SGLang dest names) behind findings about one side alone.
const std::map<std::string, std::vector<std::string>>& side_causes()
{
  static const std::map<std::string, std::vector<std::string>> k_causes = {
    {"startup-parallel-sizes", {"tp_size", "dp_size"}},
    {"startup-divisibility", {"tp_size"}},
    {"startup-mamba-groups", {"tp_size"}},
    {"startup-attention-heads", {"tp_size"}},
    {"startup-pp-layers", {"pp_size"}},
    {"startup-unified-memory", {"enable_unified_memory"}},
    {"startup-dcp-transfer", {"dcp_size"}},
    {"dcp-topology", {"dcp_size"}},
    {"dcp-ranks", {"dcp_size", "tp_size"}},
    {"bootstrap-dcp-kv-pool", {"dcp_size"}},
    {"startup-backend-state", {"disaggregation_transfer_backend"}},
  };
  return k_causes;
}

/// Attention TP sizes up to 64 at which the side's model lays out (every state
/// dimension divides): what a TP refusal can be changed to.
std::vector<int> servable_attention_tp(const Side& s)
{
  std::vector<int> out;
  model::LayoutInput li = sglang::layout_input(s);
  const int other = std::max(1, li.enable_dp_attention ? li.dp_size : 1) * std::max(1, li.attn_cp_size);
  for (int attn_tp = 1; attn_tp <= 64; attn_tp *= 2) {
    li.tp_size = attn_tp * other;
    if (model::compute_layout(li).servable()) {
      out.push_back(attn_tp);
    }
  }
  return out;
}

/// "prefill.yaml:7 sets --tp-size 16", for the flags of `dests` the side gave,
/// and for a TP refusal the attention TP sizes that would start.
std::string side_change(const std::string& rule, const Side& s)
{
  auto it = side_causes().find(rule);
  if (it == side_causes().end()) {
    return "";
  }
  std::vector<std::string> set;
  for (const std::string& dest : it->second) {
    if (auto g = s.args.given.find(dest); g != s.args.given.end()) {
      set.push_back(fmt::format("{} sets {}", flag_place(s, dest), g->second.value.empty()
                                                                     ? g->second.flag
                                                                     : g->second.flag + " " + g->second.value));
    }
  }
  std::string out = fmt::format("{}", fmt::join(set, "; "));
  if (it->second.front() == "tp_size" && rule != "startup-parallel-sizes") {
    const std::vector<int> ok = servable_attention_tp(s);
    if (!ok.empty()) {
      out += fmt::format("{}this model starts at attention TP {}", out.empty() ? "" : "; ", fmt::join(ok, ", "));
    }
  }
  return out;
}

/// "file:line:col" (as ArgOrigin::origin holds a flag read from a file) as a
/// place; nullopt for "argv[3]" and other origins without a position.
std::optional<FindingPlace> parse_place(const std::string& side, const std::string& origin)
{
  const std::size_t col_colon = origin.rfind(':');
  if (col_colon == std::string::npos || col_colon == 0) {
    return std::nullopt;
  }
  const std::size_t line_colon = origin.rfind(':', col_colon - 1);
  if (line_colon == std::string::npos || line_colon == 0) {
    return std::nullopt;
  }
  const std::string line = origin.substr(line_colon + 1, col_colon - line_colon - 1);
  const std::string column = origin.substr(col_colon + 1);
  auto digits = [](const std::string& t) {
    return !t.empty() && t.size() < 9 && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(line) || !digits(column)) {
    return std::nullopt;
  }
  return FindingPlace{side, std::filesystem::path(origin.substr(0, line_colon)).lexically_normal().string(),
                      std::stoi(line), std::stoi(column)};
}

/// Where side `s` sets `dest` (an SGLang dest name), or a side-file key such
/// as "sglang" or "env"; nullopt when it is not set in a file.
std::optional<FindingPlace> place_of(const Side& s, const std::string& dest)
{
  if (auto g = s.args.given.find(dest); g != s.args.given.end()) {
    return parse_place(role(s), g->second.origin);
  }
  if (auto k = s.locations.find(dest); k != s.locations.end() && k->second.line > 0) {
    return FindingPlace{role(s), k->second.file.empty() ? s.origin : k->second.file, k->second.line,
                        k->second.column};
  }
  return std::nullopt;
}

/// The dest name (or side-file key) behind a SettingDiff's setting.
std::string dest_of_setting(const Side& s, const std::string& setting)
{
  if (setting == "SGLang release") {
    return "sglang";
  }
  if (setting == "attention TP") {
    return "tp_size";
  }
  if (setting == "SSM state dtype") {
    return sglang::find_env(s.args.env, "SGLANG_MAMBA_SSM_DTYPE") ? "env" : "mamba_ssm_dtype";
  }
  std::string dest = setting.rfind("--", 0) == 0 ? setting.substr(2) : setting;
  std::replace(dest.begin(), dest.end(), '-', '_');
  return dest;
}

void add_place(std::vector<FindingPlace>& places, std::optional<FindingPlace> p)
{
  if (p && std::none_of(places.begin(), places.end(), [&](const FindingPlace& q) {
        return q.side == p->side && q.file == p->file && q.line == p->line && q.column == p->column;
      })) {
    places.push_back(std::move(*p));
  }
}

} // namespace

void add_remedies(std::vector<Finding>& findings, const CheckInput& in)
{
  const std::vector<SettingDiff> diffs = setting_diffs(in);
  for (Finding& f : findings) {
    if (f.side == "prefill" || f.side == "decode") {
      const Side& s = f.side == "prefill" ? in.prefill : in.decode;
      if (f.change.empty()) {
        f.change = side_change(f.rule, s);
      }
      if (!f.change.empty()) {
        if (auto it = side_causes().find(f.rule); it != side_causes().end()) {
          for (const std::string& dest : it->second) {
            add_place(f.places, place_of(s, dest));
          }
        }
        continue;
      }
    }
    const std::vector<SettingDiff> mine = diffs_for_rule(f.rule, diffs);
    if (mine.empty()) {
      continue;
    }
    std::vector<std::string> changes;
    auto settings = nlohmann::ordered_json::array();
    for (const SettingDiff& d : mine) {
      changes.push_back(d.change);
      add_place(f.places, place_of(in.prefill, dest_of_setting(in.prefill, d.setting)));
      add_place(f.places, place_of(in.decode, dest_of_setting(in.decode, d.setting)));
      settings.push_back({{"setting", d.setting},
                          {"prefill", d.prefill},
                          {"decode", d.decode},
                          {"prefill_at", d.prefill_at},
                          {"decode_at", d.decode_at}});
    }
    f.change = fmt::format("{}", fmt::join(changes, "; "));
    f.evidence["settings"] = std::move(settings);
  }
}

} // namespace pdcheck::check
