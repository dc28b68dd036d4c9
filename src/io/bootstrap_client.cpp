#include "io/bootstrap_client.hpp"

#include "io/http_client.hpp"
#include "util/error.hpp"
#include "util/untrusted_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

namespace pdcheck::io {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

/// The shortest time worth spending on one more attempt after a wait.
constexpr milliseconds k_min_attempt{100};

std::string seconds_text(milliseconds d)
{
  return fmt::format("{:g} s", static_cast<double>(d.count()) / 1000.0);
}

std::string_view trimmed(std::string_view s)
{
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) {
    s.remove_suffix(1);
  }
  return s;
}

/// A server's answer as a message shows it: one line, cut, and with the control
/// characters a wrong server could send (escape sequences) escaped.
std::string answer_text(const HttpAnswer& a)
{
  return printable_untrusted(check::describe_answer(a.status, a.body));
}

class Session
{
public:
  Session(const check::BootstrapUrl& url, const BootstrapOptions& options, BootstrapFetch& fetch)
    : m_url(url), m_options(options), m_fetch(fetch), m_http(url.host, url.port),
      m_deadline(Clock::now() + options.timeout), m_backoff(options.first_backoff)
  {
  }

  milliseconds left() const
  {
    return std::max(milliseconds{0}, std::chrono::duration_cast<milliseconds>(m_deadline - Clock::now()));
  }

  /// The limit for the next request, and how a timeout of it reads.
  std::pair<milliseconds, std::string> budget() const
  {
    const milliseconds l = std::max(left(), k_min_attempt);
    if (l < m_options.per_request) {
      return {l, fmt::format("within the {} allowed in all", seconds_text(m_options.timeout))};
    }
    return {m_options.per_request, "within " + seconds_text(m_options.per_request)};
  }

  static std::string failure_text(const HttpFailure& f, const std::string& within)
  {
    const bool timed_out = f.kind == HttpFailureKind::timeout || f.kind == HttpFailureKind::connect_timeout;
    return timed_out ? f.text + " " + within : f.text;
  }

  void connect()
  {
    const auto [limit, within] = budget();
    const auto failure = m_http.probe(limit);
    if (!failure) {
      return;
    }
    switch (failure->kind) {
    case HttpFailureKind::resolve: throw CannotRun(fmt::format("{}: {}", m_url.text, failure->text));
    case HttpFailureKind::refused:
      throw CannotRun(fmt::format("{}: cannot connect: {} (is the prefill server running, and is {} its "
                                  "--disaggregation-bootstrap-port?)",
                                  m_url.text, failure->text, m_url.port));
    default: throw CannotRun(fmt::format("{}: cannot connect: {}", m_url.text, failure_text(*failure, within)));
    }
  }

  HttpAnswer get(const std::string& target)
  {
    m_fetch.requests += 1;
    const auto [limit, within] = budget();
    auto result = m_http.get(target, limit);
    if (auto* failure = std::get_if<HttpFailure>(&result)) {
      throw CannotRun(fmt::format("{}: GET {}: {}", m_url.text, target, failure_text(*failure, within)));
    }
    return std::get<HttpAnswer>(std::move(result));
  }

  /// Waits before asking again; false (without waiting) when the budget is spent.
  bool wait_if_time_left()
  {
    m_fetch.not_ready_answers += 1;
    const milliseconds pause = std::min(m_backoff, left() - k_min_attempt);
    if (pause <= milliseconds{0}) {
      return false;
    }
    std::this_thread::sleep_for(pause);
    m_backoff = std::min(m_backoff * 2, m_options.max_backoff);
    return true;
  }

  /// Waits before asking again, or gives up when the budget is spent.
  void wait_or_give_up(const std::string& target, const std::string& last_answer)
  {
    if (!wait_if_time_left()) {
      throw CannotRun(fmt::format("{}: the prefill bootstrap server did not become ready within {}; last answer to "
                                  "GET {}: {}",
                                  m_url.text, seconds_text(m_options.timeout), target, last_answer));
    }
  }

  void reset_backoff() { m_backoff = m_options.first_backoff; }

  [[noreturn]] void unexpected(const std::string& target, const HttpAnswer& a, std::string_view why = {})
  {
    const std::string answer = answer_text(a);
    if (!why.empty()) {
      throw CannotRun(fmt::format("{}: GET {} answered {}: {}", m_url.text, target, answer, why));
    }
    throw CannotRun(fmt::format("{}: GET {} answered {}", m_url.text, target, answer));
  }

  const check::BootstrapUrl& url() const { return m_url; }

private:
  const check::BootstrapUrl& m_url;
  const BootstrapOptions& m_options;
  BootstrapFetch& m_fetch;
  HttpGetClient m_http;
  Clock::time_point m_deadline;
  milliseconds m_backoff;
};

constexpr std::string_view k_not_a_bootstrap_server =
  "not an SGLang prefill bootstrap server (give the prefill's --disaggregation-bootstrap-port, default 8998)";

