#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::sglang {

/// SGLang's StateType values for state components other than Mamba (the strings
/// kv_args.state_types holds). pdcheck lays out only the Mamba component; these
/// are declared per side (extra_state_types) so the backends' limits on them can
/// be checked.
enum class ExtraStateType { swa, dsa, swa_ring, c128_state, minimax_index_k, minimax_dense_kv };

/// The value string SGLang uses ("swa", "c128_state", ...).
std::string_view extra_state_type_name(ExtraStateType t);

/// Parses a value string; nullopt when pdcheck does not know it.
std::optional<ExtraStateType> parse_extra_state_type(std::string_view text);

/// Every accepted value string, for error messages and the manual.
std::vector<std::string> extra_state_type_names();

} // namespace pdcheck::sglang
