#include "model/layout.hpp"
#include "report/wire_render.hpp"
#include "util/error.hpp"
#include "wire/msgpack.hpp"
#include "wire/registration.hpp"
#include "wire/registration_codec.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

using namespace pdcheck;
using namespace pdcheck::wire;

namespace {

// A registration with random values in every field that `g` of `backend`
// carries (and defaults elsewhere), from a fixed-seed RNG.
class RandomRegistration
{
public:
  explicit RandomRegistration(std::uint64_t seed) : m_rng(seed) {}

  Registration make(TransferBackend backend, Generation g)
  {
    Registration r;
    r.backend = backend;
    r.generation = g;
    const bool comp = g == Generation::components || g == Generation::components_layouts;
    r.endpoint = fmt::format("10.{}.{}.{}", below(256), below(256), below(256));
    r.dst_port = static_cast<std::int64_t>(below(65536));
    r.dst_tp_rank = static_cast<std::int64_t>(below(64));
    r.dst_attn_tp_size = static_cast<std::int64_t>(1 + below(64));
    r.dst_kv_item_len = static_cast<std::int64_t>(m_rng() >> 20) - (1ll << 42);
    if (g != Generation::pre_dims) {
      r.dst_state_item_lens = lists(comp, 0xffffffffu);
      r.dst_state_dim_per_tensor = lists(comp, 0xffffffffu);
    }
    switch (backend) {
    case TransferBackend::mooncake:
      r.mooncake_session_id = fmt::format("{}:{}", r.endpoint, below(65536));
      r.dst_kv_ptrs = values(6, ~0ull);
      r.dst_aux_ptrs = values(3, ~0ull);
      r.dst_state_data_ptrs = lists(comp, ~0ull);
      if (g == Generation::flat) {
        r.enable_hisparse = below(2) == 1;
        staging(r);
      }
      if (comp) {
        r.dst_kv_layer_ids = values(5, 0xffffffffu);
        r.dst_state_layer_ids = lists(true, 0xffffffffu);
        staging(r);
        r.dst_dcp_size = static_cast<std::int64_t>(1 + below(8));
        r.dst_dcp_rank = static_cast<std::int64_t>(below(8));
        r.staging_slot_layer_ids = values(4, ~0ull);
      }
      if (g == Generation::components_layouts) {
        r.dst_kv_item_lens = values(5, ~0ull);
        if (below(2) == 1) {
          r.unified_layouts_json = fmt::format(
            R"({{"kv": {{"block_bytes": {}, "rows_per_block": 1, "tensors": []}}, "state": {{"block_bytes": {}, "rows_per_block": 1, "tensors": []}}}})",
            below(1 << 20), below(1 << 20));
        }
      }
      break;
    case TransferBackend::mori: {
      r.gpu_id = static_cast<std::int64_t>(below(8));
      r.engine_desc = blob(40);
      r.dst_kv_mem_descs = descs(r.kv_mem_desc_count);
      r.dst_aux_mem_descs = descs(r.aux_mem_desc_count);
      if (comp) {
        const std::size_t components = below(4);
        if (components > 0) {
          append_msgpack_array_header(r.dst_state_mem_descs, components);
          for (std::size_t c = 0; c < components; ++c) {
            const std::size_t n = below(5);
            r.state_mem_desc_counts.push_back(n);
            append_msgpack_array_header(r.dst_state_mem_descs, n);
            for (std::size_t i = 0; i < n; ++i) {
              append_msgpack_bin(r.dst_state_mem_descs, blob(20));
            }
          }
        }
      } else {
        std::size_t n = 0;
        r.dst_state_mem_descs = descs(n);
        if (n > 0) {
          r.state_mem_desc_counts = {n};
        }
      }
      break;
    }
    case TransferBackend::nixl:
      r.gpu_id = static_cast<std::int64_t>(below(8));
      r.agent_name = fmt::format("agent-{}", m_rng());
      r.agent_metadata = blob(64);
      r.dst_kv_ptrs = values(6, ~0ull);
      r.dst_aux_ptrs = values(3, ~0ull);
      r.dst_state_data_ptrs = lists(comp, ~0ull);
      if (g == Generation::flat) {
        staging(r);
      }
      if (comp) {
        staging(r);
        for (std::size_t i = 0; i < r.dst_kv_ptrs.size(); ++i) {
          r.dst_kv_mem_kinds.push_back(below(2) == 1 ? "DRAM" : "VRAM");
          r.dst_kv_item_lens.push_back(m_rng());
        }
        if (below(2) == 1) {
          r.dst_num_slots = static_cast<std::int64_t>(below(1 << 20));
        }
        r.dst_state_layer_ids = lists(true, 0xffffffffu);
        r.dst_kv_layer_ids = values(5, 0xffffffffu);
        r.dst_dcp_size = static_cast<std::int64_t>(1 + below(8));
        r.dst_dcp_rank = static_cast<std::int64_t>(below(8));
      }
      break;
    case TransferBackend::ascend:
    case TransferBackend::fake:
    case TransferBackend::mooncake_tcp: wire::throw_not_wire_speaking(backend);
    }
    return r;
  }

private:
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(m_rng() % n); }

