#include "sglang/environ.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace pdcheck::sglang {

std::optional<EnvSetting> find_env(const std::map<std::string, std::string>& env, std::string_view name)
{
  constexpr std::string_view k_prefix = "SGLANG_";
  if (name.substr(0, k_prefix.size()) == k_prefix) {
    const std::string legacy = "SGL_" + std::string(name.substr(k_prefix.size()));
    if (const auto it = env.find(legacy); it != env.end()) {
      return EnvSetting{it->first, it->second};
    }
  }
  if (const auto it = env.find(std::string(name)); it != env.end()) {
    return EnvSetting{it->first, it->second};
  }
  return std::nullopt;
}

EnvBoolReading read_env_bool(const std::map<std::string, std::string>& env, std::string_view name, bool fallback)
{
  const std::optional<EnvSetting> set = find_env(env, name);
  if (!set) {
    return {fallback, std::nullopt};
  }
  // str.lower(): ASCII is all these words need.
  std::string lowered = set->value;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  constexpr std::array<std::string_view, 4> truthy = {"true", "1", "yes", "y"};
  constexpr std::array<std::string_view, 4> falsy = {"false", "0", "no", "n"};
  if (std::find(truthy.begin(), truthy.end(), lowered) != truthy.end()) {
    return {true, std::nullopt};
  }
  if (std::find(falsy.begin(), falsy.end(), lowered) != falsy.end()) {
    return {false, std::nullopt};
  }
  return {fallback, set};
}

} // namespace pdcheck::sglang
