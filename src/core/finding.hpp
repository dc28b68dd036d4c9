#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pdcheck {

enum class Severity { error, warning, info };
enum class FindingKind { startup, bootstrap, transfer, silent_corruption, advice };

std::string_view severity_name(Severity s);
std::string_view finding_kind_name(FindingKind k);

/// Where an input sets a value behind a finding: a side file's line, a flag's
/// line inside a multi-line `args:`, a `--config` file position.
struct FindingPlace
{
  std::string side; ///< "prefill" or "decode"
  std::string file;
  int line = 0;   ///< 1-based
  int column = 0; ///< 1-based, 0 when unknown
};

/// A result of a rule: a value, never an exception. `rule` is a stable id from
/// the rule table (check/rules.hpp); ids are never renumbered.
struct Finding
{
  std::string rule;
  FindingKind kind = FindingKind::startup;
  Severity severity = Severity::error;
  std::string message;                      ///< one line, with the numbers
  std::optional<std::string> runtime_error; ///< exact text SGLang raises, with its Python class, if any
  std::optional<std::string> logged_warning; ///< exact text SGLang only logs (the server goes on), if any
  std::string where;                        ///< side / backend / SGLang function
  std::string side;                         ///< "prefill", "decode" or "" for pair findings
  std::optional<int> prefill_rank;
  std::optional<int> decode_rank;
  std::string backend;
  std::optional<int> component;
  nlohmann::ordered_json evidence = nlohmann::ordered_json::object();
  std::string fix;    ///< the rule's general advice
  std::string change; ///< the launch setting to change, on which side and where (check/remedy); "" when none applies
  /// Where the values named in `change` are set, for annotations (check/remedy); empty when not in a file.
  std::vector<FindingPlace> places;
};

} // namespace pdcheck
