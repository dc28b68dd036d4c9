#pragma once

// nlohmann::json keeps one heap node per value, so JSON text can cost far more
// memory than its size ("[" is one byte, its node ~50; "0," two bytes, their
// node 16), and a tree that exhausted memory cannot even be freed (its
// destructor allocates). Inputs from outside are measured before they are
// parsed: how deep they nest and how many values they hold.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace pdcheck {

/// Deeper than any document pdcheck reads or writes (captures, config.json,
/// probe messages nest fewer than 10 levels), shallow enough that a hostile
/// document cannot make the parser's stack or the tree large.
inline constexpr int k_max_json_depth = 64;

/// Far more values than a capture (a few dozen) or a config.json (a few
/// thousand) holds; a tree of this many stays near 100 MiB.
inline constexpr std::size_t k_max_json_values = std::size_t{1} << 20;

struct JsonShape
{
  /// Byte offset of the first '[' or '{' that opens level max_depth + 1.
  std::optional<std::size_t> too_deep_at;
  /// Values in the document (containers and scalars; object keys not
  /// counted), exact for well-formed JSON; counting stops once too deep.
  std::size_t values = 0;
};

/// Looks at brackets, commas and strings only: a malformed document is left
/// for the parser to report.
JsonShape json_shape(std::string_view text, int max_depth = k_max_json_depth);

/// Line and column (both 1-based, column in bytes) of a 1-based byte position,
/// as nlohmann reports one; editors want lines.
std::pair<std::size_t, std::size_t> json_line_column(std::string_view text, std::size_t byte);

/// Throws InputError when `text` nests too deep ("origin:L:C: JSON nested deeper
/// than the limit of 64 levels") or holds too many values ("origin: expected a
/// KIND of at most N JSON values, got M"); the one gate every outside JSON
/// document passes before it is parsed.
void refuse_unmeasurable_json(std::string_view text, const std::string& origin, std::string_view kind);

} // namespace pdcheck
