#include "probe/fake_transport.hpp"
#include "probe/oob.hpp"
#include "probe/tcp_transport.hpp"
#include "probe/write_engine.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <optional>
#include <random>
#include <thread>
#include <vector>

using namespace pdcheck::probe;

namespace {

std::vector<std::uint8_t> ramp(std::size_t n)
{
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<std::uint8_t>(i * 7 + 1);
  }
  return v;
}

/// `count` writes of `chunk` bytes from src to the same offsets of dst.
std::vector<WriteOp> chunks(const std::vector<std::uint8_t>& src, const RegionKey& local, const RegionKey& remote,
                            std::size_t chunk)
{
  std::vector<WriteOp> ops;
  for (std::size_t at = 0; at < src.size(); at += chunk) {
    ops.push_back(WriteOp{src.data() + at, local.lkey, remote.addr + at, remote.rkey,
                          std::min<std::uint64_t>(chunk, src.size() - at)});
  }
  return ops;
}

/// A fake initiator connected to a fake target, a source ramp of `size`
/// bytes registered on the initiator and a zeroed destination on the target.
struct FakePair
{
  std::shared_ptr<FakeFabric> fabric = std::make_shared<FakeFabric>();
  FakeVerbsTransport target{fabric};
  FakeVerbsTransport initiator;
  std::vector<std::uint8_t> src;
  std::vector<std::uint8_t> dst;
  RegionKey lk;
  RegionKey rk;

  FakePair(std::size_t size, std::size_t max_outstanding, std::optional<FakeFault> fault = std::nullopt,
           std::size_t lanes = 1)
    : initiator(fabric, max_outstanding, std::move(fault), lanes), src(ramp(size)), dst(size, 0)
  {
    lk = initiator.register_region(src.data(), src.size());
    rk = target.register_region(dst.data(), dst.size());
    target.connect(initiator.local_endpoint(), false, Deadline::never());
    initiator.connect(target.local_endpoint(), true, Deadline::never());
  }

  std::vector<WriteOp> writes_of(std::size_t chunk) const { return chunks(src, lk, rk, chunk); }
};

} // namespace

TEST_CASE("probe::execute_writes: batches, bounded outstanding, every byte placed (fake verbs)", "[probe]")
{
  FakePair f(100000, 16);
  WriteOptions opt;
  opt.batch = 4;
  opt.max_outstanding = 12;
  const WriteStats s = execute_writes(f.initiator, f.writes_of(1000), opt, Deadline::after(5));
  CHECK_FALSE(s.first_error);
  CHECK(s.work_requests == 100);
  CHECK(s.signalled == 25);
  CHECK(s.bytes == 100000);
  CHECK(f.dst == f.src);
  CHECK(f.initiator.peak_outstanding() <= 12);
}

TEST_CASE("probe::execute_writes: splits writes longer than the message limit", "[probe]")
{
  auto fabric = std::make_shared<FakeFabric>();
  FakeVerbsTransport t(fabric);
  std::vector<std::uint8_t> src = ramp(10000);
  std::vector<std::uint8_t> dst(src.size(), 0);
  const RegionKey lk = t.register_region(src.data(), src.size());
  const RegionKey rk = t.register_region(dst.data(), dst.size());
  t.connect(t.local_endpoint(), true, Deadline::never());
  WriteOptions opt;
  opt.max_message = 3000;
  const std::vector<WriteOp> ops = {WriteOp{src.data(), lk.lkey, rk.addr, rk.rkey, 10000}};
  const WriteStats s = execute_writes(t, ops, opt, Deadline::after(5));
  CHECK(s.work_requests == 4);
  CHECK(dst == src);
}

TEST_CASE("probe::execute_writes: an error completion stops the transfer and flushes the rest", "[probe]")
{
  FakePair f(40000, 64, FakeFault{10, "transport retry counter exceeded"});
  const auto& src = f.src;
  const auto& dst = f.dst;
  WriteOptions opt;
  opt.batch = 8;
  opt.max_outstanding = 32;
  const WriteStats s = execute_writes(f.initiator, f.writes_of(1000), opt, Deadline::after(5));
  REQUIRE(s.first_error);
  CHECK(*s.first_error == "transport retry counter exceeded");
  CHECK(s.failed_wr == 10u);
  // Partial failure: the first ten writes landed, the failed one and later did not.
  CHECK(std::equal(src.begin(), src.begin() + 10000, dst.begin()));
  CHECK(std::all_of(dst.begin() + 10000, dst.end(), [](std::uint8_t b) { return b == 0; }));
  CHECK(s.bytes == 10000);
  CHECK(s.flushed > 0);
  CHECK(s.other_errors == 0);
  CHECK_FALSE(s.timed_out);
  // Nothing more was posted once the error was seen.
  CHECK(s.work_requests < 40);
}

