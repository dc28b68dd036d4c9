#pragma once

// The attributes of each RC QP transition, decided as plain data so that the
// choices (timeouts, retries, GRH, PSNs) are unit-tested without verbs
// headers; verbs_transport.cpp copies them field by field into ibv_qp_attr and
// turns `mask` into IBV_QP_* flags.

#include "probe/device_info.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pdcheck::probe {

/// The attribute names a transition sets, in the order of rc_pingpong's
/// vertical mask lists (one flag per line there, one value here).
enum class QpField {
  state,
  pkey_index,
  port,
  access_flags,
  path_mtu,
  dest_qpn,
  rq_psn,
  max_dest_rd_atomic,
  min_rnr_timer,
  av,
  timeout,
  retry_cnt,
  rnr_retry,
  sq_psn,
  max_qp_rd_atomic,
};

/// What the peer told us in the handshake.
struct PeerQp
{
  std::uint32_t qpn = 0;
  std::uint32_t psn = 0;
  int lid = 0;
  GidBytes gid{};
  int mtu = 0; ///< active MTU in bytes
};

struct QpTransition
{
  std::string target; ///< "INIT", "RTR", "RTS"
  std::vector<QpField> mask;
  int port = 1;
  bool remote_write = false;
  int path_mtu = 0; ///< bytes
  std::uint32_t dest_qpn = 0;
  std::uint32_t rq_psn = 0;
  std::uint32_t sq_psn = 0;
  int dlid = 0;
  bool use_grh = false;
  GidBytes dgid{};
  int sgid_index = 0;
  int hop_limit = 0;
  int timeout = 0;   ///< 4.096 us * 2^timeout per retry
  int retry_cnt = 0;
  int rnr_retry = 0;
  int min_rnr_timer = 0;
  int max_rd_atomic = 0;
  /// What to check when the transition fails (Mooncake's per-stage hints).
  std::string hint;
};

QpTransition qp_to_init(int port);
QpTransition qp_to_rtr(int port, const PeerQp& peer, const PathChoice& path, int sgid_index);
QpTransition qp_to_rts(std::uint32_t sq_psn);

} // namespace pdcheck::probe