  std::vector<std::uint64_t> values(std::size_t max_count, std::uint64_t mask)
  {
    std::vector<std::uint64_t> out(below(max_count + 1));
    for (auto& v : out) {
      v = m_rng() & mask;
    }
    return out;
  }

  // Components: 0-3 lists of 0-5 values. Flat: no component, or one non-empty
  // (a flat frame cannot tell an empty component from none).
  U64Lists lists(bool components, std::uint64_t mask)
  {
    if (!components) {
      if (below(3) == 0) {
        return {};
      }
      std::vector<std::uint64_t> one(1 + below(8));
      for (auto& v : one) {
        v = m_rng() & mask;
      }
      return {one};
    }
    U64Lists out(below(4));
    for (auto& list : out) {
      list = values(5, mask);
    }
    return out;
  }

  Bytes blob(std::size_t max)
  {
    Bytes out(below(max + 1));
    for (auto& b : out) {
      b = static_cast<std::uint8_t>(m_rng());
    }
    return out;
  }

  Bytes descs(std::size_t& count)
  {
    count = below(5);
    Bytes out;
    if (count > 0) {
      append_msgpack_array_header(out, count);
      for (std::size_t i = 0; i < count; ++i) {
        append_msgpack_bin(out, blob(30));
      }
    }
    return out;
  }

  void staging(Registration& r)
  {
    if (below(2) == 1) {
      r.staging_base_ptr = m_rng();
      r.staging_total_size = static_cast<std::int64_t>(below(1u << 30));
    }
  }

  std::mt19937_64 m_rng;
};

std::string describe(TransferBackend b, Generation g)
{
  return fmt::format("{} {}", transfer_backend_name(b), generation_name(g));
}

model::RankLayout qwen3_next_tp2_layout()
{
  model::RankLayout l;
  l.attn_tp_rank = 1;
  std::vector<std::uint64_t> ids;
  for (std::uint64_t i = 0; i < 48; ++i) {
    if (i % 4 != 3) {
      ids.push_back(i);
    }
  }
  std::vector<std::uint64_t> lens(36, 24576);
  lens.insert(lens.end(), 36, 1048576);
  std::vector<std::uint64_t> dims(36, 4096);
  dims.insert(dims.end(), 36, 16);
  std::vector<std::uint64_t> layer_ids = ids;
  layer_ids.insert(layer_ids.end(), ids.begin(), ids.end());
  l.state_types = {"mamba"};
  l.state_item_lens = {lens};
  l.state_dim_per_tensor = {dims};
  l.state_layer_ids = {layer_ids};
  for (std::size_t e = 0; e < 72; ++e) {
    l.entries.push_back(model::StateEntry{e < 36 ? 0 : 1, static_cast<int>(layer_ids[e]),
                                          static_cast<std::int64_t>(lens[e]), static_cast<std::int64_t>(dims[e])});
  }
  return l;
}

} // namespace