TEST_CASE("probe::execute_writes: a write outside the registered region is a remote access error", "[probe]")
{
  auto fabric = std::make_shared<FakeFabric>();
  FakeVerbsTransport t(fabric);
  std::vector<std::uint8_t> src = ramp(2000);
  std::vector<std::uint8_t> dst(1000, 0);
  const RegionKey lk = t.register_region(src.data(), src.size());
  const RegionKey rk = t.register_region(dst.data(), dst.size());
  t.connect(t.local_endpoint(), true, Deadline::never());
  const std::vector<WriteOp> ops = {WriteOp{src.data(), lk.lkey, rk.addr + 500, rk.rkey, 1000}};
  const WriteStats s = execute_writes(t, ops, WriteOptions{}, Deadline::after(5));
  REQUIRE(s.first_error);
  CHECK(*s.first_error == "remote access error");
}

TEST_CASE("probe::execute_writes: batches dealt over several queue pairs, each bounded on its own", "[probe]")
{
  FakePair f(100000, 8, std::nullopt, 4);
  auto& initiator = f.initiator;
  const auto& src = f.src;
  const auto& dst = f.dst;
  const auto writes = f.writes_of(1000);
  WriteOptions opt;
  opt.batch = 4;
  opt.max_outstanding = 8;
  SECTION("as many lanes as asked")
  {
    opt.lanes = 4;
    const WriteStats s = execute_writes(initiator, writes, opt, Deadline::after(5));
    CHECK_FALSE(s.first_error);
    CHECK(s.lanes == 4);
    CHECK(initiator.lanes_used() == 4);
    // 100 writes in batches of 4: 25 batches, one signalled completion each.
    CHECK(s.work_requests == 100);
    CHECK(s.signalled == 25);
    CHECK(s.bytes == 100000);
    CHECK(dst == src);
    // The bound holds per queue pair (the fake's send queue would refuse more).
    CHECK(initiator.peak_outstanding() <= 8);
  }
  SECTION("no more lanes than the transport has")
  {
    opt.lanes = 9;
    const WriteStats s = execute_writes(initiator, writes, opt, Deadline::after(5));
    CHECK(s.lanes == 4);
    CHECK(dst == src);
  }
  SECTION("one lane unless asked")
  {
    const WriteStats s = execute_writes(initiator, writes, opt, Deadline::after(5));
    CHECK(s.lanes == 1);
    CHECK(initiator.lanes_used() == 1);
    CHECK(dst == src);
  }
}

TEST_CASE("probe::execute_writes: an error on one queue pair flushes that one, and bytes count what landed",
          "[probe]")
{
  // Writes of 1000 bytes in batches of 2 dealt over 3 lanes (lane 0 gets
  // writes 0-1, 6-7, ...); the fault hits the fail_at-th request the fake NIC
  // executes, which serves the lanes in turn. Writes already outstanding on
  // the other lanes still land after the error, and count.
  for (std::uint64_t fail_at : {0u, 1u, 4u, 7u, 13u}) {
    for (std::size_t poll_limit : {std::size_t{64}, std::size_t{1}}) {
      CAPTURE(fail_at, poll_limit);
      FakePair f(30000, 6, FakeFault{fail_at, "transport retry counter exceeded"}, 3);
      // One request a poll: the other lanes' completions come after the error.
      f.initiator.set_poll_limit(poll_limit);
      const auto& src = f.src;
      const auto& dst = f.dst;
      WriteOptions opt;
      opt.batch = 2;
      opt.max_outstanding = 6;
      opt.lanes = 3;
      const WriteStats s = execute_writes(f.initiator, f.writes_of(1000), opt, Deadline::after(5));
      REQUIRE(s.first_error);
      CHECK(*s.first_error == "transport retry counter exceeded");
      CHECK_FALSE(s.timed_out);
      // Every 1000-byte write either landed whole or not at all (ramp() has no
      // zero byte), and the bytes reported are exactly those that landed.
      std::int64_t landed = 0;
      for (std::size_t at = 0; at < src.size(); at += 1000) {
        const bool whole = std::equal(src.begin() + at, src.begin() + at + 1000, dst.begin() + at);
        const bool none = std::all_of(dst.begin() + at, dst.begin() + at + 1000, [](std::uint8_t b) { return b == 0; });
        CHECK((whole || none));
        landed += whole ? 1000 : 0;
      }
      CHECK(s.bytes == landed);
      REQUIRE(s.failed_wr);
      CHECK(std::all_of(dst.begin() + *s.failed_wr * 1000, dst.begin() + *s.failed_wr * 1000 + 1000,
                        [](std::uint8_t b) { return b == 0; }));
      // Nothing is posted once the error is seen: at most what ran up to it
      // plus what three lanes of six can hold.
      CHECK(s.work_requests <= static_cast<std::int64_t>(fail_at + 1 + 3 * 6));
    }
  }
}

