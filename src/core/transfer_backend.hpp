#pragma once

#include <string_view>

namespace pdcheck {

/// SGLang's --disaggregation-transfer-backend choices. The wire codecs (src/wire)
/// speak Mooncake's (mooncake_tcp sends Mooncake's frames), Mori's and NIXL's.
enum class TransferBackend { mooncake, nixl, mori, ascend, fake, mooncake_tcp };

/// SGLang's spelling of the choice ("mooncake", "mooncake_tcp", ...).
std::string_view transfer_backend_name(TransferBackend b);

} // namespace pdcheck
