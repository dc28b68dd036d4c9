#include "check/bootstrap.hpp"

#include "util/untrusted_text.hpp"

#include "core/rules.hpp"
#include "model/layout.hpp"
#include "sglang/environ.hpp"
#include "sglang/side_layout.hpp"
#include "util/plural.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace pdcheck::check {

namespace {

/// No SGLang deployment comes near these; they only keep a corrupt answer from
/// turning into millions of requests.
constexpr int k_max_parallel_size = 4096;
constexpr long long k_max_ranks = 65536;
constexpr std::size_t k_max_body_in_message = 160;

std::string lower(std::string_view s)
{
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

/// Folds whitespace runs (newlines included) into single spaces and cuts long text.
std::string one_line(std::string_view text, std::size_t limit)
{
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) {
      out += ' ';
      space = false;
    }
    out += c;
  }
  // Server text: escaped, and cut at a character boundary, never inside one.
  return printable_untrusted(out, limit);
}

std::string json_type_name(const nlohmann::ordered_json& j)
{
  switch (j.type()) {
  case nlohmann::json::value_t::null: return "null";
  case nlohmann::json::value_t::boolean: return "a boolean";
  case nlohmann::json::value_t::string: return "a string";
  case nlohmann::json::value_t::array: return "an array";
  case nlohmann::json::value_t::object: return "an object";
  case nlohmann::json::value_t::number_float: return "a fraction";
  default: return "a number";
  }
}

bool is_integer(const nlohmann::ordered_json& j)
{
  return j.is_number_integer() || j.is_number_unsigned();
}

// Keys of each generation's answer, from the server code (see tests/data/bootstrap/README.md).
const std::vector<std::string_view> k_server_info_keys = {
  "attn_tp_size", "attn_cp_size", "dp_size", "pp_size", "page_size", "kv_cache_dtype", "follow_bootstrap_room",
  "enable_dsa_cache_layer_split", "prefill_http_port", "target_tp_rank", "target_tp_ranks", "target_cp_ranks",
  "target_pp_ranks", "required_dst_info_num", "required_prefill_response_num"};
const std::vector<std::string_view> k_attn_tp_pp_keys = {"prefill_attn_tp_size", "prefill_dp_size", "prefill_pp_size"};
const std::vector<std::string_view> k_tp_dp_keys = {"prefill_tp_size", "prefill_dp_size"};

/// Reads one required parallel size. Returns false and sets `parse` when the
/// answer cannot be used (problem) or says the server is not ready (null).
bool read_size(const nlohmann::ordered_json& j, const char* key, int& out, InfoParse& parse)
{
  if (!j.contains(key)) {
    parse.problem = fmt::format("{} is missing", key);
    return false;
  }
  const auto& v = j.at(key);
  if (v.is_null()) {
    parse.not_ready = true;
    parse.problem = fmt::format("{} is null: no prefill rank has registered yet", key);
    return false;
  }
  if (!is_integer(v) || v.get<long long>() < 1 || v.get<long long>() > k_max_parallel_size) {
    parse.problem = fmt::format("{} is {}, expected an integer from 1 to {}", key, one_line(v.dump(), 40),
                                k_max_parallel_size);
    return false;
  }
  out = v.get<int>();
  return true;
}

/// Reads an optional field: absent or null leaves `out` empty.
template <typename T>
bool read_optional(const nlohmann::ordered_json& j, const char* key, std::optional<T>& out, InfoParse& parse)
{
  if (!j.contains(key) || j.at(key).is_null()) {
    return true;
  }
  const auto& v = j.at(key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) {
      parse.problem = fmt::format("{} is {}, expected true, false or null", key, one_line(v.dump(), 40));
      return false;
    }
    out = v.get<bool>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) {
      parse.problem = fmt::format("{} is {}, expected a string or null", key, one_line(v.dump(), 40));
      return false;
    }
    out = v.get<std::string>();
  } else {
    if (!is_integer(v) || v.get<long long>() < 1 || v.get<long long>() > 1'000'000) {
      parse.problem = fmt::format("{} is {}, expected a positive integer or null", key, one_line(v.dump(), 40));
      return false;
    }
    out = v.get<int>();
  }
  return true;
}

std::string quoted_body(std::string_view body)
{
  return body.empty() ? "an empty body" : "'" + one_line(body, 80) + "'";
}

} // namespace