TEST_CASE("decode(encode(x)) == x for every backend and generation", "[wire][registration][property]")
{
  const auto [backend, g] = GENERATE(table<TransferBackend, Generation>({
    {TransferBackend::mooncake, Generation::pre_dims},
    {TransferBackend::mooncake, Generation::flat},
    {TransferBackend::mooncake, Generation::components},
    {TransferBackend::mooncake, Generation::components_layouts},
    {TransferBackend::mori, Generation::flat},
    {TransferBackend::mori, Generation::components},
    {TransferBackend::nixl, Generation::pre_dims},
    {TransferBackend::nixl, Generation::flat},
    {TransferBackend::nixl, Generation::components},
  }));
  const std::uint64_t seed = GENERATE(range(1, 61));
  INFO(describe(backend, g) << ", seed " << seed);
  const Registration x = RandomRegistration(seed * 7919 + static_cast<std::uint64_t>(g)).make(backend, g);
  const EncodedRegistration encoded = encode_registration(x);
  CHECK(encoded.dropped.empty());
  CHECK(encoded.frames.size() == registration_frame_count(backend, g));

  const RegistrationDecode forced = decode_registration(backend, encoded.frames, g);
  REQUIRE_FALSE(forced.problem);
  CHECK(*forced.registration == x);

  const RegistrationDecode detected = decode_registration(backend, encoded.frames);
  REQUIRE_FALSE(detected.problem);
  CHECK(*detected.registration == x);
  // Mori with no state frames reads the same either way, so only there may detection differ.
  if (!(backend == TransferBackend::mori && x.state_mem_desc_counts.empty() && x.dst_state_item_lens.empty() &&
        x.dst_state_dim_per_tensor.empty())) {
    CHECK(detected.registration->generation == g);
  }

  const RegistrationDecode lenient = decode_registration(backend, encoded.frames, g, DecodeMode::sglang);
  REQUIRE_FALSE(lenient.problem);
  CHECK(*lenient.registration == x);
}

TEST_CASE("edge cases round-trip: no components, one empty component", "[wire][registration]")
{
  for (const U64Lists& lists : {U64Lists{}, U64Lists{{}}, U64Lists{{}, {}}, U64Lists{{1}, {}}}) {
    Registration x;
    x.dst_state_data_ptrs = lists;
    x.dst_state_item_lens = lists;
    x.dst_state_dim_per_tensor = lists;
    x.dst_state_layer_ids = lists;
    for (Generation g : {Generation::components, Generation::components_layouts}) {
      const auto d = decode_registration(TransferBackend::mooncake, encode_registration(x, g).frames);
      REQUIRE_FALSE(d.problem);
      CHECK(*d.registration == x);
    }
  }
  SECTION("a flat frame cannot tell [[]] from []")
  {
    Registration x;
    x.dst_state_data_ptrs = {{}};
    const auto d = decode_registration(TransferBackend::mooncake, encode_registration(x, Generation::flat).frames);
    REQUIRE(d.registration);
    CHECK(d.registration->dst_state_data_ptrs.empty());
  }
  SECTION("a flat generation keeps the first component and says what it dropped")
  {
    Registration x;
    x.dst_state_data_ptrs = {{1}, {2}};
    x.dst_state_layer_ids = {{0}, {1}};
    const auto e = encode_registration(x, Generation::flat);
    CHECK(e.dropped == std::vector<std::string>{"state components after the first (one state_type per registration)",
                                                "layer ids"});
  }
}

