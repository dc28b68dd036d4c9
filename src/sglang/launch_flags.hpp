#pragma once

// SGLang's launch parser as data, release by release: every option string of
// ServerArgs in argparse's registration order (sglang/data/launch_flags/*.tsv,
// one table per SGLang release read, each with its provenance), and the
// SGLANG_* environment names SGLang reads (sglang/data/sglang_env.tsv).
// Lookups follow Python's argparse with allow_abbrev on, as
// prepare_server_args builds it.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pdcheck::sglang {

struct LaunchFlag
{
  std::string option; ///< "--tp-size"
  std::string dest;   ///< "tp_size"
  std::string nargs;  ///< argparse nargs: "0", "1", "?", "*", "+", "..." (REMAINDER) or a count
};

/// How argparse reads one option-looking word ("--tp", "--pp=2").
struct OptionMatch
{
  enum class Kind { exact, abbreviation, ambiguous, unknown } kind = Kind::unknown;
  const LaunchFlag* flag = nullptr;       ///< exact / abbreviation
  std::vector<const LaunchFlag*> matches; ///< ambiguous: every candidate, in registration order
};

/// One release's option strings, from one data file.
class FlagTable
{
public:
  FlagTable(std::string name, std::string_view text);

  /// The file's name: an SGLang release ("0.5.4") or "main", the newest read.
  const std::string& name() const { return m_name; }
  /// The `# source:` header line: repository, file and commit it was read from.
  const std::string& source() const { return m_source; }
  /// The 40 characters after "server_args.py @ " in the source line.
  const std::string& commit() const { return m_commit; }
  /// The `# confidence:` header line's first word: "high" (upstream's own
  /// commit), "medium" (a copy identified as that release, with its local
  /// edits taken out), "low" (a copy whose release is only inferred).
  const std::string& confidence() const { return m_confidence; }
  const std::vector<LaunchFlag>& flags() const { return m_flags; }

  /// `word` without any "=value" part. Only long options ("--x") abbreviate.
  OptionMatch match(std::string_view word) const;
  /// argparse's name for an optional in its messages: the option strings of
  /// one registration (adjacent rows with the same dest and nargs) joined with '/'.
  std::string argparse_name(const LaunchFlag& flag) const;
  /// Every option string, for did-you-mean.
  std::vector<std::string> option_names() const;

private:
  std::string m_name;
  std::string m_source;
  std::string m_commit = "unknown";
  std::string m_confidence = "unknown";
  std::vector<LaunchFlag> m_flags;
  std::unordered_map<std::string, std::size_t> m_by_option;
};

/// Every table, releases in version order, "main" last.
const std::vector<FlagTable>& flag_tables();
/// "main": the newest flag list pdcheck has read.
const FlagTable& newest_flag_table();

/// The tables that speak for one release (a profile's name: "0.5.15", or a
/// generation's "pre-dims", "components", "v0.5.20").
struct FlagTableChoice
{
  /// The release's own table, else the nearest one after it (flags are added
  /// far more often than removed), else the newest.
  const FlagTable* table = nullptr;
  /// Set when `table` is not the release's own: the nearest table before the
  /// release, which argparse findings are checked against too.
  const FlagTable* before = nullptr;
  bool exact = false;
};
FlagTableChoice flag_tables_for(std::string_view release);

/// argparse's message for an ambiguous word (the whole word as typed, with any
/// "=value"): "ambiguous option: --pp could match --pp-size, ...".
std::string ambiguous_message(std::string_view word, const OptionMatch& m);

/// Whether SGLang reads an environment variable of this name (SGL_* is read as SGLANG_*).
bool known_sglang_env(std::string_view name);
std::vector<std::string> sglang_env_names();

} // namespace pdcheck::sglang