BootstrapUrl parse_bootstrap_url(std::string_view text)
{
  const std::string where = text.empty() ? "URL" : std::string(text);
  auto fail = [&](const std::string& why) -> BootstrapUrl { throw InputError(where, why); };
  if (text.empty()) {
    return fail("expected the prefill bootstrap server as http://HOST:PORT");
  }
  std::string_view rest = text;
  if (const auto sep = rest.find("://"); sep != std::string_view::npos) {
    const std::string scheme = lower(rest.substr(0, sep));
    if (scheme == "https") {
      return fail("the SGLang bootstrap server speaks plain HTTP only (no TLS); give http://HOST:PORT");
    }
    if (scheme != "http") {
      return fail(fmt::format("unsupported scheme '{}'; give http://HOST:PORT", scheme));
    }
    rest = rest.substr(sep + 3);
  }
  const auto end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  if (end != std::string_view::npos && rest.substr(end) != "/") {
    return fail(fmt::format("give the server's address only, http://HOST:PORT, without a path or query (got '{}')",
                            rest.substr(end)));
  }
  if (authority.find('@') != std::string_view::npos) {
    return fail("user names are not supported; give http://HOST:PORT");
  }
  BootstrapUrl url;
  std::string_view port_text;
  bool has_port = false;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) {
      return fail("unterminated '[' in an IPv6 address");
    }
    url.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        return fail("expected ':PORT' after the IPv6 address");
      }
      port_text = after.substr(1);
      has_port = true;
    }
  } else {
    const auto colon = authority.find(':');
    if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos) {
      return fail("write an IPv6 address in brackets, e.g. http://[::1]:8998");
    }
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      has_port = true;
    }
  }
  if (url.host.empty()) {
    return fail("no host; give http://HOST:PORT");
  }
  if (has_port) {
    int port = 0;
    const auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || ec != std::errc() || ptr != port_text.data() + port_text.size() || port < 1 ||
        port > 65535) {
      return fail(fmt::format("the port must be a number from 1 to 65535, got '{}'", port_text));
    }
    url.port = port;
  }
  return at_port(url, url.port);
}

BootstrapUrl at_port(BootstrapUrl url, int port)
{
  url.port = port;
  url.text = fmt::format("http://{}:{}", url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host,
                         port);
  return url;
}

std::string_view info_generation_name(InfoGeneration g)
{
  switch (g) {
  case InfoGeneration::tp_dp: return "tp-dp";
  case InfoGeneration::attn_tp_pp: return "attn-tp-pp";
  case InfoGeneration::server_info: return "server-info";
  }
  return "?";
}