TEST_CASE("probe::execute_writes: a slow queue pair is passed over, not waited for", "[probe]")
{
  // 40 writes of 1000 bytes in batches of 2 over 2 lanes of 4: lanes 0 and 1
  // each take two batches and are full. Lane 0 then runs nothing for 5 polls,
  // while each poll lets lane 1 finish its 4. Waiting for lane 0 would find
  // the second poll empty, which the fake reports as the deadline passing;
  // passing it over keeps lane 1 busy until lane 0 resumes.
  FakePair f(40000, 4, std::nullopt, 2);
  f.initiator.pause_lane(0, 5);
  WriteOptions opt;
  opt.batch = 2;
  opt.max_outstanding = 4;
  opt.lanes = 2;
  const WriteStats s = execute_writes(f.initiator, f.writes_of(1000), opt, Deadline::after(5));
  CHECK_FALSE(s.timed_out);
  CHECK_FALSE(s.first_error);
  CHECK(s.bytes == 40000);
  CHECK(f.src == f.dst);
  CHECK(f.initiator.posted_on(0) + f.initiator.posted_on(1) == 40);
  CHECK(f.initiator.posted_on(1) > f.initiator.posted_on(0));
  CHECK(f.initiator.peak_outstanding() <= 4);
}

TEST_CASE("probe::execute_writes: a second queue pair failing on its own is an error, not a flush", "[probe]")
{
  // 8 writes of 1000 bytes in batches of 4 over 2 lanes: writes 0-3 on lane 0,
  // 4-7 on lane 1. Writes 3 and 7 point past the destination, so each lane
  // fails on its last request: 0-2 and 4-6 land (6000 bytes) without a
  // completion entry of their own.
  FakePair f(8000, 8, std::nullopt, 2);
  std::vector<WriteOp> ops = f.writes_of(1000);
  ops[3].remote_addr += 8000;
  ops[7].remote_addr += 8000;
  WriteOptions opt;
  opt.batch = 4;
  opt.lanes = 2;
  const WriteStats s = execute_writes(f.initiator, ops, opt, Deadline::after(5));
  REQUIRE(s.first_error);
  CHECK(*s.first_error == "remote access error");
  CHECK_FALSE(s.timed_out);
  CHECK(s.bytes == 6000);
  CHECK(s.other_errors == 1);
  CHECK(s.flushed == 0);
  CHECK(std::equal(f.src.begin(), f.src.begin() + 3000, f.dst.begin()));
  CHECK(std::equal(f.src.begin() + 4000, f.src.begin() + 7000, f.dst.begin() + 4000));
}

TEST_CASE("probe::execute_writes: random sizes, batches, bounds and lanes place every byte", "[probe]")
{
  std::mt19937 rng(20261206);
  for (int round = 0; round < 200; ++round) {
    const std::size_t size = 1 + rng() % 50000;
    const std::size_t chunk = 1 + rng() % 3000;
    const std::size_t lanes = 1 + rng() % 5;
    const std::size_t cap = 1 + rng() % 20;
    CAPTURE(round, size, chunk, lanes, cap);
    FakePair f(size, cap, std::nullopt, lanes);
    WriteOptions opt;
    opt.batch = 1 + rng() % 24;
    opt.max_outstanding = 1 + rng() % 24;
    opt.max_message = 1 + rng() % 4000;
    opt.lanes = 1 + rng() % 6;
    const WriteStats s = execute_writes(f.initiator, f.writes_of(chunk), opt, Deadline::after(5));
    REQUIRE_FALSE(s.first_error);
    CHECK_FALSE(s.timed_out);
    CHECK(s.bytes == static_cast<std::int64_t>(size));
    CHECK(s.lanes == static_cast<std::int64_t>(std::min(opt.lanes, lanes)));
    CHECK(f.initiator.peak_outstanding() <= std::min(opt.max_outstanding, cap));
    CHECK(f.dst == f.src);
  }
}

