#pragma once

// The TCP transport: the same work requests as RDMA WRITE, carried over one
// TCP connection per probe pair. The target end (decode) runs a receiver
// thread that checks each write against its registered regions (as a NIC
// checks an rkey and bounds) and places the payload directly in the state
// pool; a signalled write is acknowledged only after its bytes are in place,
// so a completion means what an RC completion means.

#include "probe/transport.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace pdcheck::probe {

class TcpTransport : public Transport
{
public:
  /// `bind_host` is where the target listens for the data connection (the
  /// host of the OOB listener; 0.0.0.0 for any). `op_timeout` bounds each send.
  TcpTransport(std::string bind_host, double op_timeout, std::size_t max_outstanding = 256);
  ~TcpTransport() override;

  std::string_view name() const override { return "tcp"; }
  RegionKey register_region(void* addr, std::uint64_t length) override;
  /// {"data_port": N}; the initiator adds the host it reached the OOB on.
  nlohmann::json local_endpoint() const override;
  void connect(const nlohmann::json& peer, bool initiator, Deadline deadline) override;
  std::size_t max_outstanding() const override { return m_max_outstanding; }
  void post_writes(std::span<const WriteWork> batch) override;
  std::size_t poll(std::span<Completion> out, Deadline deadline) override;
  std::vector<std::string> shutdown() override;

private:
  struct Region
  {
    std::uint8_t* addr;
    std::uint64_t length;
  };
  void receive_loop(Deadline accept_deadline);
  std::uint8_t* resolve(std::uint32_t rkey, std::uint64_t addr, std::uint64_t length);

  std::string m_bind_host;
  double m_op_timeout;
  std::size_t m_max_outstanding;
  std::optional<Listener> m_listener;
  Fd m_data;
  std::mutex m_regions_mutex;
  std::map<std::uint32_t, Region> m_regions;
  std::uint32_t m_next_key = 0x100;
  std::thread m_receiver;
  std::atomic<bool> m_stop{false};
  std::mutex m_error_mutex;
  std::optional<std::string> m_receiver_error;
};

} // namespace pdcheck::probe
