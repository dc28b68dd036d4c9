// Bodies a bootstrap server, an SGLang server or a router send: the server
// info, a rank's endpoint, a server's /server_info, a router's worker list,
// and the URL an operator types. Each is read, or refused with a one-line
// problem or InputError; nothing else escapes. The first byte picks the reader.

#include "check/bootstrap.hpp"
#include "check/fleet.hpp"
#include "sglang/server_info.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

#include <nlohmann/json.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  if (size == 0) {
    return 0;
  }
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 5) {
    case 0: {
      const check::InfoParse p = check::parse_server_info(body);
      if (p.info) {
        // The ranks it announces stay bounded, and each has a query.
        for (const check::RankId& r : check::rank_ids(*p.info)) {
          (void)check::rank_target(*p.info, r);
        }
      } else if (p.problem.empty()) {
        fuzz::invariant_broken("an unreadable server info without a problem");
      }
      break;
    }
    case 1: {
      const check::RankParse p = check::parse_rank_info(body, check::RankId{0, 0, 1, 0});
      if (!p.endpoint && p.problem.empty()) {
        fuzz::invariant_broken("an unreadable rank endpoint without a problem");
      }
      break;
    }
    case 2: (void)check::parse_bootstrap_url(body); break;
    case 3: {
      const auto j = nlohmann::json::parse(body, nullptr, false);
      if (!j.is_discarded()) {
        (void)check::parse_router_workers(j, "fuzz");
      }
      break;
    }
    default: {
      const auto j = nlohmann::json::parse(body, nullptr, false);
      if (!j.is_discarded()) {
        (void)sglang::launch_from_server_info(j, "fuzz");
      }
      break;
    }
    }
  } catch (const InputError&) {
  }
  return 0;
}
