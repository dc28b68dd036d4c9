#include "core/transfer_backend.hpp"

namespace pdcheck {

std::string_view transfer_backend_name(TransferBackend b)
{
  switch (b) {
  case TransferBackend::mooncake: return "mooncake";
  case TransferBackend::nixl: return "nixl";
  case TransferBackend::mori: return "mori";
  case TransferBackend::ascend: return "ascend";
  case TransferBackend::fake: return "fake";
  case TransferBackend::mooncake_tcp: return "mooncake_tcp";
  }
  return "?";
}

} // namespace pdcheck
