#pragma once

// A running prefill's bootstrap server for tests of check --prefill-url and
// fleet: the answers of SGLang's current bootstrap server (PrefillServerInfo).

#include "loopback_http.hpp"

#include <fmt/format.h>

#include <string>

namespace pdcheck::test {

/// A prefill bootstrap server of today (PrefillServerInfo) that answers for a
/// prefill of attention TP `attn_tp` with every rank registered.
inline LoopbackServer bootstrap_server(int attn_tp)
{
  return LoopbackServer([attn_tp](const httplib::Request& req) {
    if (req.path == "/health") {
      return Reply{200, "OK"};
    }
    if (req.path != "/route") {
      return Reply{404, "Not Found"};
    }
    if (req.get_param_value("target_tp_rank") == "-1") {
      return Reply{200,
                   fmt::format(R"({{"attn_tp_size": {}, "attn_cp_size": 1, "dp_size": 1, "pp_size": 1, "page_size": 1,
                                  "kv_cache_dtype": "auto", "follow_bootstrap_room": true}})",
                               attn_tp),
                   "application/json"};
    }
    return Reply{200, fmt::format(R"({{"rank_ip": "10.0.0.1", "rank_port": {}}})",
                                  41000 + std::stoi(req.get_param_value("target_tp_rank"))),
                 "application/json"};
  });
}

} // namespace pdcheck::test