TEST_CASE("generation detection shows its evidence", "[wire][registration]")
{
  Registration x = registration_from_layout(qwen3_next_tp2_layout(), RegistrationParams{});
  const Frames gen2 = encode_registration(x, Generation::components).frames;
  const auto d2 = detect_registration_generation(TransferBackend::mooncake, gen2);
  CHECK(d2.generation == Generation::components);
  CHECK(d2.evidence == std::vector<std::string>{"19 frames: mooncake components sends frames 0-18",
                                                "frame 6 parses as pack_int_lists: 1 component, 72 entries"});
  const Frames gen1 = encode_registration(x, Generation::flat).frames;
  const auto d1 = detect_registration_generation(TransferBackend::mooncake, gen1);
  CHECK(d1.generation == Generation::flat);
  CHECK(d1.evidence == std::vector<std::string>{
                         "15 frames: mooncake flat sends frames 0-14",
                         "frame 6 is not a pack_int_lists encoding; as a flat native 'Q' array it holds 72 values",
                         "frame 12 is b'0' (enable_hisparse)"});
  CHECK(detect_registration_generation(TransferBackend::mooncake, encode_registration(x, Generation::pre_dims).frames)
          .generation == Generation::pre_dims);
  CHECK(detect_registration_generation(TransferBackend::mooncake,
                                       encode_registration(x, Generation::components_layouts).frames)
          .generation == Generation::components_layouts);
}

TEST_CASE("registration_from_layout: synthetic pointers, fields per generation", "[wire][registration]")
{
  const model::RankLayout layout = qwen3_next_tp2_layout();
  RegistrationParams p;
  p.dst_tp_rank = 1;
  p.dst_attn_tp_size = 2;
  const Registration r = registration_from_layout(layout, p);
  CHECK(r.synthetic_pointers);
  REQUIRE(r.dst_state_data_ptrs.size() == 1);
  CHECK(r.dst_state_data_ptrs[0].size() == 72);
  // 2 MiB-aligned with non-zero low 32 bits, as real CUDA pointers are.
  CHECK(r.dst_state_data_ptrs[0][0] == 0x7f003c200000);
  CHECK(r.dst_state_data_ptrs[0][1] == 0x7f013c200000);
  CHECK(is_synthetic_pointer(r.dst_state_data_ptrs[0][71]));
  CHECK_FALSE(is_synthetic_pointer(0x7f3a40800000));
  CHECK_FALSE(is_synthetic_pointer(0x7f0000000000));
  CHECK(r.dst_state_item_lens == layout.state_item_lens);
  CHECK(r.dst_state_layer_ids == layout.state_layer_ids);
  CHECK(r.dst_tp_rank == 1);
  CHECK(r.dst_attn_tp_size == 2);

  p.generation = Generation::pre_dims;
  const Registration old = registration_from_layout(layout, p);
  CHECK(old.dst_state_item_lens.empty());
  CHECK(old.dst_state_layer_ids.empty());
  CHECK(old.dst_state_data_ptrs.size() == 1);

  p.backend = TransferBackend::mori;
  p.generation = Generation::components;
  const Registration mori = registration_from_layout(layout, p);
  CHECK(mori.dst_state_data_ptrs.empty());
  CHECK(mori.state_mem_desc_counts == std::vector<std::size_t>{72});
  const auto decoded = decode_registration(TransferBackend::mori, encode_registration(mori).frames);
  REQUIRE(decoded.registration);
  CHECK(*decoded.registration == mori);
  CHECK(state_entry_counts(*decoded.registration) == std::vector<std::size_t>{72});
}

