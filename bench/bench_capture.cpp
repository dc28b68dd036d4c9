// `pdcheck capture PCAP` throughput, through the same libpcap reader and
// analyzer the CLI uses, in MB/s of pcap input (goal: >= 500 MB/s). Two
// captures are written to /tmp in 1448-byte TCP segments over Ethernet/IPv4:
//   typical:    what `tcpdump -i any` records on a decode host: 16 bulk TCP
//               flows of other traffic (not ZMTP: skipped after their first
//               bytes) with 8 decode -> prefill ZMQ connections carrying
//               registrations and TransferInfos (about 2% of the bytes);
//   worst case: nothing but ZMQ messages, every byte reassembled and parsed and
//               every message classified (about 8000 messages per MB).
// Anchors measured on the same file in the same run: libpcap reading every
// packet and nothing more (in process), and, where installed, `tcpdump -r F
// -w /dev/null` against the `pdcheck capture F` CLI (goals: the CLI within
// 2.5x of tcpdump on the typical capture, 10x on the worst case; in process
// >= 500 MB/s on the worst case).
//   bench_capture [TYPICAL_MB=1024] [WORST_MB=256]   (PDCHECK_BENCH_KEEP=1 keeps the pcaps)
#include "io/capture_file.hpp"
#include "io/pcap_file.hpp"

#include "bench_child.hpp"

#include "../tests/support/pcap_builder.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <pcap/pcap.h>
#include <unistd.h>

using pdcheck::test::ByteString;
using pdcheck::test::TcpEnd;

namespace {

constexpr std::size_t k_mss = 1448;

struct Flow
{
  TcpEnd src;
  TcpEnd dst;
  std::uint32_t seq = 1001;
};

/// Writes a pcap of roughly `megabytes`: each round sends `zmtp_block` on every
/// ZMQ flow and `bulk_bytes` on every bulk flow.
std::string write_capture(std::int64_t megabytes, const ByteString& zmtp_block, std::size_t bulk_bytes, int bulk_flows)
{
  char path[] = "/tmp/pdcheck-bench-capture-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    std::perror("mkstemp");
    std::exit(1);
  }
  FILE* out = fdopen(fd, "w");
  const std::int64_t target = megabytes << 20;
  std::int64_t written = 0;
  bool header_written = false;
  auto flush = [&](pdcheck::test::PcapBuilder& b) {
    const ByteString bytes = b.bytes();
    const std::size_t skip = header_written ? 24 : 0; // one pcap file header
    std::fwrite(bytes.data() + skip, 1, bytes.size() - skip, out);
    written += static_cast<std::int64_t>(bytes.size() - skip);
    header_written = true;
  };
  std::vector<Flow> zmq;
  std::vector<Flow> bulk;
  for (int f = 0; f < 8; ++f) {
    zmq.push_back({{"10.0.0.2", static_cast<std::uint16_t>(40000 + f)}, {"10.0.0.1", 17000}});
  }
  for (int f = 0; f < bulk_flows; ++f) {
    bulk.push_back({{"10.0.1.7", static_cast<std::uint16_t>(50000 + f)}, {"10.0.0.2", 443}});
  }
  const ByteString greeting = pdcheck::test::zmtp_stream({});
  ByteString noise(k_mss);
  for (std::size_t i = 0; i < noise.size(); ++i) {
    noise[i] = static_cast<std::uint8_t>(i * 131 + 7);
  }
  {
    pdcheck::test::PcapBuilder b;
    for (Flow& f : zmq) {
      b.segment(f.src, f.dst, 1000, 0x02, {});
      b.segment(f.src, f.dst, f.seq, 0x18, greeting);
      f.seq += static_cast<std::uint32_t>(greeting.size());
    }
    for (Flow& f : bulk) {
      b.segment(f.src, f.dst, 1000, 0x02, {});
    }
    flush(b);
  }
  auto send = [](pdcheck::test::PcapBuilder& b, Flow& f, const ByteString& bytes) {
    for (std::size_t at = 0; at < bytes.size(); at += k_mss) {
      const std::size_t n = std::min(k_mss, bytes.size() - at);
      b.segment(f.src, f.dst, f.seq, 0x18,
                ByteString(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                           bytes.begin() + static_cast<std::ptrdiff_t>(at + n)));
      f.seq += static_cast<std::uint32_t>(n);
    }
  };
  while (written < target) {
    pdcheck::test::PcapBuilder b;
    for (Flow& f : zmq) {
      send(b, f, zmtp_block);
    }
    for (Flow& f : bulk) {
      for (std::size_t sent = 0; sent < bulk_bytes; sent += k_mss) {
        send(b, f, noise);
      }
    }
    flush(b);
  }
  std::fclose(out);
  return path;
}

