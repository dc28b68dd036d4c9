#include "check/log_liveness.hpp"

#include <fmt/format.h>

#include <string>

namespace pdcheck::check {

namespace {

using json = nlohmann::ordered_json;

Analysis prefill_maybe_dead(const json&)
{
  return explained("The prefill reported this request's transfer as failed, so the decode dropped the request. The "
                   "line names no cause: it is in the prefill's log, at the same time and for the same bootstrap "
                   "room (give both logs to `pdcheck explain` to link them). Usually the prefill's transfer thread "
                   "died on an earlier error, the prefill crashed or restarted, or its RDMA writes to this decode "
                   "failed.");
}

Analysis decode_session_dead(const json& v)
{
  return explained(fmt::format(
    "An earlier RDMA write from this prefill to the decode's Mooncake session {} failed, so the prefill marked the "
    "session dead and now fails every request for it without trying. The first failed write is the cause: look "
    "earlier in this log for the failed send to that session, and in the decode's log for a crash or restart. The "
    "session stays dead until that decode registers again (restart it).",
    v["session"].get<std::string>()));
}

Analysis kv_chunk_send_failed(const json& v)
{
  return explained(fmt::format("The RDMA write of request {}'s KV pages to the decode at {} returned an error; the "
                               "prefill marks that decode's session dead after it, so later requests to it fail at "
                               "once. The decode crashed or restarted, or the RDMA path between the hosts broke.",
                               v["room"].get<std::int64_t>(), v["peer"].get<std::string>()));
}

Analysis bootstrap_unreachable(const json& v)
{
  return explained(fmt::format(
    "The decode could not read the prefill's parallel layout from the bootstrap server at {} (HTTP GET /route), so "
    "it failed the request before any transfer. The prefill is down or still starting (its bootstrap server answers "
    "503 until every prefill rank has registered), or the address is wrong: the port must be the prefill's "
    "--disaggregation-bootstrap-port, as given to the router.",
    v["bootstrap_addr"].get<std::string>()));
}

Analysis nixl_not_found(const json&)
{
  return explained(
    "NIXL's own status code (not an SGLang text): NIXL found no registered memory under descriptors SGLang prepared. "
    "In the reported case (sgl-project/sglang#31295, fixed by PR #31968) a prefill preparing transfers for a decode "
    "with a larger attention TP size addressed KV head slices past its registered region, because the model has "
    "fewer KV heads than the decode's attention TP size; the first request after the decode registers fails.");
}

Analysis mamba_ping_pong_exhausted(const json&)
{
  return explained("The Mamba state pool has no free slot for the ping-pong track buffers that extra-buffer Mamba "
                   "scheduling (--mamba-scheduler-strategy extra_buffer) gives each running request, and the failed "
                   "assertion stops the scheduler. Requests that hold slots (long chunked prefills, transfers in "
                   "flight) leave too few for a new one.");
}

} // namespace

std::optional<Analysis> analyse_liveness(MessageId id, const nlohmann::ordered_json& values)
{
  switch (id) {
  case MessageId::prefill_maybe_dead: return prefill_maybe_dead(values);
  case MessageId::decode_session_dead: return decode_session_dead(values);
  case MessageId::kv_chunk_send_failed: return kv_chunk_send_failed(values);
  case MessageId::bootstrap_info_unreachable: return bootstrap_unreachable(values);
  case MessageId::nixl_not_found: return nixl_not_found(values);
  case MessageId::mamba_ping_pong_exhausted: return mamba_ping_pong_exhausted(values);
  default: return std::nullopt;
  }
}

} // namespace pdcheck::check
