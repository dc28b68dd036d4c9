#pragma once

// `# pdcheck: ignore=RULE[,RULE...]` comments in a side file: the rules the
// operator silenced for that side (check/triage.hpp applies them to the side's
// causes and to causes about the pair).

#include "sglang/side.hpp"

#include <map>
#include <string>

namespace pdcheck::io {

/// Every rule named by a `# pdcheck:` comment of `text` (the side file `path`),
/// with where it was named. Text after the list, past whitespace, is the
/// operator's reason and is not read. Throws InputError at the comment's
/// file:line:col for an unknown rule (with a did-you-mean) or an unknown
/// directive (only `ignore=` exists).
std::map<std::string, sglang::SourceLocation> read_inline_ignores(const std::string& text, const std::string& path);

} // namespace pdcheck::io
