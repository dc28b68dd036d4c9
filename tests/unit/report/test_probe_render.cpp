// The probe's report from plain data: the exit status echoed in JSON, the
// GPU line, non-verified requests, mismatch descriptions, the failure and hint.
#include "report/probe_render.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

report::ProbeResult corrupted_run()
{
  report::ProbeResult r;
  r.role = "decode";
  r.transport = "tcp";
  r.model = "nemotron-h-8b";
  r.backend = "mooncake";
  r.prefill_profile = "v0.5.5";
  r.decode_profile = "v0.5.5";
  r.prefill_ranks = 2;
  r.decode_ranks = 1;
  r.slots = 4;
  r.pool_bytes = 3'000'000;
  r.add_phase({"register", 0.0025, 3'000'000, 0, true, ""});
  r.add_phase({"verify", 0.001, 0, 0, false, "2 bytes wrong"});
  report::ProbeRequest ok;
  ok.outcome = "verified";
  ok.latency_seconds = 0.002;
  report::ProbeRequest bad;
  bad.index = 1;
  bad.room = 7;
  bad.src_slot = 1;
  bad.dst_slot = 2;
  bad.outcome = "corrupted";
  bad.latency_seconds = 0.004;
  r.requests = {ok, bad};
  r.bytes = 2'000'000;
  r.write_seconds = 0.001;
  r.line_rate_gbps = 100;
  r.verification.bytes = 2'000'000;
  r.verification.wrong = 2;
  report::ProbeMismatch m;
  m.tensor = "conv";
  m.layer = 3;
  m.bytes = 2;
  m.description = "rank 0 entry 0 conv layer 3: 2 bytes at slot offset 0 (channels 0..0, rows 0..0): wrong data";
  r.verification.ranges = {m};
  r.verification.ranges_dropped = 5;
  return r;
}

} // namespace

TEST_CASE("probe_to_json: the exit status given, the verification with each description", "[report]")
{
  const report::ProbeResult r = corrupted_run();
  const auto j = report::probe_to_json(r, 1);
  CHECK(j["exit_code"] == 1);
  CHECK(report::probe_to_json(r, 3)["exit_code"] == 3);
  CHECK(j["verified"] == false);
  CHECK(j["gpu"].is_null());
  CHECK(j["failure"].is_null());
  CHECK(j["transfer"]["bandwidth_gbytes_per_s"].get<double>() == Approx(2.0));
  CHECK(j["transfer"]["percent_of_line_rate"].get<double>() == Approx(16.0));
  CHECK(j["transfer"]["latency_p50_ms"].get<double>() == Approx(2.0));
  CHECK(j["transfer"]["latency_p99_ms"].get<double>() == Approx(4.0));
  CHECK(j["verification"]["wrong_bytes"] == 2);
  CHECK(j["verification"]["mismatches"][0]["description"] == r.verification.ranges[0].description);
  CHECK(j["verification"]["mismatches"][0]["first"]["space"] == "conv");
  CHECK(j["verification"]["mismatches_not_listed"] == 5);
  CHECK(j["phases"][0]["ok"] == true);
  CHECK(j["requests"][1]["outcome"] == "corrupted");
}

TEST_CASE("probe_to_text: a corrupted run lists what went wrong", "[report]")
{
  const std::string text = report::probe_to_text(corrupted_run());
  CHECK(text.rfind("pdcheck probe (decode): nemotron-h-8b over tcp, host memory\n", 0) == 0);
  CHECK(text.find("  backend mooncake, prefill v0.5.5 (2 ranks), decode v0.5.5 (1 rank), 4 slots, 2.9 MiB of "
                  "state pools\n") != std::string::npos);
  CHECK(text.find("  verify               1.000 ms  FAILED  2 bytes wrong\n") != std::string::npos);
  CHECK(text.find("(16.0% of 100 Gb/s line rate); latency p50 2.000 ms, p99 4.000 ms\n") != std::string::npos);
  CHECK(text.find("  request 1 (room 7, slot 1 -> 2, 1 state index): corrupted\n") != std::string::npos);
  CHECK(text.find("request 0 ") == std::string::npos); // verified requests are not listed
  CHECK(text.find("verification: 1.9 MiB checked, 2 wrong, 0 never arrived, 0 stray (bytes)\n") != std::string::npos);
  CHECK(text.find("  ... and 5 more ranges\n") != std::string::npos);
  REQUIRE(text.size() >= 13);
  CHECK(text.compare(text.size() - 13, 13, "verified: no\n") == 0);
}

TEST_CASE("probe_to_text: the GPU line and a failure with its hint", "[report]")
{
  report::ProbeResult r;
  r.role = "prefill";
  r.transport = "rdma";
  r.memory = "cuda:0";
  r.memory_path = "staged";
  r.gpu = report::ProbeGpu{0, "NVIDIA H200", "0000:19:00.0", 12040, false};
  r.failure = report::ProbeFailure{"connect", "the peer stopped", "that both ends run the same pdcheck version"};
  const std::string text = report::probe_to_text(r);
  CHECK(text.rfind("pdcheck probe (prefill): ? over rdma, cuda:0 memory\n", 0) == 0);
  CHECK(text.find("  GPU cuda:0 NVIDIA H200 at 0000:19:00.0, CUDA driver 12.4; staged through host memory: the "
                  "transport cannot reach GPU memory\n") != std::string::npos);
  CHECK(text.find("FAILED in phase connect: the peer stopped\n  check: that both ends run the same pdcheck "
                  "version\nverified: no\n") != std::string::npos);
  const auto j = report::probe_to_json(r, 3);
  CHECK(j["gpu"]["driver_version"] == 12040);
  CHECK(j["failure"]["hint"] == "that both ends run the same pdcheck version");
}
