#pragma once

// `pdcheck bootstrap`, the pure half: what a prefill bootstrap server's answers
// mean in every SGLang generation that pdcheck knows, which read-only requests
// to send, and the prefill Side that the checker compares a decode side with.
// No sockets here: src/io/bootstrap_client.* does the HTTP.

#include "core/finding.hpp"
#include "sglang/side.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::check {

/// SGLang's default `--disaggregation-bootstrap-port`.
inline constexpr int k_default_bootstrap_port = 8998;

/// Where the bootstrap server listens, from `http://HOST:PORT`, `HOST:PORT` or `HOST`.
struct BootstrapUrl
{
  std::string host; ///< without IPv6 brackets
  int port = k_default_bootstrap_port;
  std::string text; ///< normalised: "http://HOST:PORT" (IPv6 in brackets)
};

/// Parses the URL argument. The bootstrap server is plain HTTP (aiohttp without
/// TLS), so https:// and every other scheme are refused, as are paths, queries,
/// user names and ports outside 1..65535. Throws InputError(text, why).
BootstrapUrl parse_bootstrap_url(std::string_view text);

/// The same host at another port, its text rebuilt.
BootstrapUrl at_port(BootstrapUrl url, int port);

/// The shape of the server-info answer (GET /route with every rank -1), oldest first.
enum class InfoGeneration {
  tp_dp,       ///< Mooncake's first bootstrap server: {prefill_tp_size, prefill_dp_size}; no /health
  attn_tp_pp,  ///< CommonKVBootstrapServer with PP: {prefill_attn_tp_size, prefill_dp_size, prefill_pp_size}
  server_info, ///< PrefillServerInfo (dataclasses.asdict): attn_tp_size, attn_cp_size, dp_size, pp_size, ...
};
std::string_view info_generation_name(InfoGeneration g);

/// The server-info query of the current servers (four ranks, all -1) and the one
/// of the two older generations (engine_rank/target_dp_group[/target_pp_rank]),
/// which answer the current one with 400 "Missing inputs for bootstrap server.".
inline constexpr std::string_view k_server_info_target =
  "/route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1";
inline constexpr std::string_view k_legacy_server_info_target = "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1";
inline constexpr std::string_view k_health_target = "/health";
inline constexpr std::string_view k_missing_inputs_body = "Missing inputs for bootstrap server.";

/// What the prefill told about itself. Optional fields are absent in older
/// generations or sent as null; `keys` lists what the answer held, in order.
struct PrefillServerInfo
{
  InfoGeneration generation = InfoGeneration::server_info;
  int attn_tp_size = 1;
  int attn_cp_size = 1;          ///< 1 before attention CP existed
  int dp_size = 1;
  int pp_size = 1;               ///< 1 before PP existed
  std::optional<int> tp_size;    ///< only the tp_dp generation reports the whole TP size
  std::optional<int> page_size;  ///< null/absent: SGLang's decode skips the page-size check
  std::optional<std::string> kv_cache_dtype; ///< null/absent: the dtype check is skipped
  std::optional<bool> follow_bootstrap_room;
  std::optional<bool> enable_dsa_cache_layer_split;
  std::optional<int> prefill_http_port;
  std::vector<std::string> keys;
  std::vector<std::string> unknown_keys; ///< keys of a newer server; ignored, reported
  nlohmann::ordered_json raw;            ///< the answer as parsed
};

/// The outcome of reading a server-info body: an info, "not ready yet" (the two
/// older generations answer null sizes until the first prefill rank registers),
/// or a problem, one line without the request (the caller adds it).
struct InfoParse
{
  std::optional<PrefillServerInfo> info;
  bool not_ready = false;
  std::string problem; ///< also set when not_ready: why
};
InfoParse parse_server_info(std::string_view body);

/// One prefill rank as the bootstrap table keys it.
struct RankId
{
  int dp = 0;
  int cp = 0;
  int tp = 0; ///< attention TP rank (tp rank in the DP group for tp_dp)
  int pp = 0;
  bool operator==(const RankId&) const = default;
};
std::string rank_label(const RankId& r); ///< "dp 0 cp 0 tp 1 pp 0"

/// Every (dp, cp, tp, pp) the server must know, dp outermost, pp innermost.
std::vector<RankId> rank_ids(const PrefillServerInfo& info);

/// The read-only GET target that asks for one rank's endpoint, in the query
/// dialect of the info's generation.
std::string rank_target(const PrefillServerInfo& info, const RankId& rank);

/// One rank's ZMQ endpoint. `extra` holds fields of newer servers (attn_dp_rank,
/// transport_protocol, nixl_agent_name, ...), kept for the JSON report.
struct RankEndpoint
{
  RankId rank;
  std::string ip;
  int port = 0;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
};

struct RankParse
{
  std::optional<RankEndpoint> endpoint;
  std::string problem;
};
RankParse parse_rank_info(std::string_view body, const RankId& rank);

/// A status and body as one short line for messages: `503 Prefill server not
/// fully registered yet (2 workers registered).`; long or multi-line bodies are
/// folded and cut.
std::string describe_answer(int status, std::string_view body);

/// Where one prefill fact came from.
enum class FactSource { server, derived, assumed };
std::string_view fact_source_name(FactSource s);

struct PrefillFact
{
  std::string name;          ///< "attn_tp_size", "page_size", "model", ...
  nlohmann::ordered_json value;
  FactSource source = FactSource::server;
  std::string why;           ///< for derived and assumed facts; "" for plain server facts
};

/// The prefill side as the checker sees it, and the provenance of each fact.
struct PrefillFromServer
{
  sglang::Side side;
  std::vector<PrefillFact> facts;
};

/// Builds the prefill Side from the server's info: the decode side's model,
/// `profile` (from --prefill-sglang, else the decode side's), the reported
/// parallel sizes, page size and KV cache dtype; every launch argument the HTTP
/// API does not expose (state dtypes, unified memory, speculative decoding,
/// transfer backend, ...) is taken from the decode side and listed as assumed.
/// `sglang_text` is what the user wrote for the profile (or the decode's).
PrefillFromServer prefill_side_from_server(const PrefillServerInfo& info,
                                           const sglang::Side& decode,
                                           const Profile& profile,
                                           const std::string& sglang_text,
                                           const std::string& origin);

/// What pdcheck read from a running prefill's bootstrap server (check
/// --prefill-url, pdcheck bootstrap): the decode learns the prefill's topology
/// and every rank's endpoint there, so the check holds it next to the sides.
struct ObservedBootstrap
{
  std::string url;                       ///< http://HOST:PORT
  std::optional<PrefillServerInfo> info; ///< absent when the server could not be read
  std::string unread;                    ///< why, when `info` is absent: one line
  /// Ranks the info announces whose endpoint was still unregistered (rank, last answer).
  std::vector<std::pair<RankId, std::string>> missing_ranks;
  int registered_ranks = 0;
};

/// The findings of a bootstrap observation about `prefill` (the side read from
/// the prefill's own server, or built from the same info): the server could not
/// be read (bootstrap-unreachable), it reports another topology or page size
/// than the prefill runs (bootstrap-other-prefill), or ranks never registered
/// (bootstrap-rank-missing, one per rank).
std::vector<Finding> bootstrap_findings(const ObservedBootstrap& observed, const sglang::Side& prefill);

/// One line saying what the bootstrap server showed, for the prefill side's
/// notes: "bootstrap server http://10.0.0.1:8998: 8 of 8 ranks registered".
std::string bootstrap_note(const ObservedBootstrap& observed);

} // namespace pdcheck::check
