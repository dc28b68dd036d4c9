#pragma once

// What Python's argparse (allow_abbrev on, no positionals) makes of SGLang's
// launch words against one release's flag table: where it stops at once (an
// ambiguous abbreviation, an option missing its value, a value given to a
// switch) and which words it rejects at the end ("unrecognized arguments").
// The values of the options pdcheck models are read by parse_launch_args.

#include "core/sglang_messages.hpp"
#include "sglang/launch_flags.hpp"
#include "sglang/server_args.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::sglang {

/// argparse takes a word starting with '-' as the next option unless it looks
/// like a negative number (the parser declares no numeric-looking options).
bool looks_like_flag(const std::string& word);

/// Index after the values argparse gives an option with `nargs` from words[i..]:
/// "0" none, "1" or a count that many, "?" at most one, "*"/"+" every word up to
/// the next option. An inline "=value" is the value already.
std::size_t skip_values(const std::vector<ArgWord>& words, std::size_t i, bool inline_value, const std::string& nargs);

/// A long option's "--x=value" split in two ("--x", "value"); any other word
/// whole, without an inline value (argparse does not split short options here).
struct SplitOption
{
  std::string spelling;
  std::optional<std::string> inline_value;
};
SplitOption split_inline_value(const std::string& word);

/// Whether argparse refuses the option without a value.
bool needs_a_value(const std::string& nargs);

/// One run of argparse over `words` with `table`'s option strings.
ArgparseOutcome argparse_outcome(const FlagTable& table, const std::vector<ArgWord>& words);

} // namespace pdcheck::sglang
