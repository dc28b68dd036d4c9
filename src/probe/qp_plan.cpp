#include "probe/qp_plan.hpp"

namespace pdcheck::probe {

QpTransition qp_to_init(int port)
{
  QpTransition t;
  t.target = "INIT";
  t.mask = {QpField::state, QpField::pkey_index, QpField::port, QpField::access_flags};
  t.port = port;
  // The decode side is written into; the prefill side only posts writes, but
  // both get the flag so either end can be the target of a later probe mode.
  t.remote_write = true;
  t.hint = "the port number (--ib-port) and that the device is not in use by a stale process";
  return t;
}

QpTransition qp_to_rtr(int port, const PeerQp& peer, const PathChoice& path, int sgid_index)
{
  QpTransition t;
  t.target = "RTR";
  t.mask = {QpField::state,  QpField::av,       QpField::path_mtu,           QpField::dest_qpn,
            QpField::rq_psn, QpField::max_dest_rd_atomic, QpField::min_rnr_timer};
  t.port = port;
  t.path_mtu = path.path_mtu;
  t.dest_qpn = peer.qpn;
  t.rq_psn = peer.psn;
  t.dlid = peer.lid;
  t.use_grh = path.use_grh;
  t.dgid = peer.gid;
  t.sgid_index = sgid_index;
  // One router hop is never enough for routed RoCE v2 fabrics; 64 is the
  // customary IP TTL.
  t.hop_limit = 64;
  t.max_rd_atomic = 1;
  t.min_rnr_timer = 12;
  t.hint = "MTU, GID index and GID, peer LID and QP number (a RoCE port needs a non-empty GID at --gid-index)";
  return t;
}

QpTransition qp_to_rts(std::uint32_t sq_psn)
{
  QpTransition t;
  t.target = "RTS";
  t.mask = {QpField::state, QpField::timeout, QpField::retry_cnt, QpField::rnr_retry, QpField::sq_psn,
            QpField::max_qp_rd_atomic};
  // 4.096 us * 2^14 = 67 ms per retry, 7 retries: a wrong GID or route fails in
  // about half a second with "transport retry counter exceeded", not minutes.
  t.timeout = 14;
  t.retry_cnt = 7;
  t.rnr_retry = 7;
  t.sq_psn = sq_psn;
  t.max_rd_atomic = 1;
  t.hint = "QP timeout and retry settings; the peer QP must already be in RTR";
  return t;
}

} // namespace pdcheck::probe
