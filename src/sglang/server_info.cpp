#include "sglang/server_info.hpp"

#include "sglang/server_args.hpp"
#include "util/error.hpp"

namespace pdcheck::sglang {

ServerInfoLaunch launch_from_server_info(const nlohmann::json& info, const std::string& origin)
{
  if (!info.is_object()) {
    throw InputError(origin, std::string("expected the server info as a JSON object, got ") + info.type_name());
  }
  if (!info.contains("model_path") || !info["model_path"].is_string()) {
    throw InputError(origin, "the server info has no model_path: this is not an SGLang server's /server_info");
  }
  ServerInfoLaunch out;
  if (info.contains("version") && info["version"].is_string()) {
    out.version = info["version"].get<std::string>();
  }
  for (auto it = info.begin(); it != info.end(); ++it) {
    const std::optional<ModelledOption> option = modelled_option(it.key());
    const nlohmann::json& v = it.value();
    if (!option || v.is_null() || (v.is_boolean() && !v.get<bool>())) {
      continue;
    }
    if (it.key() == "disaggregation_mode" && v == "null") {
      continue;
    }
    if (option->is_switch) {
      if (v.is_boolean()) {
        out.words.emplace_back(option->option);
      }
      continue;
    }
    out.words.emplace_back(option->option);
    out.words.push_back(v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

} // namespace pdcheck::sglang
