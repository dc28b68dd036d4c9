// `pdcheck capture`: packet captures built in the test with known segmentation,
// reordering, retransmission and gaps, every link type tcpdump writes, pcap and
// pcapng, a capture recorded from a real ZMQ PUSH/PULL pair on loopback, and the
// errors malformed pcaps and ZMTP streams give.
#include "capture/analyzer.hpp"
#include "capture/zmtp.hpp"
#include "io/capture_file.hpp"
#include "io/pcap_file.hpp"
#include "util/error.hpp"

#include "../../support/pcap_builder.hpp"
#include "../../support/run_pdcheck.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <random>

using namespace pdcheck;
using test::ByteString;
using test::PcapBuilder;
using test::TcpEnd;

namespace {

struct CaptureTempDir : test::TempDir
{
  CaptureTempDir() : test::TempDir("pdcheck-capture") {}
};

const TcpEnd k_decode{"10.0.0.2", 41234};
const TcpEnd k_prefill{"10.0.0.1", 17000};

wire::Frames example_frames(const std::string& name)
{
  return io::load_capture(std::string(PDCHECK_SOURCE_DIR) + "/examples/captures/" + name).frames;
}

std::vector<ByteString> as_bytes(const wire::Frames& f)
{
  return {f.begin(), f.end()};
}

/// The report plus every message's frames, as the sink saw them.
struct Analyzed : capture::CaptureReport
{
  std::vector<wire::Frames> frames;
};

Analyzed analyze(const std::string& path, capture::AnalyzerOptions o = {})
{
  Analyzed a;
  o.on_message = [&a](const capture::FoundMessage&, const capture::FlowReport&, const wire::Frames& f) {
    a.frames.push_back(f);
  };
  static_cast<capture::CaptureReport&>(a) = io::analyze_pcap(path, o).report;
  return a;
}

std::string error_of(const std::string& path, capture::AnalyzerOptions o = {})
{
  try {
    io::analyze_pcap(path, o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error>";
}

using Run = test::CliRun;

Run pdcheck_cli(const std::string& args)
{
  return test::run_pdcheck(args);
}

const capture::FlowReport& flow_from(const capture::CaptureReport& r, const TcpEnd& src)
{
  for (const auto& f : r.flows) {
    if (f.src.port == src.port) {
      return f;
    }
  }
  FAIL("no flow from port " << src.port);
  throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("capture: a registration and a TransferInfo cut into small segments come back frame for frame", "[capture]")
{
  CaptureTempDir dir;
  const wire::Frames reg = example_frames("qwen3-next-tp2-rank1-mooncake-components.json");
  const wire::Frames ti = example_frames("mori-transfer-info-two-state-indices.json");
  for (auto link : {test::Link::ethernet, test::Link::linux_sll, test::Link::linux_sll2, test::Link::null_loopback}) {
    for (bool pcapng : {false, true}) {
      INFO("link " << static_cast<int>(link) << (pcapng ? " pcapng" : " pcap"));
      PcapBuilder pcap(link, pcapng);
      test::send_stream(pcap, k_decode, k_prefill, test::zmtp_stream({as_bytes(reg), as_bytes(ti)}), 97);
      test::send_stream(pcap, k_prefill, k_decode, test::zmtp_stream({}, "PULL", true), 1000, 5000);
      const auto r = analyze(pcap.write(dir.path / "a.pcap"));
      REQUIRE(r.messages.size() == 2);
      CHECK(r.frames[0] == reg);
      CHECK(r.messages[0].kind == capture::MessageKind::registration);
      CHECK(r.messages[0].backend == TransferBackend::mooncake);
      CHECK(r.messages[0].dst_tp_rank == 1);
      CHECK(r.messages[0].generation == wire::Generation::components);
      CHECK(r.frames[1] == ti);
      CHECK(r.messages[1].kind == capture::MessageKind::transfer_info);
      CHECK(r.messages[1].backend == TransferBackend::mori);
      const auto& f = flow_from(r, k_decode);
      CHECK(f.complete());
      CHECK(f.socket_type == "PUSH");
      CHECK(f.zmtp_version == "3.1");
      CHECK(flow_from(r, k_prefill).socket_type == "PULL");
      CHECK(flow_from(r, k_prefill).messages.empty());
    }
  }
}

TEST_CASE("ZMTP: frames read whole give what the byte-wise reading gives, however the stream is cut", "[capture][property]")
{
  // The parser reads a frame that lies whole in the bytes at hand in one step
  // and falls back to reading byte by byte otherwise; fed one byte at a time it
  // takes the byte-wise path alone, the reference here. Random messages mix
  // empty, short and long (> 255 bytes: 8-byte size) frames.
  std::mt19937 rng(20261206);
  for (int round = 0; round < 40; ++round) {
    std::vector<std::vector<ByteString>> messages(1 + rng() % 30);
    for (auto& m : messages) {
      m.resize(1 + rng() % 12);
      for (auto& frame : m) {
        frame.resize(rng() % 8 == 0 ? 256 + rng() % 3000 : rng() % 40);
        for (auto& b : frame) {
          b = static_cast<std::uint8_t>(rng());
        }
      }
    }
    const ByteString stream = test::zmtp_stream(messages, "PUSH", false);
    auto read = [&stream](std::size_t piece) {
      capture::ZmtpParser parser;
      std::vector<capture::ZmtpMessage> out;
      const capture::ZmtpParser::Sink keep = [&out](const capture::ZmtpMessage& m) { out.push_back(m); };
      for (std::size_t at = 0; at < stream.size(); at += piece) {
        parser.feed(std::span<const std::uint8_t>(stream).subspan(at, std::min(piece, stream.size() - at)), 1, keep);
      }
      CHECK(parser.state() == capture::ZmtpParser::State::traffic);
      CHECK_FALSE(parser.inside_message());
      return out;
    };
    const auto bytewise = read(1);
    REQUIRE(bytewise.size() == messages.size());
    for (const std::size_t piece : {stream.size(), std::size_t{1448}, std::size_t{1 + rng() % 300}}) {
      const auto whole = read(piece);
      REQUIRE(whole.size() == bytewise.size());
      for (std::size_t i = 0; i < whole.size(); ++i) {
        CHECK(whole[i].frames == bytewise[i].frames);
        CHECK(whole[i].offset == bytewise[i].offset);
      }
    }
    for (std::size_t i = 0; i < messages.size(); ++i) {
      CHECK(std::equal(bytewise[i].frames.begin(), bytewise[i].frames.end(), messages[i].begin(), messages[i].end(),
                       [](const auto& got, const auto& sent) { return std::equal(got.begin(), got.end(), sent.begin(), sent.end()); }));
    }
  }
}

TEST_CASE("capture: a registration sent again is a repeat; other senders, endpoints and frames are not", "[capture]")
{
  CaptureTempDir dir;
  const wire::Frames reg = example_frames("qwen3-next-tp2-rank1-mooncake-components.json");
  const wire::Frames changed = example_frames("qwen3-next-tp2-rank1-mooncake-flat.json"); // rank 1 too
  PcapBuilder pcap(test::Link::ethernet, false);
  const auto send = [&](const TcpEnd& from, const TcpEnd& to, const wire::Frames& frames) {
    test::send_stream(pcap, from, to, test::zmtp_stream({as_bytes(frames)}), 1448, 1000);
  };
  send(k_decode, k_prefill, reg);                                       // 0: listed
  send({"10.0.0.2", 41240}, k_prefill, reg);                            // a new connection: repeat of 0
  send({"10.0.0.2", 41241}, k_prefill, reg);                            // again: repeat of 0
  send({"10.0.0.2", 41242}, {"10.0.0.1", 17001}, reg);                  // another prefill endpoint: listed
  send({"10.0.0.3", 41234}, k_prefill, reg);                            // another decode host: listed
  send({"10.0.0.2", 41243}, k_prefill, changed);                        // new frames (a restart): listed
  send({"10.0.0.2", 41244}, k_prefill, reg);                            // the first again: repeat of 0
  const std::string path = pcap.write(dir.path / "repeats.pcap");

  std::vector<std::optional<std::size_t>> repeats;
  capture::AnalyzerOptions o;
  o.on_message = [&repeats](const capture::FoundMessage& m, const capture::FlowReport&, const wire::Frames&) {
    repeats.push_back(m.repeat_of);
  };
  const capture::CaptureReport r = io::analyze_pcap(path, o).report;
  CHECK(r.registrations == 7);
  CHECK(r.registrations_repeated == 3);
  CHECK(r.registrations_not_listed == 0);
  REQUIRE(r.messages.size() == 4);
  CHECK(repeats ==
        std::vector<std::optional<std::size_t>>{std::nullopt, 0, 0, std::nullopt, std::nullopt, std::nullopt, 0});
  CHECK(capture::endpoint_text(r.flows[r.messages[1].flow].dst) == "10.0.0.1:17001");
  CHECK(capture::address_text(r.flows[r.messages[2].flow].src.address) == "10.0.0.3");
  CHECK(r.messages[3].kind == capture::MessageKind::registration);
  // Every message still counts in its flow and in the totals.
  CHECK(r.message_count == 7);
  CHECK(r.by_kind.at("mooncake registration") == 7);

  SECTION("past --max-registrations distinct ones are counted, not listed; repeats are still repeats")
  {
    capture::AnalyzerOptions capped;
    capped.max_listed_registrations = 2;
    const capture::CaptureReport c = io::analyze_pcap(path, capped).report;
    CHECK(c.messages.size() == 2);
    CHECK(c.registrations_repeated == 3); // the last one comes after the cap was reached
    CHECK(c.registrations_not_listed == 2);
  }
}

TEST_CASE("capture: IPv6, reordering and a retransmission are put back in order", "[capture]")
{
  CaptureTempDir dir;
  const wire::Frames reg = example_frames("qwen3-next-tp2-rank1-nixl-components.json");
  const ByteString stream = test::zmtp_stream({as_bytes(reg)});
  const TcpEnd src{"fd00::2", 50000};
  const TcpEnd dst{"fd00::1", 17001};
  PcapBuilder pcap(test::Link::linux_sll2);
  pcap.segment(src, dst, 99, 0x02, {});
  // Segments of 200 bytes: 0, 2, 1 (out of order), 1 again (retransmitted), 3.., then a
  // retransmission overlapping two segments.
  auto piece = [&](std::size_t at, std::size_t n) {
    n = std::min(n, stream.size() - at);
    return ByteString(stream.begin() + static_cast<std::ptrdiff_t>(at), stream.begin() + static_cast<std::ptrdiff_t>(at + n));
  };
  pcap.segment(src, dst, 100, 0x18, piece(0, 200));
  pcap.segment(src, dst, 500, 0x18, piece(400, 200));
  pcap.segment(src, dst, 300, 0x18, piece(200, 200));
  pcap.segment(src, dst, 300, 0x18, piece(200, 200));
  for (std::size_t at = 600; at < stream.size(); at += 200) {
    pcap.segment(src, dst, static_cast<std::uint32_t>(100 + at), 0x18, piece(at, 200));
  }
  pcap.segment(src, dst, 100 + 150, 0x18, piece(150, 400));
  pcap.segment(src, dst, static_cast<std::uint32_t>(100 + stream.size()), 0x11, {});
  const auto r = analyze(pcap.write(dir.path / "v6.pcap"));
  REQUIRE(r.messages.size() == 1);
  CHECK(r.frames[0] == reg);
  CHECK(r.messages[0].backend == TransferBackend::nixl);
  const auto& f = r.flows.at(0);
  CHECK(capture::endpoint_text(f.src) == "[fd00::2]:50000");
  CHECK(f.complete());
  CHECK(f.out_of_order_segments == 1);
  CHECK(f.retransmitted_bytes == 200 + 400);
}

TEST_CASE("capture: a gap makes the flow incomplete and nothing after it is glued on", "[capture]")
{
  CaptureTempDir dir;
  const wire::Frames reg = example_frames("qwen3-next-tp2-rank1-mooncake-flat.json");
  const ByteString first = test::zmtp_stream({as_bytes(reg)});
  const ByteString second = test::zmtp_frames(as_bytes(reg));
  PcapBuilder pcap;
  pcap.segment(k_decode, k_prefill, 0, 0x02, {});
  pcap.segment(k_decode, k_prefill, 1, 0x18, first);
  // The second message's first 10 bytes are never captured.
  pcap.segment(k_decode, k_prefill, static_cast<std::uint32_t>(1 + first.size() + 10), 0x18,
               ByteString(second.begin() + 10, second.end()));
  const auto r = analyze(pcap.write(dir.path / "gap.pcap"));
  REQUIRE(r.messages.size() == 1);
  const auto& f = r.flows.at(0);
  CHECK_FALSE(f.complete());
  REQUIRE(f.gap);
  CHECK(f.gap->offset == first.size());
  CHECK(f.gap->missing == 10);
  CHECK(f.stream_bytes == first.size());

  SECTION("a snap length that cuts a payload is a gap too")
  {
    PcapBuilder cut;
    cut.segment(k_decode, k_prefill, 0, 0x02, {});
    cut.segment(k_decode, k_prefill, 1, 0x18, first, 100);
    const auto rc = analyze(cut.write(dir.path / "cut.pcap"));
    CHECK(rc.messages.empty());
    REQUIRE(rc.flows.at(0).gap);
    CHECK(rc.flows.at(0).gap->offset == 100);
    CHECK(rc.flows.at(0).gap->missing == first.size() - 100);
    CHECK(rc.flows.at(0).ended_inside_message);
  }
  SECTION("a capture that starts mid-connection is read but not called complete")
  {
    PcapBuilder late;
    late.segment(k_decode, k_prefill, 7, 0x18, first);
    const auto rl = analyze(late.write(dir.path / "late.pcap"));
    CHECK(rl.messages.size() == 1);
    CHECK_FALSE(rl.flows.at(0).syn_seen);
    CHECK_FALSE(rl.flows.at(0).complete());
  }
}

TEST_CASE("capture: port and host filters, and flows that are not ZMTP", "[capture]")
{
  CaptureTempDir dir;
  const wire::Frames reg = example_frames("qwen3-next-tp2-rank1-mooncake-components.json");
  PcapBuilder pcap;
  test::send_stream(pcap, k_decode, k_prefill, test::zmtp_stream({as_bytes(reg)}), 1400);
  const TcpEnd http_client{"10.0.0.3", 40000};
  const TcpEnd bootstrap{"10.0.0.1", 8998};
  const std::string get = "GET /route?prefill_dp_rank=-1 HTTP/1.1\r\n\r\n";
  test::send_stream(pcap, http_client, bootstrap, ByteString(get.begin(), get.end()), 1400);
  const std::string path = pcap.write(dir.path / "mixed.pcap");
  const auto all = analyze(path);
  CHECK(all.flows.size() == 2);
  CHECK(all.messages.size() == 1);
  CHECK(flow_from(all, http_client).verdict == capture::FlowVerdict::not_zmtp);

  capture::AnalyzerOptions port;
  port.ports = {8998};
  const auto only_http = analyze(path, port);
  CHECK(only_http.messages.empty());
  CHECK(only_http.flows.size() == 1);
  CHECK(only_http.filtered_out == 4);

  capture::AnalyzerOptions host;
  host.host = capture::parse_address("10.0.0.2");
  const auto only_decode = analyze(path, host);
  CHECK(only_decode.flows.size() == 1);
  CHECK(only_decode.messages.size() == 1);
}

TEST_CASE("capture: unclassified messages say why", "[capture]")
{
  CaptureTempDir dir;
  const std::vector<ByteString> status = {{'7', '3', '4'}, {'2'}, {'0'}}; // a prefill -> decode status message
  const std::vector<ByteString> no_guard = {{'N', 'o', 'n', 'e'}, {'x'}};
  PcapBuilder pcap;
  test::send_stream(pcap, k_prefill, k_decode, test::zmtp_stream({status, no_guard}), 1400);
  capture::AnalyzerOptions mori;
  mori.backend = TransferBackend::mori;
  const auto r = analyze(pcap.write(dir.path / "u.pcap"));
  REQUIRE(r.messages.size() == 2);
  CHECK(r.messages[0].kind == capture::MessageKind::unclassified);
  CHECK(r.messages[0].problem.rfind("frame 0 is a room number but the 3 frames do not decode as a TransferInfo: ", 0) == 0);
  CHECK(r.messages[1].kind == capture::MessageKind::unclassified);
  CHECK(r.messages[1].problem.rfind("frame 0 is None (a registration) but the frames do not decode: ", 0) == 0);
  const auto forced = analyze(dir.path / "u.pcap", mori);
  CHECK(forced.messages[1].problem ==
        "no MoriMsgGuard guard frame: SGLang's mori receiver drops it as a malformed bootstrap message");
}

TEST_CASE("capture: malformed pcaps and ZMTP streams name the packet or flow and the byte", "[capture]")
{
  CaptureTempDir dir;
  const std::string junk = dir.write("junk.pcap", "this is not a capture file at all");
  CHECK(error_of(junk) == junk + ": cannot read as pcap or pcapng: unknown file format");
  const std::string missing = (dir.path / "missing.pcap").string();
  CHECK(error_of(missing) == missing + ": cannot read as pcap or pcapng: No such file or directory");

  const wire::Frames reg = example_frames("qwen3-next-tp2-rank1-mooncake-components.json");
  PcapBuilder pcap;
  test::send_stream(pcap, k_decode, k_prefill, test::zmtp_stream({as_bytes(reg)}), 500);
  ByteString bytes = pcap.bytes();
  {
    // Cut inside the last packet's data.
    const std::string path = (dir.path / "short.pcap").string();
    std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() - 30));
    const std::string e = error_of(path);
    CHECK(e.rfind(path + ": packet " + std::to_string(pcap.packets()) + ": cannot read: truncated dump file", 0) == 0);
  }
  {
    PcapBuilder bad;
    ByteString packet = bad.link_header(false);
    const ByteString ip = {0x43, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
                           0, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0, 0, 0, 0, 0, 0, 0};
    packet.insert(packet.end(), ip.begin(), ip.end());
    bad.raw(packet);
    const std::string path = bad.write(dir.path / "ihl.pcap");
    CHECK(error_of(path) == path + ": packet 1: byte 14: IPv4 header length 3 words is below the minimum 5");
  }
  {
    ByteString stream = test::zmtp_stream({as_bytes(reg)});
    // Greeting 64 + READY 28 bytes, frame 0 (None) 6 bytes: byte 98 is frame 1's flags.
    stream[98] = 0x41;
    PcapBuilder broken;
    test::send_stream(broken, k_decode, k_prefill, stream, 1400);
    const std::string path = broken.write(dir.path / "zmtp.pcap");
    const auto r = analyze(path);
    REQUIRE(r.flows.at(0).error);
    const Run cli = pdcheck_cli("capture " + path + " --out " + (dir.path / "out").string());
    CHECK(cli.code == 2);
    CHECK(cli.out == "pdcheck: error: " + path + ": flow 10.0.0.2:41234 -> 10.0.0.1:17000: stream byte 98: frame flags "
                     "0x41: reserved bits set (not a ZMTP 3 frame header)\n");

    // A good registration first, then the broken stream: the file written for
    // the good one is removed again, and so is the --out this run created.
    PcapBuilder mixed;
    test::send_stream(mixed, TcpEnd{"10.0.0.3", 41300}, k_prefill, test::zmtp_stream({as_bytes(reg)}), 1400);
    test::send_stream(mixed, k_decode, k_prefill, stream, 1400);
    const std::string mixed_path = mixed.write(dir.path / "mixed.pcap");
    const auto out = dir.path / "mixed-out";
    const Run partial = pdcheck_cli("capture " + mixed_path + " --out " + (out / "deeper").string());
    CHECK(partial.code == 2);
    CHECK(partial.out.find("stream byte 98: frame flags 0x41") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(out)); // both levels this run created
    // An --out that existed keeps what was there before.
    std::filesystem::create_directories(out);
    dir.write("mixed-out/keep.json", "{}");
    CHECK(pdcheck_cli("capture " + mixed_path + " --out " + out.string()).code == 2);
    CHECK(std::distance(std::filesystem::directory_iterator(out), std::filesystem::directory_iterator()) == 1);
    CHECK(std::filesystem::exists(out / "keep.json"));
  }
  {
    PcapBuilder sll(test::Link::ethernet);
    ByteString b = sll.bytes();
    b[20] = 105; // LINKTYPE_IEEE802_11: Wi-Fi frames
    const std::string path = (dir.path / "wifi.pcap").string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
    CHECK(error_of(path) == path + ": link type 105 (IEEE802_11) is not one pdcheck reads; capture with tcpdump -i any "
                                   "or on an Ethernet or loopback interface (Ethernet (1), Linux cooked SLL (113) and "
                                   "SLL2 (276), loopback NULL (0) and LOOP (108), raw IP (101, 228, 229))");
  }
}

TEST_CASE("pdcheck capture: without a usable libpcap it cannot run, and says what to install", "[capture][cli]")
{
  const std::string pcap = "tests/data/capture/zmq-loopback-push-pull.pcap";
  const auto with_library = [&](const std::string& library) {
    // --port 9: no flow matches, so nothing would be written.
    return test::run_command(fmt::format("cd {} && PDCHECK_PCAP_LIBRARY={} {} capture {} --port 9",
                                         PDCHECK_SOURCE_DIR, library, PDCHECK_BINARY, pcap));
  };
  const Run missing = with_library("/nonexistent/libpcap.so.0.8");
  CHECK(missing.code == 3);
  CHECK(missing.out == "pdcheck: cannot run: reading a pcap needs libpcap: /nonexistent/libpcap.so.0.8: cannot open "
                       "shared object file: No such file or directory (install Debian's libpcap0.8)\n");
  // A library that loads but is not libpcap.
  const Run not_pcap = with_library("libz.so.1");
  CHECK(not_pcap.code == 3);
  CHECK(not_pcap.out ==
        "pdcheck: cannot run: libz.so.1 has no pcap_open_offline_with_tstamp_precision: not a usable libpcap (1.5 or "
        "newer)\n");
  // The default is Debian's libpcap, found by the loader.
  const Run found = with_library("libpcap.so.0.8");
  CHECK(found.code == 0);
  CHECK(found.out.find("no registration or TransferInfo found: nothing written\n") != std::string::npos);
}

TEST_CASE("capture: a real ZMQ PUSH/PULL exchange recorded on loopback", "[capture]")
{
  // tests/data/capture/zmq-loopback-push-pull.pcap was recorded with
  // tests/capture/record_zmq_loopback (libzmq 4.3.4 on lo) sending these two
  // example captures; tests/capture/live_loopback.sh records a fresh one when
  // it may capture.
  const std::string path = std::string(PDCHECK_SOURCE_DIR) + "/tests/data/capture/zmq-loopback-push-pull.pcap";
  const auto r = analyze(path);
  REQUIRE(r.messages.size() == 2);
  CHECK(r.frames[0] == example_frames("qwen3-next-tp2-rank1-mooncake-components.json"));
  CHECK(r.frames[1] == example_frames("mori-transfer-info-two-state-indices.json"));
  for (const auto& f : r.flows) {
    CHECK(f.complete());
    CHECK(f.zmtp_version == "3.1");
  }
}

TEST_CASE("pdcheck capture: files for check --decode-capture, summary and JSON", "[capture][cli]")
{
  CaptureTempDir dir;
  const std::string out = (dir.path / "caps").string();
  const std::string pcap = std::string(PDCHECK_SOURCE_DIR) + "/tests/data/capture/zmq-loopback-push-pull.pcap";
  const Run text = pdcheck_cli("capture " + pcap + " --out " + out);
  CHECK(text.code == 0);
  CHECK(text.out.find("flows    2 TCP flows: 2 ZMTP, 0 other\n") != std::string::npos);
  CHECK(text.out.find("messages 2: 1 mooncake registration, 1 mori transfer_info\n") != std::string::npos);
  CHECK(text.out.find("decode ranks registered: 1 (from 127.0.0.1)\n") != std::string::npos);
  const std::string reg_file = out + "/0001-registration-mooncake-rank1.json";
  REQUIRE(std::filesystem::exists(reg_file));
  const io::Capture c = io::load_capture(reg_file);
  REQUIRE(c.flow);
  CHECK(c.flow->dst == "127.0.0.1:17123");
  CHECK(c.flow->pcap == pcap);
  CHECK(c.time.rfind("2026-12-01T", 0) == 0);

  const Run json = pdcheck_cli("capture " + pcap + " --out " + out + " --format json --port 17123");
  REQUIRE(json.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK(j["messages"][0]["kind"] == "registration");
  CHECK(j["messages"][0]["dst_tp_rank"] == 1);
  CHECK(j["messages"][1]["room"] == "7340032117");
  CHECK(j["flows"][0]["complete"] == true);

  const Run check = pdcheck_cli("check examples/pairs/hetero-tp-scatter-works/prefill.yaml --decode-capture " + out);
  CHECK(check.code == 0);
  CHECK(check.out.find("decode   " + reg_file) != std::string::npos);

  const std::string capped_out = (dir.path / "capped").string();
  const Run capped = pdcheck_cli("capture " + pcap + " --out " + capped_out + " --max-transfer-infos 0");
  CHECK(capped.code == 0);
  CHECK(capped.out.find("messages 2: 1 mooncake registration, 1 mori transfer_info\n") != std::string::npos);
  CHECK(capped.out.find("1 more TransferInfo counted but not written (--max-transfer-infos 0)\n") != std::string::npos);
  CHECK(capped.out.find("wrote 1 capture file to " + capped_out + "/\n") != std::string::npos);
  CHECK(std::filesystem::exists(capped_out + "/0001-registration-mooncake-rank1.json"));
  CHECK_FALSE(std::filesystem::exists(capped_out + "/0002-transfer_info-mori-room7340032117.json"));

  const std::string no_regs = (dir.path / "no-regs").string();
  const Run no_reg = pdcheck_cli("capture " + pcap + " --out " + no_regs + " --max-registrations 0 --format json");
  CHECK(no_reg.code == 0);
  const auto nj = nlohmann::json::parse(no_reg.out);
  CHECK(nj["registrations_not_written"] == 1);
  CHECK(nj["registrations_repeated"] == 0);
  CHECK(nj["transfer_infos_not_written"] == 0);
  CHECK(nj["messages"].size() == 1);
  CHECK_FALSE(std::filesystem::exists(no_regs + "/0001-registration-mooncake-rank1.json"));

  const Run none = pdcheck_cli("capture " + pcap + " --out " + out + " --port 9");
  CHECK(none.code == 0);
  CHECK(none.out.find("no registration or TransferInfo found: nothing written\n") != std::string::npos);
  const Run host = pdcheck_cli("capture " + pcap + " --host 10.0.0.300");
  CHECK(host.code == 2);
  CHECK(host.out == "pdcheck: error: --host: expected an IPv4 or IPv6 address, got '10.0.0.300'\n");
}
