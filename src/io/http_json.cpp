#include "io/http_json.hpp"

#include "check/bootstrap.hpp"
#include "util/error.hpp"
#include "util/json_limits.hpp"
#include "util/untrusted_text.hpp"

#include <fmt/format.h>

namespace pdcheck::io {

JsonAnswer get_json(const HttpGetClient& http, const std::string& base, const std::vector<std::string>& targets,
                    std::chrono::milliseconds timeout, const std::string& unreachable_hint,
                    const std::string& locked_why, std::string_view kind)
{
  JsonAnswer out;
  std::variant<HttpAnswer, HttpFailure> answer;
  for (const std::string& target : targets) {
    out.target = target;
    answer = http.get(target, timeout);
    const auto* a = std::get_if<HttpAnswer>(&answer);
    if (a == nullptr || a->status != 404) {
      break; // older servers answer 404 to the newer name: try the next
    }
  }
  if (const auto* failure = std::get_if<HttpFailure>(&answer)) {
    throw CannotRun(fmt::format("{}: GET {}: {}{}", base, out.target, failure->text, unreachable_hint));
  }
  const HttpAnswer& a = std::get<HttpAnswer>(answer);
  if (a.status == 401 || a.status == 403) {
    throw CannotRun(fmt::format("{}: GET {} answered {}: {}", base, out.target, a.status, locked_why));
  }
  if (a.status != 200) {
    throw CannotRun(fmt::format("{}: GET {} answered {}", base, out.target,
                                printable_untrusted(check::describe_answer(a.status, a.body))));
  }
  const std::string origin = base + out.target;
  try {
    refuse_unmeasurable_json(a.body, origin, kind);
    out.body = nlohmann::json::parse(a.body);
  } catch (const nlohmann::json::exception&) {
    throw CannotRun(fmt::format("{}: the answer is not JSON: {}", origin,
                                printable_untrusted(check::describe_answer(a.status, a.body))));
  } catch (const InputError& e) {
    throw CannotRun(e.what());
  }
  return out;
}

} // namespace pdcheck::io
