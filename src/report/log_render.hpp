#pragma once

// The two renderings of `pdcheck explain LOG...`.

#include "check/log_explain.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::report {

/// `pdcheck explain --format json` of logs (schemas/explain.schema.json).
nlohmann::ordered_json log_explanation_to_json(const check::LogExplanation& e);

/// The text report of `pdcheck explain LOG...`.
std::string log_explanation_to_text(const check::LogExplanation& e);

} // namespace pdcheck::report
