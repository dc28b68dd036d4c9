#pragma once

// `.pdcheck.yaml`: the settings a repository keeps for `pdcheck check` (what
// fails the check, which rules count, per-rule severities, the baseline), so
// that a CI job and an operator at a terminal get the same verdict.

#include "check/triage.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::io {

inline constexpr std::string_view k_settings_file_name = ".pdcheck.yaml";

struct CheckSettings
{
  std::string path; ///< the file read; "" when there is none
  std::optional<std::string> fail_on;
  std::optional<std::string> format;
  std::string format_where; ///< file:line:col of format:, for the CLI's check of the value
  std::vector<std::string> ignore;
  std::vector<std::string> select;
  std::map<std::string, Severity> severity;
  std::optional<bool> show_advice;
  std::optional<std::string> baseline; ///< relative to the settings file's directory, resolved
};

/// The nearest `.pdcheck.yaml` in `start_dir` or a directory above it; nothing
/// when none exists up to the filesystem root.
std::optional<std::string> find_settings_file(const std::string& start_dir);

/// Reads and validates a settings file: keys fail-on, format, ignore, select,
/// severity (a mapping RULE: error|warning|info), show-advice, baseline. Throws
/// InputError at file:line:col for an unknown key or rule (with a did-you-mean)
/// or a value of the wrong kind.
CheckSettings load_settings(const std::string& path);

/// Baseline files (`--write-baseline`, schemas/baseline.schema.json).
std::vector<check::BaselineEntry> load_baseline(const std::string& path);
std::string baseline_to_text(const std::vector<check::BaselineEntry>& entries);

} // namespace pdcheck::io
