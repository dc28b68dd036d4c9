#pragma once

#include "core/finding.hpp"

#include <nlohmann/json.hpp>

namespace pdcheck::report {

/// One finding as in schemas/report.schema.json ("findings" items).
nlohmann::ordered_json finding_to_json(const Finding& f);

} // namespace pdcheck::report
