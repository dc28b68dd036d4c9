#include "io/router_client.hpp"

#include "check/bootstrap.hpp"
#include "io/http_client.hpp"
#include "util/error.hpp"
#include "util/json_limits.hpp"
#include "util/untrusted_text.hpp"

#include <fmt/format.h>

namespace pdcheck::io {

std::vector<check::RouterWorker> fetch_router_workers(const std::string& url, std::chrono::milliseconds timeout)
{
  const check::BootstrapUrl where = check::parse_bootstrap_url(url);
  const HttpGetClient http(where.host, where.port);
  std::string route = "/workers";
  auto answer = http.get(route, timeout);
  if (const auto* a = std::get_if<HttpAnswer>(&answer); a != nullptr && a->status == 404) {
    route = "/list_workers"; // sgl-router 0.1
    answer = http.get(route, timeout);
  }
  if (const auto* failure = std::get_if<HttpFailure>(&answer)) {
    throw CannotRun(fmt::format("{}: GET {}: {} (is the router running there?)", where.text, route, failure->text));
  }
  const HttpAnswer& a = std::get<HttpAnswer>(answer);
  if (a.status == 401 || a.status == 403) {
    throw CannotRun(fmt::format("{}: GET {} answered {}: the router was started with --api-key, which pdcheck does "
                                "not send",
                                where.text, route, a.status));
  }
  if (a.status != 200) {
    throw CannotRun(fmt::format("{}: GET {} answered {}", where.text, route,
                                printable_untrusted(check::describe_answer(a.status, a.body))));
  }
  const std::string origin = where.text + route;
  try {
    refuse_unmeasurable_json(a.body, origin, "worker list");
    return check::parse_router_workers(nlohmann::json::parse(a.body), origin);
  } catch (const nlohmann::json::exception&) {
    throw CannotRun(fmt::format("{}: the answer is not JSON: {}", origin,
                                printable_untrusted(check::describe_answer(a.status, a.body))));
  } catch (const InputError& e) {
    throw CannotRun(e.what());
  }
}

} // namespace pdcheck::io
