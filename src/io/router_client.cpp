#include "io/router_client.hpp"

#include "check/bootstrap.hpp"
#include "io/http_json.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

namespace pdcheck::io {

std::vector<check::RouterWorker> fetch_router_workers(const std::string& url, std::chrono::milliseconds timeout)
{
  const check::BootstrapUrl where = check::parse_bootstrap_url(url);
  const HttpGetClient http(where.host, where.port);
  // sgl-router 0.1 has only /list_workers.
  const JsonAnswer answer = get_json(http, where.text, {"/workers", "/list_workers"}, timeout,
                                     " (is the router running there?)",
                                     "the router was started with --api-key, which pdcheck does not send", "worker list");
  try {
    return check::parse_router_workers(answer.body, where.text + answer.target);
  } catch (const InputError& e) {
    throw CannotRun(e.what());
  }
}

} // namespace pdcheck::io