TEST_CASE("probe::TcpTransport: writes land in the target's registered memory over loopback", "[probe]")
{
  TcpTransport target("127.0.0.1", 5);
  TcpTransport initiator("127.0.0.1", 5);
  std::vector<std::uint8_t> src = ramp(3 << 20);
  std::vector<std::uint8_t> dst(src.size(), 0);
  const RegionKey lk = initiator.register_region(src.data(), src.size());
  const RegionKey rk = target.register_region(dst.data(), dst.size());
  target.connect(initiator.local_endpoint(), false, Deadline::after(5));
  nlohmann::json peer = target.local_endpoint();
  peer["host"] = "127.0.0.1";
  initiator.connect(peer, true, Deadline::after(5));

  SECTION("every byte arrives, completions come back")
  {
    const WriteStats s = execute_writes(initiator, chunks(src, lk, rk, 65536), WriteOptions{}, Deadline::after(10));
    CHECK_FALSE(s.first_error);
    CHECK(s.bytes == static_cast<std::int64_t>(src.size()));
    CHECK(dst == src);
  }
  SECTION("out of bounds: remote access error, later writes flushed and not placed")
  {
    std::vector<WriteOp> ops = {WriteOp{src.data(), lk.lkey, rk.addr + dst.size() - 10, rk.rkey, 100},
                                WriteOp{src.data(), lk.lkey, rk.addr, rk.rkey, 100}};
    WriteOptions opt;
    opt.batch = 1;
    const WriteStats s = execute_writes(initiator, ops, opt, Deadline::after(10));
    REQUIRE(s.first_error);
    CHECK(*s.first_error == "remote access error");
    CHECK(dst[0] == 0);
  }
  CHECK(initiator.shutdown().empty());
  CHECK(target.shutdown().empty());
}

namespace {

/// A data-connection frame as a hostile initiator writes it: the header
/// (magic "PDW1", signalled, work request id, remote address, rkey, length,
/// little-endian) and `payload` bytes of 0xEE.
void send_write_frame(int fd, std::uint64_t addr, std::uint32_t rkey, std::uint64_t length, std::size_t payload)
{
  std::vector<std::uint8_t> f(40 + payload, 0xEE);
  const auto put = [&f](std::size_t at, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
      f[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
    }
  };
  put(0, 0x31574450, 4);
  put(4, 1, 4);
  put(8, 77, 8);
  put(16, addr, 8);
  put(24, rkey, 4);
  put(32, length, 8);
  send_all(fd, f.data(), f.size(), Deadline::after(5), Phase::write);
}

/// The status word of the target's reply (0 ok, 1 remote access error).
std::uint32_t reply_status(int fd)
{
  std::uint8_t r[16];
  recv_exact(fd, r, sizeof r, Deadline::after(5), Phase::completion);
  return static_cast<std::uint32_t>(r[8] | (r[9] << 8) | (r[10] << 16) | (r[11] << 24));
}

} // namespace

