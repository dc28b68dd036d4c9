#pragma once

// `pdcheck matrix`: the prefill × decode grid as a terminal table, JSON, and
// a heat map (SVG, or an HTML page holding it) for a runbook.

#include "check/matrix.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::report {

std::string matrix_to_text(const check::Matrix& m);
nlohmann::ordered_json matrix_to_json(const check::Matrix& m);
std::string matrix_to_svg(const check::Matrix& m);
std::string matrix_to_html(const check::Matrix& m);

} // namespace pdcheck::report
