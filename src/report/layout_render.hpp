#pragma once

#include "model/layout.hpp"
#include "sglang/side.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::report {

/// `pdcheck layout --format json` (schemas/layout.schema.json).
nlohmann::ordered_json layout_to_json(const sglang::Side& side, const model::Layout& layout);

/// `pdcheck layout` text: one table per group of identical ranks.
std::string layout_to_text(const sglang::Side& side, const model::Layout& layout);

} // namespace pdcheck::report