InfoParse parse_server_info(std::string_view body)
{
  InfoParse parse;
  const auto j = nlohmann::ordered_json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    parse.problem = "the answer is not JSON: " + quoted_body(body);
    return parse;
  }
  if (!j.is_object()) {
    parse.problem = fmt::format("the answer is {}, not a JSON object", json_type_name(j));
    return parse;
  }
  PrefillServerInfo info;
  info.raw = j;
  for (const auto& [key, value] : j.items()) {
    info.keys.push_back(key);
  }
  const std::vector<std::string_view>* known = nullptr;
  if (j.contains("attn_tp_size")) {
    info.generation = InfoGeneration::server_info;
    known = &k_server_info_keys;
    if (!read_size(j, "attn_tp_size", info.attn_tp_size, parse) || !read_size(j, "attn_cp_size", info.attn_cp_size, parse) ||
        !read_size(j, "dp_size", info.dp_size, parse) || !read_size(j, "pp_size", info.pp_size, parse) ||
        !read_optional(j, "page_size", info.page_size, parse) ||
        !read_optional(j, "kv_cache_dtype", info.kv_cache_dtype, parse) ||
        !read_optional(j, "follow_bootstrap_room", info.follow_bootstrap_room, parse) ||
        !read_optional(j, "enable_dsa_cache_layer_split", info.enable_dsa_cache_layer_split, parse) ||
        !read_optional(j, "prefill_http_port", info.prefill_http_port, parse)) {
      return parse;
    }
  } else if (j.contains("prefill_attn_tp_size")) {
    info.generation = InfoGeneration::attn_tp_pp;
    known = &k_attn_tp_pp_keys;
    if (!read_size(j, "prefill_attn_tp_size", info.attn_tp_size, parse) ||
        !read_size(j, "prefill_dp_size", info.dp_size, parse) || !read_size(j, "prefill_pp_size", info.pp_size, parse)) {
      return parse;
    }
  } else if (j.contains("prefill_tp_size")) {
    info.generation = InfoGeneration::tp_dp;
    known = &k_tp_dp_keys;
    int tp = 0;
    if (!read_size(j, "prefill_tp_size", tp, parse) || !read_size(j, "prefill_dp_size", info.dp_size, parse)) {
      return parse;
    }
    if (tp % info.dp_size != 0) {
      parse.problem = fmt::format("prefill_tp_size {} is not a multiple of prefill_dp_size {}", tp, info.dp_size);
      return parse;
    }
    info.tp_size = tp;
    info.attn_tp_size = tp / info.dp_size; // this generation requires DP attention whenever dp > 1
  } else {
    std::vector<std::string> keys(info.keys.begin(), info.keys.end());
    parse.problem = fmt::format("the answer is not a PrefillServerInfo of any SGLang version pdcheck knows: it has no "
                                "attn_tp_size, prefill_attn_tp_size or prefill_tp_size (keys: {})",
                                keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")));
    return parse;
  }
  const long long ranks = static_cast<long long>(info.dp_size) * info.attn_cp_size * info.attn_tp_size * info.pp_size;
  if (ranks > k_max_ranks) {
    parse.problem = fmt::format("the answer describes {} prefill ranks (dp {} × cp {} × tp {} × pp {}); pdcheck lists "
                                "at most {}",
                                ranks, info.dp_size, info.attn_cp_size, info.attn_tp_size, info.pp_size, k_max_ranks);
    return parse;
  }
  for (const std::string& key : info.keys) {
    if (std::find(known->begin(), known->end(), key) == known->end()) {
      info.unknown_keys.push_back(key);
    }
  }
  parse.info = std::move(info);
  return parse;
}

std::string rank_label(const RankId& r)
{
  return fmt::format("dp {} cp {} tp {} pp {}", r.dp, r.cp, r.tp, r.pp);
}

std::vector<RankId> rank_ids(const PrefillServerInfo& info)
{
  std::vector<RankId> ids;
  ids.reserve(static_cast<std::size_t>(info.dp_size * info.attn_cp_size * info.attn_tp_size * info.pp_size));
  for (int dp = 0; dp < info.dp_size; ++dp) {
    for (int cp = 0; cp < info.attn_cp_size; ++cp) {
      for (int tp = 0; tp < info.attn_tp_size; ++tp) {
        for (int pp = 0; pp < info.pp_size; ++pp) {
          ids.push_back(RankId{dp, cp, tp, pp});
        }
      }
    }
  }
  return ids;
}

std::string rank_target(const PrefillServerInfo& info, const RankId& r)
{
  switch (info.generation) {
  case InfoGeneration::tp_dp: return fmt::format("/route?engine_rank={}&target_dp_group={}", r.tp, r.dp);
  case InfoGeneration::attn_tp_pp:
    return fmt::format("/route?engine_rank={}&target_dp_group={}&target_pp_rank={}", r.tp, r.dp, r.pp);
  case InfoGeneration::server_info:
    return fmt::format("/route?prefill_dp_rank={}&prefill_cp_rank={}&target_tp_rank={}&target_pp_rank={}", r.dp, r.cp,
                       r.tp, r.pp);
  }
  return {};
}

