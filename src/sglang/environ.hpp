#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::sglang {

/// A boolean SGLANG_* variable as SGLang's `EnvBool` reads it
/// (python/sglang/srt/environ.py @ 21ff4b08a19649d55c59ed4bd8383ab9a19e6430):
/// unset leaves the default; "true", "1", "yes", "y" in any case are true and
/// "false", "0", "no", "n" false; anything else, the empty string included, makes
/// `EnvField.get` warn and keep the default.
struct EnvBoolReading
{
  bool value = false;
  /// The value SGLang refused (as set), when it warned and kept the default.
  std::optional<std::string> refused;
};

EnvBoolReading read_env_bool(const std::map<std::string, std::string>& env, std::string_view name, bool fallback);

} // namespace pdcheck::sglang
