// Records a real ZMQ PUSH -> PULL exchange on the loopback interface into a
// pcap, the way `tcpdump -i lo -w` would: a PULL socket bound on 127.0.0.1
// (the prefill rank's port), a PUSH socket connecting to it (the decode rank),
// every capture file given sent as one multipart message, then both closed so
// the FIN handshake is captured too.
//
//   record_zmq_loopback OUT.pcap PORT CAPTURE.json...
//
// Exit 77 (CTest's "skipped") when live capture is not permitted here (it needs
// CAP_NET_RAW) or the loopback device is missing; 1 on any other failure.
// Used only by the tests; libzmq is a test-only dependency.
#include "io/capture_file.hpp"

#include <pcap/pcap.h>
#include <zmq.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

int fail(const std::string& what)
{
  std::fprintf(stderr, "record_zmq_loopback: %s\n", what.c_str());
  return 1;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 4) {
    std::fprintf(stderr, "usage: record_zmq_loopback OUT.pcap PORT CAPTURE.json...\n");
    return 2;
  }
  const std::string out = argv[1];
  const std::string port = argv[2];
  std::vector<pdcheck::io::Capture> captures;
  for (int i = 3; i < argc; ++i) {
    captures.push_back(pdcheck::io::load_capture(argv[i]));
  }

  char errbuf[PCAP_ERRBUF_SIZE] = {};
  pcap_t* live = pcap_create("lo", errbuf);
  if (live == nullptr) {
    std::fprintf(stderr, "record_zmq_loopback: skipped: %s\n", errbuf);
    return 77;
  }
  pcap_set_snaplen(live, 262144);
  pcap_set_timeout(live, 50);
  pcap_set_immediate_mode(live, 1);
  if (const int rc = pcap_activate(live); rc < 0) {
    std::fprintf(stderr, "record_zmq_loopback: skipped: cannot capture on lo: %s\n", pcap_geterr(live));
    pcap_close(live);
    return 77;
  }
  bpf_program filter{};
  const std::string expr = "tcp port " + port;
  if (pcap_compile(live, &filter, expr.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0 || pcap_setfilter(live, &filter) != 0) {
    return fail(std::string("filter: ") + pcap_geterr(live));
  }
  pcap_dumper_t* dump = pcap_dump_open(live, out.c_str());
  if (dump == nullptr) {
    return fail(std::string("cannot write ") + out + ": " + pcap_geterr(live));
  }
  // Non-blocking reads: libpcap's packet-buffer timeout does not bound a read
  // on an idle interface.
  if (pcap_setnonblock(live, 1, errbuf) != 0) {
    return fail(std::string("pcap_setnonblock: ") + errbuf);
  }
  std::atomic<bool> stop{false};
  std::thread capturer([&] {
    auto drain = [&] {
      int n = 0;
      while ((n = pcap_dispatch(live, -1, pcap_dump, reinterpret_cast<u_char*>(dump))) > 0) {
      }
      return n;
    };
    while (!stop.load()) {
      if (drain() < 0) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    drain(); // what is still buffered
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200)); // the capture is running before the first SYN

  void* ctx = zmq_ctx_new();
  void* pull = zmq_socket(ctx, ZMQ_PULL);
  void* push = zmq_socket(ctx, ZMQ_PUSH);
  const int linger = 1000;
  zmq_setsockopt(push, ZMQ_LINGER, &linger, sizeof linger);
  const std::string endpoint = "tcp://127.0.0.1:" + port;
  int status = 0;
  if (zmq_bind(pull, endpoint.c_str()) != 0 || zmq_connect(push, endpoint.c_str()) != 0) {
    status = fail(std::string("zmq: ") + zmq_strerror(zmq_errno()));
  }
  for (const auto& c : captures) {
    for (std::size_t i = 0; status == 0 && i < c.frames.size(); ++i) {
      const int flags = i + 1 < c.frames.size() ? ZMQ_SNDMORE : 0;
      if (zmq_send(push, c.frames[i].data(), c.frames[i].size(), flags) < 0) {
        status = fail(std::string("zmq_send: ") + zmq_strerror(zmq_errno()));
      }
    }
  }
  // Receive everything, so every byte has crossed the loopback before closing.
  const int timeout_ms = 5000;
  zmq_setsockopt(pull, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
  for (const auto& c : captures) {
    for (std::size_t i = 0; status == 0 && i < c.frames.size(); ++i) {
      zmq_msg_t msg;
      zmq_msg_init(&msg);
      if (zmq_msg_recv(&msg, pull, 0) < 0) {
        status = fail(std::string("zmq_msg_recv: ") + zmq_strerror(zmq_errno()));
      } else if (zmq_msg_size(&msg) != c.frames[i].size()) {
        status = fail("a frame arrived with another size");
      }
      zmq_msg_close(&msg);
    }
  }
  zmq_close(push);
  zmq_close(pull);
  zmq_ctx_term(ctx);
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // FIN / ACK on the wire
  stop.store(true);
  capturer.join();
  pcap_dump_close(dump);
  pcap_freecode(&filter);
  pcap_close(live);
  return status;
}
