#pragma once

// The closed vocabulary of causes `pdcheck explain LOG` names (man page,
// EXPLAINING LOGS), each with the fix it suggests.

#include <string_view>
#include <vector>

namespace pdcheck::check {

/// Every cause name, in the order the man page lists them.
const std::vector<std::string_view>& log_cause_names();

/// The fix for a cause; throws std::logic_error for a name outside the vocabulary.
std::string_view cause_fix(std::string_view name);

/// The cause names of a catalog row's `causes` column ("a b" -> {"a", "b"}).
std::vector<std::string_view> split_causes(std::string_view causes);

} // namespace pdcheck::check
