#include "probe/device_info.hpp"
#include "probe/qp_plan.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace pdcheck::probe;

namespace {

GidBytes v4(int a, int b, int c, int d)
{
  GidBytes g{};
  g[10] = 0xff;
  g[11] = 0xff;
  g[12] = static_cast<std::uint8_t>(a);
  g[13] = static_cast<std::uint8_t>(b);
  g[14] = static_cast<std::uint8_t>(c);
  g[15] = static_cast<std::uint8_t>(d);
  return g;
}

GidBytes link_local_v6()
{
  GidBytes g{};
  g[0] = 0xfe;
  g[1] = 0x80;
  g[15] = 0x42;
  return g;
}

} // namespace

TEST_CASE("probe::choose_gid_index: prefers RoCE v2 with a routable IPv4 address", "[probe]")
{
  // The usual mlx5 RoCE table: v1/v2 pairs for the link-local IPv6 and the IPv4 address.
  std::vector<GidEntry> gids = {
    {0, link_local_v6(), GidType::roce_v1, "eth0"},
    {1, link_local_v6(), GidType::roce_v2, "eth0"},
    {2, v4(10, 0, 0, 5), GidType::roce_v1, "eth0"},
    {3, v4(10, 0, 0, 5), GidType::roce_v2, "eth0"},
  };
  CHECK(choose_gid_index(gids) == 3);

  SECTION("RoCE v2 IPv6 beats RoCE v1 IPv4")
  {
    gids.erase(gids.begin() + 3);
    CHECK(choose_gid_index(gids) == 1);
  }
  SECTION("a link-local IPv4 ranks below a global one")
  {
    gids.push_back({4, v4(169, 254, 1, 1), GidType::roce_v2, "eth0"});
    CHECK(choose_gid_index(gids) == 3);
  }
}

TEST_CASE("probe::choose_gid_index: never picks an empty GID; none when all are empty", "[probe]")
{
  std::vector<GidEntry> gids = {{0, GidBytes{}, GidType::roce_v2, ""}, {1, GidBytes{}, GidType::roce_v2, ""}};
  CHECK_FALSE(choose_gid_index(gids).has_value());
  gids.push_back({5, link_local_v6(), GidType::ib, ""});
  CHECK(choose_gid_index(gids) == 5);
}

TEST_CASE("probe::gid_to_string: round-trips and rejects malformed text", "[probe]")
{
  const GidBytes g = v4(192, 168, 1, 20);
  const std::string s = gid_to_string(g);
  CHECK(s == "0000:0000:0000:0000:0000:ffff:c0a8:0114");
  CHECK(gid_from_string(s) == g);
  CHECK(gid_ipv4(g) == "192.168.1.20");
  CHECK_FALSE(gid_from_string(s + "0").has_value());
  CHECK_FALSE(gid_from_string("0000:0000:0000:0000:0000:ffff:c0a8:01x4").has_value());
}

TEST_CASE("probe::line rate: speed x width from the verbs codes", "[probe]")
{
  CHECK(speed_code_gbps(128) * width_code_lanes(2) == Approx(425.0)); // NDR 4x
  CHECK(speed_code_gbps(64) * width_code_lanes(2) == Approx(212.5));  // HDR 4x
  CHECK(speed_code_gbps(3) == 0);
  CHECK(mtu_code_bytes(5) == 4096);
  CHECK(mtu_bytes_code(1024) == 3);
  CHECK(mtu_bytes_code(9000) == 0);
}

TEST_CASE("probe::choose_path: MTU minimum, GRH on Ethernet, refusals", "[probe]")
{
  SECTION("the smaller active MTU wins")
  {
    const PathChoice c = choose_path(4096, 1024, "Ethernet", v4(10, 0, 0, 1), v4(10, 0, 0, 2));
    CHECK_FALSE(c.refusal);
    CHECK(c.path_mtu == 1024);
    CHECK(c.use_grh);
  }
  SECTION("IB without a peer GID needs no GRH")
  {
    const PathChoice c = choose_path(4096, 4096, "InfiniBand", GidBytes{}, GidBytes{});
    CHECK_FALSE(c.refusal);
    CHECK_FALSE(c.use_grh);
  }
  SECTION("an empty GID on RoCE is refused with the reason")
  {
    const PathChoice c = choose_path(1024, 1024, "Ethernet", GidBytes{}, v4(10, 0, 0, 2));
    REQUIRE(c.refusal);
    CHECK(c.refusal->find("empty GID") != std::string::npos);
  }
  SECTION("IPv4 against IPv6 is refused")
  {
    const PathChoice c = choose_path(1024, 1024, "Ethernet", v4(10, 0, 0, 1), link_local_v6());
    REQUIRE(c.refusal);
    CHECK(c.refusal->find("GID families differ") != std::string::npos);
  }
  SECTION("a non-verbs MTU is refused")
  {
    CHECK(choose_path(9000, 1024, "Ethernet", v4(10, 0, 0, 1), v4(10, 0, 0, 2)).refusal);
  }
}

TEST_CASE("probe::qp transitions: RTR carries the peer and the path, RTS the retry policy", "[probe]")
{
  PeerQp peer;
  peer.qpn = 0x1234;
  peer.psn = 77;
  peer.gid = v4(10, 0, 0, 2);
  const PathChoice path = choose_path(4096, 1024, "Ethernet", v4(10, 0, 0, 1), peer.gid);
  const QpTransition rtr = qp_to_rtr(1, peer, path, 3);
  CHECK(rtr.target == "RTR");
  CHECK(rtr.dest_qpn == 0x1234);
  CHECK(rtr.rq_psn == 77);
  CHECK(rtr.path_mtu == 1024);
  CHECK(rtr.use_grh);
  CHECK(rtr.sgid_index == 3);
  CHECK(std::count(rtr.mask.begin(), rtr.mask.end(), QpField::av) == 1);
  const QpTransition rts = qp_to_rts(99);
  CHECK(rts.sq_psn == 99);
  CHECK(rts.timeout == 14);
  CHECK(rts.retry_cnt == 7);
  CHECK(qp_to_init(2).port == 2);
  CHECK(qp_to_init(2).remote_write);
}

TEST_CASE("probe::devices_to_json: every port with GIDs and the chosen index", "[probe]")
{
  DeviceInfo d;
  d.name = "mlx5_0";
  PortInfo p;
  p.state = "ACTIVE";
  p.link_layer = "Ethernet";
  p.active_mtu = 1024;
  p.speed_gbps_per_lane = 53.125;
  p.width_lanes = 4;
  p.gids = {{3, v4(10, 0, 0, 5), GidType::roce_v2, "eth0"}};
  p.chosen_gid_index = 3;
  d.ports.push_back(p);
  const auto j = devices_to_json({d});
  CHECK(j["devices"][0]["ports"][0]["line_rate_gbps"] == 212.5);
  CHECK(j["devices"][0]["ports"][0]["gids"][0]["type"] == "RoCE v2");
  CHECK(j["devices"][0]["ports"][0]["gids"][0]["family"] == "IPv4");
  CHECK(j["devices"][0]["ports"][0]["chosen_gid_index"] == 3);
  CHECK(devices_to_text({d}).find("<- chosen") != std::string::npos);
}