/// CPU seconds for libpcap alone to read every packet of the file.
double libpcap_read_seconds(const std::string& path, std::uint64_t& bytes)
{
  char err[PCAP_ERRBUF_SIZE] = {};
  const std::clock_t cpu0 = std::clock();
  pcap_t* p = pcap_open_offline(path.c_str(), err);
  if (p == nullptr) {
    fmt::print("libpcap cannot open {}: {}\n", path, err);
    std::exit(1);
  }
  pcap_pkthdr* header = nullptr;
  const u_char* data = nullptr;
  while (pcap_next_ex(p, &header, &data) == 1) {
    bytes += header->caplen;
  }
  pcap_close(p);
  return static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
}

void measure(const std::string& name, const std::string& path, const std::string& goal)
{
  std::uint64_t frames_seen = 0;
  pdcheck::capture::AnalyzerOptions options;
  options.max_listed_transfer_infos = 1000; // as pdcheck capture lists them
  options.on_message = [&frames_seen](const pdcheck::capture::FoundMessage&, const pdcheck::capture::FlowReport&,
                                      const pdcheck::wire::Frames& frames) { frames_seen += frames.size(); };
  const auto wall0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock();
  const pdcheck::io::PcapSummary s = pdcheck::io::analyze_pcap(path, options);
  const double cpu = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::uint64_t read_bytes = 0;
  const double libpcap_cpu = libpcap_read_seconds(path, read_bytes);

  std::uint64_t zmtp_bytes = 0;
  for (const auto& f : s.report.flows) {
    zmtp_bytes += f.verdict == pdcheck::capture::FlowVerdict::zmtp ? f.stream_bytes : 0;
  }
  const double mb = static_cast<double>(s.report.bytes) / (1 << 20);
  fmt::print("{}\n", name);
  fmt::print("  pcap input          {:.0f} MB, {} packets, {} flows, {:.0f} MB of it ZMTP\n", mb, s.report.packets,
             s.report.flows.size(), static_cast<double>(zmtp_bytes) / (1 << 20));
  fmt::print("  messages            {} ({} registrations, {} TransferInfos, {} unclassified; {} frames)\n",
             s.report.message_count, s.report.registrations, s.report.transfer_infos, s.report.unclassified,
             frames_seen);
  fmt::print("  in process          {:.2f} s wall, {:.2f} s CPU -> {:.0f} MB/s per core; anchor: libpcap reading "
             "the file {:.0f} MB/s per core; ratio {:.2f}\n",
             wall, cpu, mb / cpu, mb / libpcap_cpu, libpcap_cpu / cpu);

  // The CLI, files and summary included, against tcpdump on the same file.
  const std::string out = path + ".out";
  const auto cli = pdcheck::bench::run_child({PDCHECK_BENCH_BINARY, "capture", path, "--out", out, "--format", "json"});
  std::error_code ec;
  std::uint64_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(out, ec)) {
    files += e.is_regular_file() ? 1 : 0;
  }
  std::filesystem::remove_all(out, ec);
  if (!cli || cli->status != 0) {
    fmt::print("  pdcheck capture     did not run cleanly\n");
  } else if (!pdcheck::bench::on_path("tcpdump")) {
    fmt::print("  pdcheck capture     {:.2f} s CPU, {} files written; anchor: tcpdump not installed\n", cli->cpu, files);
  } else if (const auto tcpdump = pdcheck::bench::run_child({"tcpdump", "-r", path, "-w", "/dev/null"})) {
    fmt::print("  pdcheck capture     {:.2f} s CPU, {} files written; anchor: tcpdump -r F -w /dev/null {:.2f} s CPU; "
               "ratio {:.1f} ({})\n",
               cli->cpu, files, tcpdump->cpu, cli->cpu / tcpdump->cpu, goal);
  }
  if (std::getenv("PDCHECK_BENCH_KEEP") != nullptr) {
    fmt::print("kept {}\n", path);
  } else {
    std::remove(path.c_str());
  }
}

} // namespace

int main(int argc, char** argv)
{
  const std::int64_t typical_mb = argc > 1 ? std::atoll(argv[1]) : 1024;
  const std::int64_t worst_mb = argc > 2 ? std::atoll(argv[2]) : 256;
  const std::string root = PDCHECK_BENCH_SOURCE_DIR;
  const auto reg = pdcheck::io::load_capture(root + "/examples/captures/qwen3-next-tp2-rank1-mooncake-components.json");
  const auto ti = pdcheck::io::load_capture(root + "/examples/captures/mori-transfer-info-two-state-indices.json");
  ByteString block; // one registration, then requests
  block = pdcheck::test::zmtp_frames({reg.frames.begin(), reg.frames.end()});
  for (int k = 0; k < 16; ++k) {
    const ByteString f = pdcheck::test::zmtp_frames({ti.frames.begin(), ti.frames.end()});
    block.insert(block.end(), f.begin(), f.end());
  }
  // typical: 8 x 5.7 KB of ZMQ per round against 16 x 64 KB of bulk traffic.
  measure("typical capture (bulk TCP traffic with the PD ZMQ connections)",
          write_capture(typical_mb, block, 64 << 10, 16), "goal <= 2.5");
  measure("worst case (every byte a ZMQ message)", write_capture(worst_mb, block, 0, 0), "goal <= 10");
  return 0;
}
