#pragma once

// The CI formats of `pdcheck check` (sarif, junit, github) and `--output
// FORMAT=PATH`, kept out of cmd_check.cpp so that file only wires options.

#include "check/checker.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace pdcheck::cli {

/// Every format `pdcheck check` renders: text, json, sarif, junit, github.
const std::vector<std::string>& check_formats();

/// True for sarif, junit and github (rendered here, not by check_render).
bool is_ci_format(const std::string& format);

/// CLI11 validator for `--output FORMAT=PATH` words: a known format and a non-empty path.
CLI::Validator output_request_validator();

/// One report in `format`; colour is never used. `sarif_root` ("" = the current
/// directory) is what SARIF and GitHub paths are relative to.
std::string render_check_report(const std::string& format, const check::CheckInput& in, const check::CheckResult& r,
                                Severity fail_on, const std::string& sarif_root);

/// Writes every `--output FORMAT=PATH` (PATH "-" = standard output, to `out`).
/// Throws InputError naming the path when a file cannot be written.
void write_check_outputs(const std::vector<std::string>& requests, const check::CheckInput& in,
                         const check::CheckResult& r, Severity fail_on, const std::string& sarif_root,
                         std::ostream& out);

} // namespace pdcheck::cli
