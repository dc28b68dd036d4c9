#include "wire/int_lists.hpp"
#include "wire/transfer_info.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

using namespace pdcheck::wire;
using pdcheck::TransferBackend;

namespace {

// A random TransferInfo that `backend` in `shape` can carry exactly: the
// fields SGLang always re-sends (decode_prefix_len as "0", is_dummy as "0"/"1")
// are set the way they come back.
TransferInfo random_transfer_info(std::mt19937_64& rng, TransferBackend backend, Generation shape, bool dummy)
{
  auto below = [&](std::uint64_t n) { return static_cast<std::int64_t>(rng() % n); };
  TransferInfo t;
  t.backend = backend;
  t.generation = shape;
  t.room = static_cast<std::int64_t>(rng() >> 2);
  t.endpoint = fmt::format("10.0.{}.{}", below(256), below(256));
  t.dst_port = below(65536);
  t.required_dst_info_num = 1 + below(8);
  const bool comp = shape == Generation::components;
  switch (backend) {
  case TransferBackend::mooncake: t.mooncake_session_id = fmt::format("{}:{}", t.endpoint, below(65536)); break;
  case TransferBackend::mori: t.engine_key = fmt::format("io-decode-{}", rng()); break;
  case TransferBackend::nixl:
    t.agent_name = fmt::format("agent-{}", rng());
    t.dst_aux_index = below(1000);
    break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
  if (!dummy) {
    t.dst_kv_indices.resize(static_cast<std::size_t>(1 + below(6)));
    for (auto& v : t.dst_kv_indices) {
      v = static_cast<std::int32_t>(rng());
    }
    t.dst_aux_index = below(1000);
    if (comp) {
      t.dst_state_indices.resize(static_cast<std::size_t>(below(4)));
      for (auto& list : t.dst_state_indices) {
        list.resize(static_cast<std::size_t>(below(3)));
        for (auto& v : list) {
          v = static_cast<std::int32_t>(rng());
        }
      }
    } else if (below(2) == 1) {
      t.dst_state_indices = {{static_cast<std::int32_t>(below(4096))}};
    }
  }
  if (comp) {
    switch (backend) {
    case TransferBackend::mooncake:
      t.decode_prefix_len = below(100);
      if (!dummy && below(2) == 1) {
        t.dst_device_kv_indices = std::vector<std::int32_t>{static_cast<std::int32_t>(below(99))};
      }
      break;
    case TransferBackend::mori:
      if (!dummy && below(2) == 1) {
        t.decode_prefix_len = 1 + below(100);
      }
      break;
    case TransferBackend::nixl:
      t.decode_prefix_len = dummy ? 0 : below(100);
      t.is_dummy_rank = dummy;
      t.transfer_generation = fmt::format("g{}", rng());
      break;
    case TransferBackend::ascend:
    case TransferBackend::fake:
    case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
    }
  }
  if (backend == TransferBackend::mori && !t.dst_aux_index) {
    t.dst_aux_index = -1;
  }
  t.is_dummy = dummy;
  return t;
}

} // namespace

TEST_CASE("TransferInfo: decode(encode(x)) == x for every backend and shape", "[wire][transfer_info][property]")
{
  const auto [backend, shape] = GENERATE(table<TransferBackend, Generation>({
    {TransferBackend::mooncake, Generation::flat},
    {TransferBackend::mooncake, Generation::components},
    {TransferBackend::mori, Generation::flat},
    {TransferBackend::mori, Generation::components},
    {TransferBackend::nixl, Generation::flat},
    {TransferBackend::nixl, Generation::components},
  }));
  const bool dummy = GENERATE(false, true);
  std::mt19937_64 rng(GENERATE(range(1, 31)));
  const TransferInfo x = random_transfer_info(rng, backend, shape, dummy);
  INFO(fmt::format("{} {} dummy={}", transfer_backend_name(backend), generation_name(shape), dummy));
  const Frames frames = encode_transfer_info(x);
  const TransferInfoDecode forced = decode_transfer_info(backend, frames, shape);
  REQUIRE_FALSE(forced.problem);
  CHECK(*forced.transfer_info == x);
  const TransferInfoDecode detected = decode_transfer_info(backend, frames);
  REQUIRE_FALSE(detected.problem);
  CHECK(detected.transfer_info->generation == shape);
  CHECK(*detected.transfer_info == x);
}

TEST_CASE("each backend's own dummy rule", "[wire][transfer_info]")
{
  SECTION("mooncake: frames 4 and 5 empty; state indices then ignored")
  {
    Frames f = {to_bytes("5"), to_bytes("10.0.0.1"), to_bytes("1"), to_bytes("s"), {}, {},
                pack_int_lists(I32Lists{{3}}), to_bytes("1"), to_bytes("0"), {}};
    const auto d = decode_transfer_info(TransferBackend::mooncake, f);
    REQUIRE(d.transfer_info);
    CHECK(d.transfer_info->is_dummy);
    CHECK(d.transfer_info->dst_state_indices.empty());
    CHECK(d.notes.at(0) ==
          "frame 6 (dst_state_indices) holds 12 bytes that SGLang ignores because the message is a dummy");
  }
  SECTION("mori: no kv, no aux, no prefix len; a prefix len makes it real")
  {
    Frames f = {to_bytes("MoriMsgGuard"), to_bytes("5"), to_bytes("10.0.0.1"), to_bytes("1"), to_bytes("k"), {}, {},
                {}, to_bytes("1"), to_bytes("64")};
    const auto d = decode_transfer_info(TransferBackend::mori, f);
    REQUIRE(d.transfer_info);
    CHECK_FALSE(d.transfer_info->is_dummy);
    CHECK(d.transfer_info->dst_aux_index == -1);
    f.back() = {};
    CHECK(decode_transfer_info(TransferBackend::mori, f).transfer_info->is_dummy);
  }
  SECTION("nixl: the is_dummy frame decides")
  {
    TransferInfo t;
    t.backend = TransferBackend::nixl;
    t.is_dummy_rank = false;
    CHECK_FALSE(dummy_rule(t).first);
    t.is_dummy_rank.reset();
    CHECK(dummy_rule(t).first);
    t.decode_prefix_len = 16;
    CHECK(dummy_rule(t) == std::pair<bool, std::string>{
                             false, "nixl: no kv indices but a decode_prefix_len: not a dummy (aux and state still needed)"});
  }
}

TEST_CASE("TransferInfo problems name the frame and byte", "[wire][transfer_info]")
{
  Frames f = {to_bytes("MoriMsgGuard"), to_bytes("12"), to_bytes("10.0.0.1"), to_bytes("1"), to_bytes("k"),
              Bytes{1, 0, 0, 0, 2}, to_bytes("3"), {}, to_bytes("1"), {}};
  const auto d = decode_transfer_info(TransferBackend::mori, f);
  REQUIRE(d.problem);
  CHECK(d.problem->where("t.json") == "t.json: frame 5 (dst_kv_indices)");
  CHECK(d.problem->message() == "byte 4: expected an int32 array (4 bytes per element), got 1 byte left over; SGLang "
                                "would raise ValueError: buffer size must be a multiple of element size");
  const auto s = decode_transfer_info(TransferBackend::mori, f, std::nullopt, DecodeMode::sglang);
  REQUIRE(s.problem);
  CHECK(s.problem->sglang == "Mori catches it and logs 'Failed to parse transfer info message'; the request waits");
}

TEST_CASE("transfer_info_verdict says what the strict decode says, on valid and mangled frames", "[wire][transfer_info][property]")
{
  // `pdcheck capture` classifies every TransferInfo by the verdict alone; the
  // strict decode is the reference. Each valid message is also mangled the
  // ways a capture can: a byte changed, a frame cut short, lengthened, emptied,
  // dropped or added.
  std::mt19937_64 rng(20261206);
  std::size_t accepted = 0;
  std::size_t refused = 0;
  for (TransferBackend backend : k_wire_backends) {
    for (Generation shape : {Generation::flat, Generation::components}) {
      for (int n = 0; n < 150; ++n) {
        const Frames valid = encode_transfer_info(random_transfer_info(rng, backend, shape, n % 5 == 0));
        for (int mangle = 0; mangle < 7; ++mangle) {
          Frames f = valid;
          const std::size_t at = rng() % f.size();
          switch (mangle) {
          case 0: break;
          case 1:
            if (!f[at].empty()) {
              f[at][rng() % f[at].size()] = static_cast<std::uint8_t>(rng());
            }
            break;
          case 2:
            if (!f[at].empty()) {
              f[at].pop_back();
            }
            break;
          case 3: f[at].push_back(static_cast<std::uint8_t>(rng() % 2 == 0 ? '7' : rng())); break;
          case 4: f[at].clear(); break;
          case 5: f.erase(f.begin() + static_cast<std::ptrdiff_t>(at)); break;
          case 6: f.push_back(to_bytes("0")); break;
          }
          const TransferInfoDecode strict = decode_transfer_info(backend, f);
          const std::optional<Generation> verdict = transfer_info_verdict(backend, f);
          INFO(fmt::format("{} {} mangle {} frame {}", transfer_backend_name(backend), generation_name(shape), mangle, at));
          REQUIRE(verdict.has_value() == strict.transfer_info.has_value());
          if (verdict) {
            CHECK(*verdict == strict.transfer_info->generation);
          }
          (verdict ? accepted : refused) += 1;
        }
      }
    }
  }
  // Both outcomes are exercised in earnest, not one of them by accident.
  CHECK(accepted > 2000);
  CHECK(refused > 1000);
}
