#pragma once

// The probe's result, rendered as text or as JSON per schemas/probe.schema.json.

#include "probe/gpu_memory.hpp"
#include "probe/pattern.hpp"
#include "probe/probe_error.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::probe {

struct PhaseReport
{
  std::string name;
  double seconds = 0;
  std::int64_t bytes = 0;
  std::int64_t work_requests = 0;
  std::optional<bool> ok; ///< empty for phases with no verdict
  std::string detail;
};

struct RequestReport
{
  int index = 0;
  int iteration = 0;
  std::int64_t room = 0;
  std::int64_t src_slot = 0;
  std::int64_t dst_slot = 0;
  int state_indices_sent = 1;
  /// "verified", "corrupted", "never-arrived", "failed" (SGLang raised or a
  /// completion failed), "skipped" (the backend skipped the component)
  std::string outcome;
  std::optional<std::string> sglang_error; ///< the exact text SGLang raises
  std::optional<std::string> transport_error;
  double latency_seconds = 0; ///< TransferInfo sent -> completion signalled (decode's clock)
  double write_seconds = 0;   ///< posts + completions (prefill's clock)
  std::int64_t bytes = 0;
  std::int64_t work_requests = 0;
  std::int64_t wrong_bytes = 0;
  std::int64_t unwritten_bytes = 0;
};

struct Failure
{
  std::string phase;
  std::string message;
  std::string hint;
};

struct ProbeReport
{
  std::string role; ///< "prefill", "decode" or "loopback"
  std::string transport;
  std::string memory = "host";
  /// "host", "gpu-direct-dmabuf", "gpu-direct-peermem", "staged" (memory_path_name), or
  /// "unregistered" when GPU memory was asked for but the run stopped before registering it
  std::string memory_path = "host";
  std::optional<GpuInfo> gpu; ///< the GPU the pools live on (--memory cuda:N)
  std::string backend;
  std::string prefill_profile;
  std::string decode_profile;
  std::string model;
  int prefill_ranks = 0;
  int decode_ranks = 0;
  int slots = 0;
  std::int64_t pool_bytes = 0;
  bool verified = false;
  int exit_code = 3;
  std::vector<PhaseReport> phases;
  std::vector<RequestReport> requests;
  VerifyTally tally;
  std::int64_t bytes = 0;
  std::int64_t work_requests = 0;
  double write_seconds = 0;
  double line_rate_gbps = 0;
  /// Findings that stop SGLang before any transfer (exact runtime text when SGLang has one).
  std::vector<std::string> refusals;
  std::optional<Failure> failure;
  std::vector<std::string> notes;
  std::vector<std::string> teardown_issues;
  std::string checker_prediction; ///< what `pdcheck check` predicts for this pair

  double bandwidth_gbytes_per_s() const { return write_seconds > 0 ? static_cast<double>(bytes) / write_seconds / 1e9 : 0; }
  double latency_percentile(double p) const;
  void add_phase(PhaseReport p) { phases.push_back(std::move(p)); }
};

nlohmann::ordered_json probe_to_json(const ProbeReport& r);
std::string probe_to_text(const ProbeReport& r);

} // namespace pdcheck::probe
