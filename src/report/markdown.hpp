#pragma once

#include "report/check_render.hpp"

#include <string>

namespace pdcheck::report {

/// `pdcheck check --format markdown`: the verdict, the pair and one table row
/// per shown cause, then each cause's SGLang text and fix in a <details>
/// block; for $GITHUB_STEP_SUMMARY and merge-request comments (GitHub and
/// GitLab flavoured Markdown alike).
std::string check_to_markdown(const CheckReport& report);

/// Text safe in a Markdown table cell: `|` escaped, newlines as <br>.
std::string markdown_cell(std::string_view text);

} // namespace pdcheck::report
