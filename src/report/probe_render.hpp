#pragma once

// `pdcheck probe`: the result of one run, rendered as text or as JSON per
// schemas/probe.schema.json. Plain data: the probe (src/probe/) fills
// ProbeFacts as it runs and converts its GPU and verification records into a
// ProbeResult (probe::probe_result) for these renderers.

#include "plan/meaning.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::report {

struct ProbePhase
{
  std::string name;
  double seconds = 0;
  std::int64_t bytes = 0;
  std::int64_t work_requests = 0;
  std::optional<bool> ok; ///< empty for phases with no verdict
  std::string detail;
};

struct ProbeRequest
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

struct ProbeFailure
{
  std::string phase;
  std::string message;
  std::string hint;
};

/// The GPU the pools live on (--memory cuda:N).
struct ProbeGpu
{
  int ordinal = 0;
  std::string name;
  std::string pci_bus_id;
  int driver_version = 0; ///< 12040 = CUDA 12.4
  bool dmabuf = false;
};

/// One contiguous range of wrong bytes, in logical terms.
struct ProbeMismatch
{
  int rank = 0;
  int entry = 0;
  std::string tensor;
  int layer = -1;
  std::int64_t offset = 0; ///< within the slot
  std::int64_t bytes = 0;
  bool never_arrived = false;
  plan::LogicalByte first;
  plan::LogicalByte last;
  std::string description; ///< "rank 0 entry 1 temporal layer 4: ..."
};

struct ProbeVerification
{
  std::int64_t bytes = 0;
  std::int64_t wrong = 0;
  std::int64_t unwritten = 0;
  std::int64_t stray = 0;
  std::vector<ProbeMismatch> ranges;
  std::int64_t ranges_dropped = 0;

  bool clean() const { return wrong == 0 && unwritten == 0 && stray == 0; }
};

/// What every probe report says, filled in by the probe's ends as they run.
struct ProbeFacts
{
  std::string role; ///< "prefill", "decode" or "loopback"
  std::string transport;
  std::string memory = "host";
  /// "host", "gpu-direct-dmabuf", "gpu-direct-peermem", "staged" (memory_path_name), or
  /// "unregistered" when GPU memory was asked for but the run stopped before registering it
  std::string memory_path = "host";
  std::string backend;
  std::string prefill_profile;
  std::string decode_profile;
  std::string model;
  int prefill_ranks = 0;
  int decode_ranks = 0;
  int slots = 0;
  std::int64_t pool_bytes = 0;
  bool verified = false;
  std::vector<ProbePhase> phases;
  std::vector<ProbeRequest> requests;
  std::int64_t bytes = 0;
  std::int64_t work_requests = 0;
  double write_seconds = 0;
  double line_rate_gbps = 0;
  /// RC queue pairs the writes were spread over (--qps; 1 on TCP).
  std::int64_t queue_pairs = 1;
  /// Findings that stop SGLang before any transfer (exact runtime text when SGLang has one).
  std::vector<std::string> refusals;
  std::optional<ProbeFailure> failure;
  std::vector<std::string> notes;
  std::vector<std::string> teardown_issues;
  std::string checker_prediction; ///< what `pdcheck check` predicts for this pair

  double bandwidth_gbytes_per_s() const { return write_seconds > 0 ? static_cast<double>(bytes) / write_seconds / 1e9 : 0; }
  /// Nearest-rank percentile of the requests' latencies (0 when none was timed).
  double latency_percentile(double p) const;
  void add_phase(ProbePhase p) { phases.push_back(std::move(p)); }
};

/// What the renderers take.
struct ProbeResult : ProbeFacts
{
  std::optional<ProbeGpu> gpu;
  ProbeVerification verification;
};

/// `exit_code` is the process's exit status for this run, echoed in the
/// document for CI jobs that keep only the JSON.
nlohmann::ordered_json probe_to_json(const ProbeResult& r, int exit_code);
std::string probe_to_text(const ProbeResult& r);

} // namespace pdcheck::report
