#pragma once

// `pdcheck decode`: registrations and TransferInfos as JSON and text.

#include "wire/registration.hpp"
#include "wire/transfer_info.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace pdcheck::report {

/// A registration as one JSON object, fields under SGLang's parser names as the
/// backend's frame tables give them (Mooncake dst_tp_rank / dst_attn_tp_size,
/// Mori and NIXL decode_tp_rank / decode_tp_size), with "generation", its
/// evidence, per-component summaries ("components") and the frame list ("frames").
nlohmann::json registration_to_json(const wire::Registration& r);

/// A TransferInfo as one JSON object under SGLang's names, with "is_dummy" and
/// the rule that decided it.
nlohmann::json transfer_info_to_json(const wire::TransferInfo& t);

/// Human-readable tables of the same content.
std::string registration_to_text(const wire::Registration& r);
std::string transfer_info_to_text(const wire::TransferInfo& t);

/// "24576 x36, 1048576 x36" / "[0x7f0000000000, ... 0x7f4700000000] (72 values)":
/// a list short enough for one table cell. `hex` prints values in hex.
std::string compact_list(const std::vector<std::uint64_t>& values, bool hex = false);

/// "0-2,4-6,8-10 (9 layers)": ascending runs collapsed.
std::string compact_ids(const std::vector<std::uint64_t>& ids);

} // namespace pdcheck::report