RankParse parse_rank_info(std::string_view body, const RankId& rank)
{
  RankParse parse;
  const auto j = nlohmann::ordered_json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    parse.problem = "the answer is not JSON: " + quoted_body(body);
    return parse;
  }
  if (!j.is_object()) {
    parse.problem = fmt::format("the answer is {}, not a JSON object", json_type_name(j));
    return parse;
  }
  if (!j.contains("rank_ip") || !j.at("rank_ip").is_string() || j.at("rank_ip").get<std::string>().empty()) {
    parse.problem = j.contains("rank_ip")
                      ? fmt::format("rank_ip is {}, expected an address", one_line(j.at("rank_ip").dump(), 40))
                      : "rank_ip is missing";
    return parse;
  }
  if (!j.contains("rank_port") || !is_integer(j.at("rank_port")) || j.at("rank_port").get<long long>() < 1 ||
      j.at("rank_port").get<long long>() > 65535) {
    parse.problem = j.contains("rank_port")
                      ? fmt::format("rank_port is {}, expected a port from 1 to 65535",
                                    one_line(j.at("rank_port").dump(), 40))
                      : "rank_port is missing";
    return parse;
  }
  RankEndpoint e;
  e.rank = rank;
  e.ip = j.at("rank_ip").get<std::string>();
  e.port = j.at("rank_port").get<int>();
  for (const auto& [key, value] : j.items()) {
    if (key != "rank_ip" && key != "rank_port") {
      e.extra[key] = value;
    }
  }
  parse.endpoint = std::move(e);
  return parse;
}

std::string describe_answer(int status, std::string_view body)
{
  const std::string text = one_line(body, k_max_body_in_message);
  return text.empty() ? fmt::format("{} (empty body)", status) : fmt::format("{} {}", status, text);
}

std::string_view fact_source_name(FactSource s)
{
  switch (s) {
  case FactSource::server: return "server";
  case FactSource::derived: return "derived";
  case FactSource::assumed: return "assumed";
  }
  return "?";
}

