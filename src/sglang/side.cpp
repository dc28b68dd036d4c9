#include "sglang/side.hpp"

namespace pdcheck::sglang {

std::string_view role_name(Role r)
{
  return r == Role::prefill ? "prefill" : "decode";
}

} // namespace pdcheck::sglang