TEST_CASE("probe::TcpTransport: a hostile initiator writes nothing outside the registered regions", "[probe]")
{
  // Two registered regions side by side in the middle of a guarded buffer:
  // whatever the frames say, only bytes inside one region may change.
  std::vector<std::uint8_t> memory(4 * 4096, 0x5A);
  TcpTransport target("127.0.0.1", 2);
  const RegionKey a = target.register_region(memory.data() + 4096, 4096);
  const RegionKey b = target.register_region(memory.data() + 2 * 4096, 4096);
  target.connect(nlohmann::json::object(), false, Deadline::after(5));
  Fd peer = connect_to("127.0.0.1", target.local_endpoint()["data_port"].get<int>(), Deadline::after(5),
                       Phase::connect);

  SECTION("an rkey nobody registered")
  {
    send_write_frame(peer.get(), a.addr, a.rkey + b.rkey + 7, 16, 16);
    CHECK(reply_status(peer.get()) == 1);
  }
  SECTION("an address below the region")
  {
    send_write_frame(peer.get(), a.addr - 16, a.rkey, 32, 32);
    CHECK(reply_status(peer.get()) == 1);
  }
  SECTION("a write running from one region into the next")
  {
    send_write_frame(peer.get(), a.addr + 4000, a.rkey, 200, 200);
    CHECK(reply_status(peer.get()) == 1);
  }
  SECTION("a length that wraps the address space")
  {
    send_write_frame(peer.get(), a.addr + 8, a.rkey, ~std::uint64_t{0} - 4, 64);
  }
  SECTION("a length of 2^63, then the peer goes quiet")
  {
    send_write_frame(peer.get(), a.addr, a.rkey, std::uint64_t{1} << 63, 64);
  }
  SECTION("after an error, even a valid write is flushed, not placed")
  {
    send_write_frame(peer.get(), b.addr + 4096, b.rkey, 1, 1);
    CHECK(reply_status(peer.get()) == 1);
    send_write_frame(peer.get(), a.addr, a.rkey, 16, 16);
    CHECK(reply_status(peer.get()) == 2);
  }
  // Shutting down ends a receiver still draining a huge length (bounded
  // memory: it drains through a fixed scratch buffer).
  const auto t0 = std::chrono::steady_clock::now();
  target.shutdown();
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(std::all_of(memory.begin(), memory.end(), [](std::uint8_t v) { return v == 0x5A; }));
}

TEST_CASE("probe::oob: every wait has a deadline", "[probe]")
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  CHECK(l.port() > 0);

  SECTION("accept without a peer times out with the phase and a hint")
  {
    const auto t0 = std::chrono::steady_clock::now();
    try {
      l.accept(Deadline::after(0.2), Phase::handshake);
      FAIL("accept returned");
    } catch (const ProbeError& e) {
      CHECK(e.phase() == Phase::handshake);
      CHECK(std::string(e.what()).rfind("handshake: no peer connected", 0) == 0);
      CHECK_FALSE(e.hint().empty());
    }
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
  }
  SECTION("a silent peer times out a read; a closed one is named")
  {
    Fd client = connect_to("127.0.0.1", l.port(), Deadline::after(2), Phase::handshake);
    Fd server = l.accept(Deadline::after(2), Phase::handshake);
    CHECK_THROWS_WITH(recv_message(server.get(), Deadline::after(0.2), Phase::handshake, "hello"),
                      Catch::Contains("timed out waiting for the peer"));
    send_message(client.get(), {{"type", "hello"}, {"n", 1}}, Deadline::after(1), Phase::handshake);
    CHECK(recv_message(server.get(), Deadline::after(1), Phase::handshake, "hello")["n"] == 1);
    client = Fd();
    CHECK_THROWS_WITH(recv_message(server.get(), Deadline::after(1), Phase::handshake, "hello"),
                      Catch::Contains("peer closed the connection"));
  }
  SECTION("garbage from a non-pdcheck peer is refused")
  {
    Fd client = connect_to("127.0.0.1", l.port(), Deadline::after(2), Phase::handshake);
    Fd server = l.accept(Deadline::after(2), Phase::handshake);
    const char junk[] = "GET / HTTP/1.1\r\n\r\n";
    send_all(client.get(), junk, sizeof junk - 1, Deadline::after(1), Phase::handshake);
    // "GET " read as a frame length is 1195725856 bytes.
    CHECK_THROWS_WITH(recv_message(server.get(), Deadline::after(1), Phase::handshake, "hello"),
                      "handshake: the peer's hello is 1195725856 bytes, over the limit of 4194304 bytes for a probe "
                      "message; check: that the peer is `pdcheck probe` of the same version, not another service");
  }
}

TEST_CASE("probe::parse_host_port: strict forms", "[probe]")
{
  CHECK(parse_host_port("10.0.0.1:18515", "--connect").port == 18515);
  CHECK(parse_host_port("[::1]:5", "--connect").host == "::1");
  CHECK(parse_host_port(":7000", "--listen").host == "0.0.0.0");
  CHECK_THROWS_AS(parse_host_port("host", "--connect"), pdcheck::InputError);
  CHECK_THROWS_AS(parse_host_port("host:99999", "--connect"), pdcheck::InputError);
}
