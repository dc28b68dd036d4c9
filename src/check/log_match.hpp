#pragma once

// Matching one log line against a catalog template (core/sglang_messages.def):
// the literals must appear as written, each placeholder reads a value of its
// type, which comes back by name.

#include "core/sglang_messages.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace pdcheck::check {

struct TemplateMatch
{
  std::size_t begin = 0; ///< where the match starts in the line
  std::size_t end = 0;   ///< one past its last character
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
};

/// The leftmost match of `pieces` anywhere in `line`. A template may start with
/// an int or word placeholder ("{n:int} is not divisible by {d:int}"): its
/// characters are then read backwards from the first literal.
std::optional<TemplateMatch> find_template(const std::vector<TemplatePiece>& pieces, std::string_view line);

} // namespace pdcheck::check
