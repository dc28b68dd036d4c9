#pragma once

// SGLang's launch parser as data: every option string of ServerArgs in
// argparse's registration order (sglang/data/launch_flags.tsv, with its
// provenance), and the SGLANG_* environment names SGLang reads
// (sglang/data/sglang_env.tsv). Lookups follow Python's argparse with
// allow_abbrev on, as prepare_server_args builds it.

#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::sglang {

struct LaunchFlag
{
  std::string option; ///< "--tp-size"
  std::string dest;   ///< "tp_size"
  std::string nargs;  ///< argparse nargs: "0", "1", "?", "*", "+", "..." (REMAINDER) or a count
};

/// Every option string, in registration order.
const std::vector<LaunchFlag>& launch_flags();

/// The commit of server_args.py the flag list was read from (its header).
std::string_view launch_flags_source();

/// How argparse reads one option-looking word ("--tp", "--pp=2").
struct OptionMatch
{
  enum class Kind { exact, abbreviation, ambiguous, unknown } kind = Kind::unknown;
  const LaunchFlag* flag = nullptr;      ///< exact / abbreviation
  std::vector<const LaunchFlag*> matches; ///< ambiguous: every candidate, in registration order
};

/// `word` without any "=value" part. Only long options ("--x") abbreviate.
OptionMatch match_option(std::string_view word);

/// argparse's message for an ambiguous word (the whole word as typed, with any
/// "=value"): "ambiguous option: --pp could match --pp-size, ...".
std::string ambiguous_message(std::string_view word, const OptionMatch& m);

/// The closest known option strings to an unknown one (for did-you-mean).
std::vector<std::string> option_names();

/// Whether SGLang reads an environment variable of this name (SGL_* is read as SGLANG_*).
bool known_sglang_env(std::string_view name);
std::vector<std::string> sglang_env_names();

} // namespace pdcheck::sglang