TEST_CASE("component summaries split conv from temporal", "[wire][registration]")
{
  const Registration r = registration_from_layout(qwen3_next_tp2_layout(), RegistrationParams{});
  const auto summaries = summarize_components(r);
  REQUIRE(summaries.size() == 1);
  CHECK(summaries[0].entries == 72);
  CHECK(summaries[0].bytes_per_slot == 38633472);
  REQUIRE(summaries[0].groups.size() == 2);
  CHECK(summaries[0].groups[0].likely_tensor == "conv");
  CHECK(summaries[0].groups[0].entries == 36);
  CHECK(summaries[0].groups[0].item_len == 24576);
  CHECK(summaries[0].groups[0].why == "layer ids restart");
  CHECK(summaries[0].groups[1].likely_tensor == "temporal");
  CHECK(summaries[0].groups[1].first_entry == 36);
  CHECK(summaries[0].groups[1].dim == 16);

  Registration unified;
  unified.dst_state_item_lens = {{77266944}};
  unified.dst_state_data_ptrs = {{0x7f0000000000}};
  const auto u = summarize_components(unified);
  REQUIRE(u.size() == 1);
  CHECK(u[0].groups.at(0).likely_tensor == "unified envelope (all layers of one slot)");

  const nlohmann::json j = report::registration_to_json(r);
  CHECK(j["dst_tp_rank"] == 0);
  CHECK(j["components"][0]["tensor_groups"][1]["likely_tensor"] == "temporal");
}

TEST_CASE("a newer prefill reading an older decode's frames, as SGLang would", "[wire][registration]")
{
  RegistrationParams p;
  p.generation = Generation::flat;
  Registration flat = registration_from_layout(qwen3_next_tp2_layout(), p);
  // Real pointers have non-zero low bits; make the first one so.
  flat.dst_state_data_ptrs[0][0] = 0x7f3a40000000;
  flat.synthetic_pointers = false;
  const Frames frames = encode_registration(flat, Generation::flat).frames;

  const auto strict = decode_registration(TransferBackend::mooncake, frames, Generation::components);
  REQUIRE(strict.problem);
  CHECK(strict.problem->where("cap.json") == "cap.json: frame 6 (dst_state_data_ptrs)");
  CHECK(strict.problem->message() == "byte 0: expected a sub-list count of at most 143 (a 576-byte frame holds no more "
                                     "lengths), got 1073741824; SGLang would raise struct.error: unpack requires a "
                                     "buffer of 4294967296 bytes");

  const auto as_sglang =
    decode_registration(TransferBackend::mooncake, frames, Generation::components, DecodeMode::sglang);
  REQUIRE(as_sglang.problem);
  CHECK(as_sglang.problem->frame == 6);
  CHECK(as_sglang.problem->what == "struct.error: unpack requires a buffer of 4294967296 bytes");
  CHECK(as_sglang.problem->sglang ==
        "the prefill bootstrap thread has no try/except, so it dies and reads no further registration or request");

  SECTION("with a pointer whose low 32 bits are zero, SGLang silently reads no state at all")
  {
    Registration aligned = registration_from_layout(qwen3_next_tp2_layout(), p);
    aligned.dst_state_data_ptrs[0][0] = 0x7f0000000000; // a 4 GiB-aligned pointer: rare, but possible
    const Frames synthetic = encode_registration(aligned).frames;
    const auto quiet =
      decode_registration(TransferBackend::mooncake, synthetic, Generation::components, DecodeMode::sglang);
    // Frame 10 (flat item lens) still breaks the header count.
    REQUIRE(quiet.problem);
    CHECK(quiet.problem->frame == 10);
    CHECK(quiet.notes.at(0) == "frame 6 (dst_state_data_ptrs): SGLang would ignore 572 trailing bytes");
  }

  SECTION("an older flat prefill reading a components registration gets garbage, silently")
  {
    const Frames gen2 = encode_registration(registration_from_layout(qwen3_next_tp2_layout(), RegistrationParams{}))
                          .frames;
    const auto garbage = decode_registration(TransferBackend::mooncake, gen2, Generation::flat, DecodeMode::sglang);
    REQUIRE(garbage.registration);
    CHECK(garbage.registration->dst_state_data_ptrs.at(0).size() == 73);
    CHECK(garbage.registration->dst_state_item_lens.at(0).at(0) == 1);
    CHECK(garbage.registration->dst_state_item_lens.at(0).at(1) == 288);
    CHECK(garbage.notes.back() == "frames 15-18 are not read by the mooncake flat parser (SGLang ignores them)");
  }
}