void read_health(Session& s, BootstrapFetch& fetch)
{
  const std::string target(check::k_health_target);
  const HttpAnswer a = s.get(target);
  fetch.health_answer = answer_text(a);
  if (a.status == 200) {
    fetch.health = HealthState::ok;
  } else if (a.status == 404) {
    // Mooncake's first bootstrap server served /route only.
    fetch.health = HealthState::absent;
    fetch.notes.push_back(fmt::format("GET /health answered {}: a bootstrap server from before the /health route; "
                                      "going on with /route",
                                      fetch.health_answer));
  } else {
    fetch.health = HealthState::other;
    fetch.notes.push_back(fmt::format("GET /health answered {}; going on with /route", fetch.health_answer));
  }
}

void read_server_info(Session& s, BootstrapFetch& fetch)
{
  std::string target(check::k_server_info_target);
  bool legacy = false;
  while (true) {
    const HttpAnswer a = s.get(target);
    if (a.status == 200) {
      check::InfoParse parse = check::parse_server_info(a.body);
      if (parse.info) {
        fetch.info = std::move(*parse.info);
        fetch.info_target = target;
        s.reset_backoff();
        break;
      }
      if (parse.not_ready) {
        s.wait_or_give_up(target, printable_untrusted(parse.problem));
        continue;
      }
      throw CannotRun(fmt::format("{}: GET {}: {}", s.url().text, target, printable_untrusted(parse.problem)));
    }
    if (a.status == 400 && trimmed(a.body) == check::k_missing_inputs_body) {
      if (legacy) {
        s.unexpected(target, a, "the server takes neither the current (prefill_dp_rank, ...) nor the older "
                                "(engine_rank, ...) query");
      }
      // The two generations before PrefillServerInfo key the query by
      // engine_rank/target_dp_group[/target_pp_rank]; an extra parameter is ignored.
      fetch.notes.push_back(fmt::format("GET {} answered {}: a server from before the four-rank query; asked GET {} "
                                        "instead",
                                        target, answer_text(a),
                                        check::k_legacy_server_info_target));
      target = std::string(check::k_legacy_server_info_target);
      legacy = true;
      continue;
    }
    if (a.status == 503) {
      s.wait_or_give_up(target, answer_text(a));
      continue;
    }
    if (a.status == 404) {
      s.unexpected(target, a, k_not_a_bootstrap_server);
    }
    if (a.status == 405) {
      s.unexpected(target, a, "this server refuses GET /route, so it is not an SGLang prefill bootstrap server");
    }
    s.unexpected(target, a);
  }
  if (!fetch.info.unknown_keys.empty()) {
    fetch.notes.push_back(fmt::format("the server info has keys this pdcheck does not know ({}): a newer SGLang? "
                                      "they are ignored",
                                      fmt::join(fetch.info.unknown_keys, ", ")));
  }
}

void read_endpoints(Session& s, BootstrapFetch& fetch)
{
  const bool legacy = fetch.info.generation != check::InfoGeneration::server_info;
  bool budget_spent = false; // then every remaining rank is asked once, without waiting
  for (const check::RankId& rank : check::rank_ids(fetch.info)) {
    const std::string target = check::rank_target(fetch.info, rank);
    while (true) {
      const HttpAnswer a = s.get(target);
      if (a.status == 200) {
        check::RankParse parse = check::parse_rank_info(a.body, rank);
        if (!parse.endpoint) {
          throw CannotRun(fmt::format("{}: GET {}: {}", s.url().text, target, printable_untrusted(parse.problem)));
        }
        fetch.endpoints.push_back(std::move(*parse.endpoint));
        s.reset_backoff();
        break;
      }
      // 503: not every rank registered. 404 (and 500 from the older servers,
      // whose lookup raises KeyError): this rank has not registered yet.
      if (a.status == 503 || a.status == 404 || (legacy && a.status == 500)) {
        if (!budget_spent && s.wait_if_time_left()) {
          continue;
        }
        budget_spent = true;
        fetch.missing_ranks.emplace_back(rank, answer_text(a));
        break;
      }
      s.unexpected(target, a);
    }
  }
}

} // namespace

std::string_view health_state_name(HealthState h)
{
  switch (h) {
  case HealthState::ok: return "ok";
  case HealthState::absent: return "absent";
  case HealthState::other: return "other";
  }
  return "?";
}

BootstrapFetch fetch_bootstrap(const check::BootstrapUrl& url, const BootstrapOptions& options)
{
  BootstrapFetch fetch;
  fetch.url = url;
  Session s(fetch.url, options, fetch);
  s.connect();
  read_health(s, fetch);
  read_server_info(s, fetch);
  read_endpoints(s, fetch);
  return fetch;
}

check::ObservedBootstrap observed(const BootstrapFetch& fetch)
{
  check::ObservedBootstrap o;
  o.url = fetch.url.text;
  o.info = fetch.info;
  o.missing_ranks = fetch.missing_ranks;
  o.registered_ranks = static_cast<int>(fetch.endpoints.size());
  return o;
}

check::ObservedBootstrap observe_bootstrap(const check::BootstrapUrl& url, std::chrono::milliseconds timeout)
{
  BootstrapOptions options;
  options.timeout = timeout;
  options.per_request = std::min(options.per_request, timeout);
  try {
    return observed(fetch_bootstrap(url, options));
  } catch (const CannotRun& e) {
    check::ObservedBootstrap o;
    o.url = url.text;
    o.unread = e.what();
    return o;
  }
}

} // namespace pdcheck::io
