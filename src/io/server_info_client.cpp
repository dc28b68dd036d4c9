#include "io/server_info_client.hpp"

#include "check/bootstrap.hpp"
#include "io/http_json.hpp"
#include "io/side_file.hpp"
#include "sglang/server_info.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

namespace pdcheck::io {

namespace {

/// SGLang's default --port, for a server URL given without one.
constexpr int k_default_server_port = 30000;

bool names_port(std::string_view url)
{
  if (const std::size_t scheme = url.find("://"); scheme != std::string_view::npos) {
    url.remove_prefix(scheme + 3);
  }
  if (!url.empty() && url.front() == '[') {
    return url.find("]:") != std::string_view::npos;
  }
  return url.find(':') != std::string_view::npos;
}

} // namespace

sglang::Side side_from_server(const std::string& url, const std::string& model_ref, std::chrono::milliseconds timeout)
{
  check::BootstrapUrl where = check::parse_bootstrap_url(url);
  if (!names_port(url)) {
    where = check::at_port(where, k_default_server_port);
  }
  const HttpGetClient http(where.host, where.port);
  // Servers from before the rename have only /get_server_info.
  const JsonAnswer answer =
    get_json(http, where.text, {"/server_info", "/get_server_info"}, timeout,
             fmt::format(" (is the SGLang server running, and is {} its --port?)", where.port),
             "the server was started with --api-key, which pdcheck does not send; check its launch as a side file "
             "instead",
             "server info");
  const std::string origin = where.text + answer.target;
  const nlohmann::json& info = answer.body;
  const auto mode = info.is_object() ? info.find("disaggregation_mode") : info.end();
  if (info.is_object() && (mode == info.end() || (*mode != "prefill" && *mode != "decode"))) {
    throw CannotRun(fmt::format("{}: the server runs without --disaggregation-mode prefill or decode, so it is not "
                                "one side of a PD pair",
                                origin));
  }
  sglang::ServerInfoLaunch launch;
  try {
    launch = sglang::launch_from_server_info(info, origin);
  } catch (const InputError& e) {
    throw CannotRun(e.what());
  }
  LaunchedServer server;
  server.words = std::move(launch.words);
  server.sglang = launch.version;
  if (launch.version.empty()) {
    server.sglang_assumption = "the server info has no version";
  }
  server.model_ref = model_ref;
  server.origin = fmt::format("{} (SGLang {})", where.text, launch.version.empty() ? "?" : launch.version);
  server.where = origin;
  try {
    return side_from_launch(server);
  } catch (const InputError& e) {
    if (model_ref.empty() && e.detail().rfind("model: ", 0) == 0) {
      throw InputError(e.where(), e.detail() + "; the path is the server's own: name the model with --model (a "
                                               "catalog name or a config.json)");
    }
    throw;
  }
}

} // namespace pdcheck::io
