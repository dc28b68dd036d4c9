// mooncake registration decoder (see fuzz_registration.hpp).

#include "fuzz_registration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  return pdcheck::fuzz::fuzz_registration(pdcheck::TransferBackend::mooncake, data, size);
}
