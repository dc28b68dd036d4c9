#include "io/capture_file.hpp"
#include "util/error.hpp"
#include "wire/base64.hpp"
#include "wire/int_lists.hpp"
#include "wire/registration_codec.hpp"
#include "wire/scalars.hpp"

#include "../../support/run_pdcheck.hpp"

#include "core/sglang_messages.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace pdcheck;
using namespace pdcheck::wire;

namespace {

std::string capture_json(std::string_view backend, std::string_view kind, const Frames& frames)
{
  std::string list;
  for (const Bytes& f : frames) {
    list += (list.empty() ? "" : ", ") + fmt::format("\"{}\"", base64_encode(f));
  }
  return fmt::format(R"({{"backend": "{}", "kind": "{}", "frames_base64": [{}]}})", backend, kind, list);
}

// The exact "<where>: <what>" of the InputError that decoding `frames` raises.
std::string registration_error(std::string_view backend, const Frames& frames)
{
  try {
    const io::Capture c = io::parse_capture(capture_json(backend, "registration", frames), "bad.json");
    io::registration_from_capture(c);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string parse_error(std::string_view text)
{
  try {
    io::parse_capture(text, "bad.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

// A well-formed Mooncake components registration with one 2-entry component.
Frames good_mooncake()
{
  Registration r;
  r.endpoint = "10.0.0.2";
  r.dst_port = 17000;
  r.mooncake_session_id = "10.0.0.2:17001";
  r.dst_state_data_ptrs = {{0x7f3a40000000, 0x7f3a40800000}};
  r.dst_state_item_lens = {{24576, 1048576}};
  r.dst_state_dim_per_tensor = {{4096, 16}};
  r.dst_attn_tp_size = 2;
  return encode_registration(r, Generation::components).frames;
}

std::string source_path(const std::string& relative)
{
  return std::string(PDCHECK_SOURCE_DIR) + "/" + relative;
}

} // namespace

TEST_CASE("capture files: JSON, keys, frames", "[io][capture]")
{
  const io::Capture c = io::parse_capture(
    R"({"backend": "mori", "kind": "transfer_info", "frames_hex": ["4d6f72694d7367477561726400", ""], "host": "d0",
        "note": "n", "generation": "gen-2"})",
    "c.json");
  CHECK(c.backend == TransferBackend::mori);
  CHECK(c.kind == io::CaptureKind::transfer_info);
  CHECK(c.hex);
  CHECK(c.frames.size() == 2);
  CHECK(c.frames[0].size() == 13);
  CHECK(c.generation == Generation::components);
  CHECK(c.host == "d0");

  const io::Capture again = io::parse_capture(io::capture_to_json(c), "again.json");
  CHECK(again.frames == c.frames);
  CHECK(again.generation == c.generation);

  CHECK(parse_error("{\n  \"backend\": \"mooncake\",\n  \"kind\": registration\n}") ==
        "bad.json:3:11: invalid JSON: syntax error while parsing value - invalid literal; last read: '\"kind\": r'");
  // A number beyond what a double holds is a clear error, not an uncaught exception
  // (found by fuzz_capture_json).
  CHECK(parse_error("6666077E844983.66666667") == "bad.json: invalid JSON: number overflow parsing '6666077E844983'");
  CHECK(parse_error(R"({"backend": "mooncake", "kind": "registration", "fames_base64": []})") ==
        "bad.json: unknown key \"fames_base64\" (did you mean \"frames_base64\"?)");
  CHECK(parse_error(R"({"backend": "moon", "kind": "registration", "frames_base64": []})") ==
        "bad.json: backend: expected mooncake, mori or nixl, got \"moon\"");
  CHECK(parse_error(R"({"backend": "nixl", "kind": "registration"})") ==
        "bad.json: missing \"frames_base64\" (or \"frames_hex\"): the captured frames");
  CHECK(parse_error(R"({"backend": "nixl", "kind": "registration", "frames_base64": [], "frames_hex": []})") ==
        "bad.json: give \"frames_base64\" or \"frames_hex\", not both");
  CHECK(parse_error(R"({"backend": "nixl", "kind": "registration", "frames_base64": [3]})") ==
        "bad.json: frame 0: expected a base64 string, got number");
  CHECK(parse_error(R"({"backend": "mori", "kind": "registration", "frames_base64": [], "generation": "components-layouts"})") ==
        "bad.json: generation: mori has no components-layouts generation");
  CHECK(parse_error(R"({"backend": "nixl", "kind": "registration", "frames_hex": ["4e6g"]})") ==
        "bad.json: frame 0: byte 3 of the hex text: expected a hex digit (0-9, a-f), got 'g'");
}

TEST_CASE("every malformed capture is one line naming frame, byte and what was expected", "[io][capture][bad]")
{
  SECTION("bad base64")
  {
    CHECK(parse_error(R"({"backend": "mooncake", "kind": "registration", "frames_base64": ["Tm9uZQ==", "MTAu!C4wLjE="]})") ==
          "bad.json: frame 1: byte 4 of the base64 text: expected a base64 character (A-Z, a-z, 0-9, '+', '/') or '=' "
          "padding, got '!'");
  }
  SECTION("too few frames")
  {
    Frames f = good_mooncake();
    f.resize(7);
    CHECK(registration_error("mooncake", f) ==
          "bad.json: frame 7 (dst_tp_rank): missing: expected 10 frames for a mooncake pre-dims registration, got 7; "
          "SGLang would raise IndexError: list index out of range");
  }
  SECTION("truncated pack_int_lists header")
  {
    Frames f = good_mooncake();
    f[10] = Bytes{1, 0};
    CHECK(registration_error("mooncake", f) ==
          "bad.json: frame 10 (dst_state_item_lens): byte 0: expected a 4-byte little-endian sub-list count "
          "(pack_int_lists header), got 2 bytes; SGLang would raise struct.error: unpack requires a buffer of 4 bytes");
  }
  SECTION("absurd count: 2^31 sub-lists")
  {
    Frames f = good_mooncake();
    f[6] = Bytes{0, 0, 0, 0x80, 1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(registration_error("mooncake", f) ==
          "bad.json: frame 6 (dst_state_data_ptrs): byte 0: expected a sub-list count of at most 2 (a 12-byte frame "
          "holds no more lengths), got 2147483648; SGLang would raise struct.error: unpack requires a buffer of "
          "8589934592 bytes");
  }
  SECTION("wrong guard frame")
  {
    Registration r;
    r.backend = TransferBackend::mori;
    Frames f = encode_registration(r, Generation::components).frames;
    f[0] = to_bytes("None");
    CHECK(registration_error("mori", f) ==
          "bad.json: frame 0 (guard): byte 0: expected the guard b'MoriMsgGuard', got b'None'; SGLang would drop the "
          "message with the warning 'Received malformed bootstrap message'");
    r.backend = TransferBackend::nixl;
    f = encode_registration(r, Generation::components).frames;
    f[0] = to_bytes("MoriMsgGuard");
    CHECK(registration_error("nixl", f) ==
          "bad.json: frame 0 (guard): byte 0: expected the guard b'NixlMsgGuard', got b'MoriMsgGuard'; SGLang would "
          "raise " + render_delivered(MessageId::nixl_guard, {{"guard", "NixlMsgGuard"}}));
    // nixl/conn.py checks the guard with a plain assert.
    CHECK(render_delivered(MessageId::nixl_guard, {{"guard", "NixlMsgGuard"}}).rfind("AssertionError: ", 0) == 0);
  }
  SECTION("non-ASCII integer frame")
  {
    Frames f = good_mooncake();
    f[2] = Bytes{0xff, '1', '7'};
    CHECK(registration_error("mooncake", f) ==
          "bad.json: frame 2 (dst_port): byte 0: expected an ASCII decimal integer, got the non-ASCII byte 0xff; SGLang "
          "would raise UnicodeDecodeError: 'ascii' codec can't decode byte 0xff in position 0: ordinal not in "
          "range(128)");
  }
  SECTION("non-decimal integer frame")
  {
    Frames f = good_mooncake();
    f[8] = to_bytes("two");
    CHECK(registration_error("mooncake", f) ==
          "bad.json: frame 8 (dst_attn_tp_size): byte 0: expected a decimal digit, got b't' in b'two'; SGLang would "
          "raise ValueError: invalid literal for int() with base 10: 'two'");
  }
  SECTION("the lowest bad frame is reported")
  {
    Frames f = good_mooncake();
    f[11] = Bytes{1};
    f[9] = to_bytes("x");
    CHECK(registration_error("mooncake", f).rfind("bad.json: frame 9 (dst_kv_item_len): byte 0:", 0) == 0);
  }
  SECTION("not a registration")
  {
    Frames f = good_mooncake();
    f[0] = to_bytes("123");
    CHECK(registration_error("mooncake", f) ==
          "bad.json: frame 0 (room): byte 0: expected b'None' (the registration marker), got b'123'; SGLang would "
          "handle the message as a per-request TransferInfo, since frame 0 is not 'None'");
  }
}

TEST_CASE("the example captures decode to what they say", "[io][capture][examples]")
{
  SECTION("Qwen3-Next TP2 rank 1, mooncake components")
  {
    const io::Capture c = io::load_capture(source_path("examples/captures/qwen3-next-tp2-rank1-mooncake-components.json"));
    const Registration r = io::registration_from_capture(c);
    CHECK(r.generation == Generation::components);
    CHECK(r.generation_evidence.at(1) == "frame 6 parses as pack_int_lists: 1 component, 72 entries");
    CHECK(r.dst_tp_rank == 1);
    CHECK(r.dst_attn_tp_size == 2);
    CHECK(r.dst_kv_item_len == 512);
    CHECK(r.dst_kv_ptrs.size() == 24);
    REQUIRE(r.dst_state_item_lens.size() == 1);
    CHECK(r.dst_state_item_lens[0].front() == 24576);
    CHECK(r.dst_state_item_lens[0].back() == 1048576);
    CHECK(r.dst_state_dim_per_tensor[0].front() == 4096);
    CHECK(r.dst_state_layer_ids[0].size() == 72);
    CHECK_FALSE(r.synthetic_pointers);
    const auto summary = summarize_components(r);
    CHECK(summary.at(0).groups.at(0).likely_tensor == "conv");
    CHECK(summary.at(0).bytes_per_slot == 38633472);
  }
  SECTION("the same rank, flat, and what a components prefill makes of it")
  {
    const io::Capture c = io::load_capture(source_path("examples/captures/qwen3-next-tp2-rank1-mooncake-flat.json"));
    const Registration r = io::registration_from_capture(c);
    CHECK(r.generation == Generation::flat);
    CHECK(r.dst_state_data_ptrs.at(0).size() == 72);
    CHECK(r.dst_state_dim_per_tensor.at(0).back() == 16);
    const auto as_components = decode_registration(c.backend, c.frames, Generation::components, DecodeMode::sglang);
    REQUIRE(as_components.problem);
    CHECK(as_components.problem->frame == 6);
    CHECK(as_components.problem->what == "struct.error: unpack requires a buffer of 4294967296 bytes");
  }
  SECTION("NIXL components")
  {
    const io::Capture c = io::load_capture(source_path("examples/captures/qwen3-next-tp2-rank1-nixl-components.json"));
    const Registration r = io::registration_from_capture(c);
    CHECK(r.backend == TransferBackend::nixl);
    CHECK(r.generation == Generation::components);
    CHECK(r.dst_num_slots == 400000);
    CHECK(r.dst_kv_mem_kinds.size() == 24);
    CHECK(r.dst_state_item_lens == io::registration_from_capture(io::load_capture(
                                     source_path("examples/captures/qwen3-next-tp2-rank1-mooncake-components.json")))
                                     .dst_state_item_lens);
  }
  SECTION("Mori TransferInfo with two state indices")
  {
    const io::Capture c = io::load_capture(source_path("examples/captures/mori-transfer-info-two-state-indices.json"));
    const TransferInfo t = io::transfer_info_from_capture(c);
    CHECK(t.generation == Generation::components);
    CHECK(t.dst_state_indices == I32Lists{{17}, {42}});
    CHECK(t.dst_kv_indices == std::vector<std::int32_t>{1022, 1023, 1024, 1025});
    CHECK(t.dst_aux_index == 88);
    CHECK_FALSE(t.is_dummy);
    CHECK_FALSE(t.decode_prefix_len);
  }
}

TEST_CASE("pdcheck decode and encode from the command line", "[io][capture][cli]")
{
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("pdcheck-wire-cli-{}", ::getpid());
  fs::create_directories(dir);
  const fs::path bad = dir / "bad.json";
  {
    Frames f = good_mooncake();
    f[6] = Bytes{0, 0, 0, 0x80};
    std::ofstream(bad) << capture_json("mooncake", "registration", f);
  }
  auto run = [](const std::string& args) {
    const test::CliRun r = test::run_pdcheck(args);
    return std::pair<int, std::string>{r.code, r.out};
  };
  const auto [code, out] = run("decode " + bad.string());
  CHECK(code == 2);
  CHECK(out == fmt::format("pdcheck: error: {}: frame 6 (dst_state_data_ptrs): byte 0: expected a sub-list count of at "
                           "most 0 (a 4-byte frame holds no more lengths), got 2147483648; SGLang would raise "
                           "struct.error: unpack requires a buffer of 8589934592 bytes\n",
                           bad.string()));

  const auto [json_code, json_out] =
    run("decode examples/captures/qwen3-next-tp2-rank1-mooncake-components.json --format json");
  CHECK(json_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json_out);
  CHECK(j["generation"] == "components");
  CHECK(j["dst_attn_tp_size"] == 2);
  CHECK(j["dst_state_item_lens"][0][0] == 24576);

  const auto [sglang_code, sglang_out] =
    run("decode examples/captures/qwen3-next-tp2-rank1-mooncake-flat.json --generation components --mode sglang");
  CHECK(sglang_code == 1);
  CHECK(sglang_out.find("SGLang raises at frame 6 (dst_state_data_ptrs): struct.error") != std::string::npos);

  const fs::path side = dir / "decode.yaml";
  std::ofstream(side) << "role: decode\nsglang: components\nmodel: qwen3-next-80b-a3b\n"
                         "args: --tp 2 --disaggregation-mode decode --disaggregation-transfer-backend nixl\n";
  const fs::path out_capture = dir / "enc.json";
  const auto [enc_code, enc_out] = run(fmt::format("encode {} --rank 1 --out {}", side.string(), out_capture.string()));
  CHECK(enc_code == 0);
  CHECK(enc_out == fmt::format("wrote {}: nixl components registration of decode rank 1 (24 frames, 72 state entries)\n",
                               out_capture.string()));
  const Registration r = io::registration_from_capture(io::load_capture(out_capture.string()));
  CHECK(r.synthetic_pointers);
  CHECK(r.dst_tp_rank == 1);
  CHECK(r.dst_state_data_ptrs.at(0).size() == 72);
  CHECK(r.dst_dcp_size == 1);

  // Decode DCP: TP rank 3 of TP 4 with --dcp-size 2 is DCP rank 3 % 2 = 1
  // (DCP groups are consecutive slices of a TP group).
  const fs::path dcp_side = dir / "decode-dcp.yaml";
  std::ofstream(dcp_side) << "role: decode\nsglang: 0.5.20\nmodel: kimi-linear-48b-a3b\n"
                             "args: --tp 4 --dcp-size 2 --disaggregation-mode decode\n";
  const fs::path dcp_capture = dir / "enc-dcp.json";
  CHECK(run(fmt::format("encode {} --rank 3 --out {}", dcp_side.string(), dcp_capture.string())).first == 0);
  const Registration dcp = io::registration_from_capture(io::load_capture(dcp_capture.string()));
  CHECK(dcp.dst_dcp_size == 2);
  CHECK(dcp.dst_dcp_rank == 1);
  fs::remove_all(dir);
}
