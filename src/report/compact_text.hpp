#pragma once

#include <string>
#include <string_view>

namespace pdcheck::report {

/// `text` with every bracketed list of integers written compactly: runs of
/// three or more equal items as "ITEM ×N" ("[24576, 24576, 24576, 1048576]" ->
/// "[24576 ×3, 1048576]"). For text reports only: SGLang's texts stay exact in
/// JSON, SARIF and the other machine formats.
std::string compact_int_lists(std::string_view text);

} // namespace pdcheck::report
