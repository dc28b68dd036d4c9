#include "sglang/environ.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace pdcheck::sglang {

EnvBoolReading read_env_bool(const std::map<std::string, std::string>& env, std::string_view name, bool fallback)
{
  const auto it = env.find(std::string(name));
  if (it == env.end()) {
    return {fallback, std::nullopt};
  }
  // str.lower(): ASCII is all these words need.
  std::string lowered = it->second;
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
  return {fallback, it->second};
}

} // namespace pdcheck::sglang