PrefillFromServer prefill_side_from_server(const PrefillServerInfo& info,
                                           const sglang::Side& decode,
                                           const Profile& profile,
                                           const std::string& sglang_text,
                                           const std::string& origin)
{
  using sglang::DisaggregationMode;
  PrefillFromServer out;
  auto fact = [&](std::string name, nlohmann::ordered_json value, FactSource source, std::string why = {}) {
    out.facts.push_back(PrefillFact{std::move(name), std::move(value), source, std::move(why)});
  };
  const bool modern = info.generation == InfoGeneration::server_info;

  sglang::Side& p = out.side;
  p.role = sglang::Role::prefill;
  p.origin = origin;
  p.sglang = sglang_text;
  p.profile = profile;
  p.model = decode.model;
  // The HTTP API exposes only topology, page size and KV dtype; every other
  // launch argument (state dtypes, unified memory, speculative decoding,
  // backend) starts as the decode side's and is reported as assumed below.
  p.args = decode.args;
  p.args.given.clear();
  p.args.unknown.clear();
  p.args.disaggregation_mode = DisaggregationMode::prefill;

  // Parallel sizes.
  switch (info.generation) {
  case InfoGeneration::tp_dp:
    fact("tp_size", *info.tp_size, FactSource::server, "sent as prefill_tp_size");
    fact("dp_size", info.dp_size, FactSource::server, "sent as prefill_dp_size");
    fact("attn_tp_size", info.attn_tp_size, FactSource::derived,
         "prefill_tp_size / prefill_dp_size (this server generation requires DP attention when dp > 1)");
    break;
  case InfoGeneration::attn_tp_pp:
    fact("attn_tp_size", info.attn_tp_size, FactSource::server, "sent as prefill_attn_tp_size");
    fact("dp_size", info.dp_size, FactSource::server, "sent as prefill_dp_size");
    fact("pp_size", info.pp_size, FactSource::server, "sent as prefill_pp_size");
    break;
  case InfoGeneration::server_info:
    fact("attn_tp_size", info.attn_tp_size, FactSource::server);
    fact("attn_cp_size", info.attn_cp_size, FactSource::server);
    fact("dp_size", info.dp_size, FactSource::server);
    fact("pp_size", info.pp_size, FactSource::server);
    break;
  }
  if (!modern) {
    fact("attn_cp_size", 1, FactSource::assumed, "this server generation predates attention context parallelism");
  }
  if (info.generation == InfoGeneration::tp_dp) {
    fact("pp_size", 1, FactSource::assumed, "this server generation predates pipeline parallelism");
  }
  p.args.attn_cp_size = info.attn_cp_size;
  p.args.pp_size = info.pp_size;
  p.args.dp_size = info.dp_size;
  p.args.enable_dp_attention = info.dp_size > 1;
  p.args.tp_size = info.tp_size.value_or(info.attn_tp_size * info.attn_cp_size * info.dp_size);
  if (!info.tp_size) {
    fact("tp_size", p.args.tp_size, FactSource::derived,
         info.dp_size > 1 ? "attn_tp_size × attn_cp_size × dp_size, modelling the DP groups as DP attention"
                          : "attn_tp_size × attn_cp_size");
  }
  if (info.dp_size > 1 && info.generation == InfoGeneration::tp_dp) {
    fact("enable_dp_attention", true, FactSource::derived, "this server generation requires it when dp > 1");
  } else if (info.dp_size > 1) {
    fact("enable_dp_attention", true, FactSource::assumed,
         fmt::format("the server reports dp_size {} but not whether DP attention is on; each rank's state layout is "
                     "the same either way",
                     info.dp_size));
  }

  // Page size and KV cache dtype: when the server does not say, SGLang's decode
  // skips its check, so the decode's value stands in and no finding can arise.
  const char* silent = modern ? "the server sent null; SGLang's decode skips this check then"
                              : "this server generation does not report it; SGLang's decode of that time did not check it";
  if (info.page_size) {
    p.args.page_size = *info.page_size;
    fact("page_size", *info.page_size, FactSource::server);
  } else {
    fact("page_size", decode.args.page_size, FactSource::assumed, silent);
  }
  if (info.kv_cache_dtype) {
    p.args.kv_cache_dtype = *info.kv_cache_dtype;
    fact("kv_cache_dtype", *info.kv_cache_dtype, FactSource::server);
  } else {
    fact("kv_cache_dtype", decode.args.kv_cache_dtype, FactSource::assumed, silent);
  }
  if (info.follow_bootstrap_room) {
    fact("follow_bootstrap_room", *info.follow_bootstrap_room, FactSource::server);
  }
  if (info.enable_dsa_cache_layer_split) {
    fact("enable_dsa_cache_layer_split", *info.enable_dsa_cache_layer_split, FactSource::server);
  }
  if (info.prefill_http_port) {
    fact("prefill_http_port", *info.prefill_http_port, FactSource::server);
  }

  // What the HTTP API never tells.
  fact("model", decode.model.name, FactSource::assumed,
       "the bootstrap server does not say which model the prefill serves; the decode side's");
  fact("sglang", profile.name, FactSource::assumed,
       sglang_text == decode.sglang && profile.name == decode.profile.name
         ? "the decode side's; give --prefill-sglang when the prefill runs another SGLang"
         : "from --prefill-sglang");
  fact("transfer_backend", std::string(transfer_backend_name(p.args.transfer_backend)), FactSource::assumed,
       "the decode side's; the bootstrap server does not report it");
  if (sglang::find_env(p.args.env, "SGLANG_PP_LAYER_PARTITION") && p.args.pp_size != decode.args.pp_size) {
    // The decode's partition is for its own stage count; the prefill's is unknown.
    p.args.env.erase("SGLANG_PP_LAYER_PARTITION");
    p.args.env.erase("SGL_PP_LAYER_PARTITION");
    fact("SGLANG_PP_LAYER_PARTITION", nullptr, FactSource::assumed,
         "unset (even split): the decode side's partition is for another pp size");
  }
  const model::LayoutInput li = sglang::layout_input(p);
  fact("state_dtypes", fmt::format("conv {}, ssm {}", dtype_name(li.conv_dtype), dtype_name(li.ssm_dtype)),
       FactSource::assumed, "as on the decode side; the bootstrap server does not report them");
  fact("enable_unified_memory", p.args.enable_unified_memory, FactSource::assumed, "as on the decode side");
  fact("speculative_algorithm",
       p.args.speculative_algorithm ? nlohmann::ordered_json(*p.args.speculative_algorithm) : nlohmann::ordered_json(nullptr),
       FactSource::assumed, "as on the decode side");
  return out;
}

