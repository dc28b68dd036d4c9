// `pdcheck capture`'s summary and `pdcheck decode`'s capture header from
// made-up data: the lines the capture tests would otherwise only see through a
// real pcap.
#include "report/capture_render.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

TEST_CASE("capture_summary_to_text: counts, the files written, the repeats and the messages left out", "[report]")
{
  capture::CaptureReport r;
  r.packets = 12;
  r.tcp_packets = 10;
  r.filtered_out = 2;
  r.ip_fragments = 1;
  r.message_count = 3;
  r.transfer_infos = 5;
  r.transfer_infos_not_listed = 2;
  r.registrations = 6;
  r.registrations_repeated = 4;
  r.registrations_not_listed = 1;
  r.by_kind = {{"mooncake registration", 1}, {"mooncake transfer_info", 2}};
  capture::FoundMessage m;
  m.kind = capture::MessageKind::registration;
  m.backend = TransferBackend::mooncake;
  r.messages.push_back(m);
  const report::PcapFile pcap{"x.pcap", "pcapng", 1, "EN10MB"};
  report::CaptureRun run{"out", 3, 1, {}};
  const std::string nothing = report::capture_summary_to_text(pcap, r, run);
  CHECK(nothing == "pcap     x.pcap · pcapng · link type EN10MB · 12 packets (10 TCP, 2 outside --port/--host)\n"
                   "         1 TCP packet was an IP fragment (not reassembled, their flows show gaps)\n"
                   "flows    0 TCP flows: 0 ZMTP, 0 other\n"
                   "messages 3: 1 mooncake registration, 2 mooncake transfer_info\n"
                   "4 repeated registrations not written again: the same decode host, prefill endpoint, rank "
                   "and frames as one written (SGLang's decode registers again on each new connection)\n"
                   "1 more registration counted but not written (--max-registrations 1)\n"
                   "2 more TransferInfos counted but not written (--max-transfer-infos 3)\n"
                   "no registration or TransferInfo found: nothing written\n");
  run.written.push_back({0, "out/0001-registration-mooncake.json"});
  const std::string wrote = report::capture_summary_to_text(pcap, r, run);
  CHECK(wrote.find("wrote 1 capture file to out/\n  out/0001-registration-mooncake.json  " +
                   capture::message_description(m) + "\n") != std::string::npos);
  const auto j = report::capture_summary_to_json(pcap, r, run);
  CHECK(j["pcap"] == "x.pcap");
  CHECK(j["linktype"] == 1);
  CHECK(j["transfer_infos_not_written"] == 2);
  CHECK(j["registrations_repeated"] == 4);
  CHECK(j["registrations_not_written"] == 1);
  REQUIRE(j["messages"].size() == 1);
  CHECK(j["messages"][0]["file"] == "out/0001-registration-mooncake.json");
  CHECK(j["messages"][0]["backend"] == "mooncake");
  CHECK(j["messages"][0]["room"].is_null());
  CHECK(j["out"] == "out");
}

TEST_CASE("capture_file_to_text and _json: only the fields the file has", "[report]")
{
  report::CaptureFileInfo c{"reg.json", 19, false, "", "", ""};
  CHECK(report::capture_file_to_text(c) == "capture reg.json (19 frames)\n");
  CHECK(report::capture_file_to_json(c) == nlohmann::json{{"file", "reg.json"}, {"frames", 19}, {"synthetic", false}});
  c.host = "10.0.0.2";
  c.time = "2026-12-02T10:00:00Z";
  c.note = "from a test";
  CHECK(report::capture_file_to_text(c) ==
        "capture reg.json (19 frames, host 10.0.0.2, 2026-12-02T10:00:00Z)\nnote: from a test\n");
  CHECK(report::capture_file_to_json(c)["note"] == "from a test");
}

TEST_CASE("sglang_decode_to_text and _json: the decoded message, or where SGLang raises", "[report]")
{
  report::SglangDecode d;
  d.file = report::CaptureFileInfo{"reg.json", 19, false, "", "", ""};
  d.kind = "registration";
  d.backend = "mooncake";
  d.body = nlohmann::json{{"room", "None"}};
  d.body_text = "room None\n";
  CHECK(report::sglang_decode_to_text(d) == "capture reg.json (19 frames)\nparsed as SGLang would\n\nroom None\n");
  auto j = report::sglang_decode_to_json(d);
  CHECK(j["room"] == "None");
  CHECK(j["mode"] == "sglang");
  CHECK_FALSE(j.contains("sglang_raises"));

  d.body = nullptr;
  d.generation = "components";
  d.problem = wire::FrameProblem{6, "dst_state_data_ptrs", std::nullopt, "struct.error: unpack requires a buffer",
                                 "the bootstrap thread dies"};
  d.notes = {"a note"};
  CHECK(report::sglang_decode_to_text(d) ==
        "capture reg.json (19 frames)\nparsed as SGLang would\nSGLang raises at frame 6 (dst_state_data_ptrs): "
        "struct.error: unpack requires a buffer\n  then: the bootstrap thread dies\n  a note\n");
  j = report::sglang_decode_to_json(d);
  CHECK(j["generation"] == "components");
  CHECK(j["kind"] == "registration");
  CHECK(j["sglang_raises"]["frame"] == 6);
  CHECK(j["sglang_raises"]["consequence"] == "the bootstrap thread dies");
  CHECK(j["notes"] == nlohmann::json::array({"a note"}));
}
