#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::sglang {

/// A SGLANG_* variable as SGLang's process sees it, and the name it was set under.
struct EnvSetting
{
  std::string name; ///< the variable the launch set: SGLANG_X, or its legacy alias SGL_X
  std::string value;
};

/// The value SGLang reads for `name` (a SGLANG_* name). At import,
/// environ.py's _convert_SGL_to_SGLANG copies every SGL_* variable over its
/// SGLANG_* name (python/sglang/srt/environ.py @ 21ff4b08a19649d55c59ed4bd8383ab9a19e6430),
/// so SGL_X, when set, wins over SGLANG_X.
std::optional<EnvSetting> find_env(const std::map<std::string, std::string>& env, std::string_view name);

/// A boolean SGLANG_* variable as SGLang's `EnvBool` reads it (same file and
/// commit): unset leaves the default; "true", "1", "yes", "y" in any case are
/// true and "false", "0", "no", "n" false; anything else, the empty string
/// included, makes `EnvField.get` warn and keep the default.
struct EnvBoolReading
{
  bool value = false;
  /// The variable and value SGLang could not parse, when it warned and kept the default.
  std::optional<EnvSetting> unparsed;
};

EnvBoolReading read_env_bool(const std::map<std::string, std::string>& env, std::string_view name, bool fallback);

} // namespace pdcheck::sglang