namespace {

std::vector<Finding> missing_rank_findings(const ObservedBootstrap& observed)
{
  std::vector<Finding> out;
  for (const auto& [rank, answer] : observed.missing_ranks) {
    Finding f = make_finding(RuleId::bootstrap_rank_missing,
                             fmt::format("prefill rank {} has not registered its endpoint with {}: the last answer "
                                         "was {}",
                                         rank_label(rank), observed.url, answer));
    f.side = "prefill";
    f.prefill_rank = rank.tp;
    f.where = "prefill bootstrap server: GET /route for one rank";
    f.evidence["dp"] = rank.dp;
    f.evidence["cp"] = rank.cp;
    f.evidence["tp"] = rank.tp;
    f.evidence["pp"] = rank.pp;
    f.evidence["answer"] = answer;
    out.push_back(std::move(f));
  }
  return out;
}

/// One fact both the bootstrap server and the prefill's own launch state.
struct Reported
{
  const char* name;
  int reported;
  int runs;
};

/// The facts the info's generation reports, each against what the prefill runs
/// (SGLang's values: attn_tp = tp / dp with DP attention / attn_cp; dp_size is
/// the DP size with or without DP attention; page_size is reported from the
/// server_info generation on, null when unset).
std::vector<Reported> reported_facts(const PrefillServerInfo& info, const sglang::ServerArgs& a)
{
  const int attn_tp = model::attention_tp_size(a.tp_size, a.dp_size, a.enable_dp_attention, a.attn_cp_size);
  std::vector<Reported> out;
  switch (info.generation) {
  case InfoGeneration::tp_dp:
    out.push_back({"tp_size", info.tp_size.value_or(0), a.tp_size});
    out.push_back({"dp_size", info.dp_size, a.dp_size});
    break;
  case InfoGeneration::attn_tp_pp:
    out.push_back({"attn_tp_size", info.attn_tp_size, attn_tp});
    out.push_back({"dp_size", info.dp_size, a.dp_size});
    out.push_back({"pp_size", info.pp_size, a.pp_size});
    break;
  case InfoGeneration::server_info:
    out.push_back({"attn_tp_size", info.attn_tp_size, attn_tp});
    out.push_back({"attn_cp_size", info.attn_cp_size, a.attn_cp_size});
    out.push_back({"dp_size", info.dp_size, a.dp_size});
    out.push_back({"pp_size", info.pp_size, a.pp_size});
    if (info.page_size) {
      out.push_back({"page_size", *info.page_size, a.page_size});
    }
    break;
  }
  return out;
}

std::optional<Finding> other_prefill_finding(const ObservedBootstrap& observed, const sglang::Side& prefill)
{
  std::vector<std::string> reported;
  std::vector<std::string> runs;
  nlohmann::ordered_json evidence;
  for (const Reported& r : reported_facts(*observed.info, prefill.args)) {
    if (r.reported != r.runs) {
      reported.push_back(fmt::format("{} {}", r.name, r.reported));
      runs.push_back(fmt::format("{} {}", r.name, r.runs));
      evidence[r.name] = {{"bootstrap_server", r.reported}, {"prefill", r.runs}};
    }
  }
  if (reported.empty()) {
    return std::nullopt;
  }
  Finding f = make_finding(RuleId::bootstrap_other_prefill,
                           fmt::format("the bootstrap server at {} reports {}, but the prefill at {} runs {}: another "
                                       "prefill answers on its bootstrap port",
                                       observed.url, fmt::join(reported, ", "), prefill.origin, fmt::join(runs, ", ")));
  f.side = "prefill";
  f.where = "prefill bootstrap server: GET " + std::string(k_server_info_target);
  f.evidence = std::move(evidence);
  return f;
}

} // namespace

std::vector<Finding> bootstrap_findings(const ObservedBootstrap& observed, const sglang::Side& prefill)
{
  if (!observed.info) {
    Finding f = make_finding(RuleId::bootstrap_unreachable,
                             fmt::format("pdcheck could not read the prefill's bootstrap server: {}", observed.unread));
    f.side = "prefill";
    f.where = "prefill bootstrap server";
    f.evidence["url"] = observed.url;
    return {std::move(f)};
  }
  std::vector<Finding> out;
  if (auto f = other_prefill_finding(observed, prefill)) {
    out.push_back(std::move(*f));
  }
  for (Finding& f : missing_rank_findings(observed)) {
    out.push_back(std::move(f));
  }
  return out;
}

std::string bootstrap_note(const ObservedBootstrap& observed)
{
  if (!observed.info) {
    return fmt::format("bootstrap server {}: not read", observed.url);
  }
  const int announced = observed.registered_ranks + static_cast<int>(observed.missing_ranks.size());
  return fmt::format("bootstrap server {}: {} of {} registered", observed.url, observed.registered_ranks,
                     counted(announced, "rank"));
}

} // namespace pdcheck::check
