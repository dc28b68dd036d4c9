#include "report/probe_render.hpp"
#include "util/plural.hpp"
#include "util/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace pdcheck::report {

double ProbeFacts::latency_percentile(double p) const
{
  std::vector<double> v;
  for (const ProbeRequest& r : requests) {
    if (r.latency_seconds > 0) {
      v.push_back(r.latency_seconds);
    }
  }
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  // Nearest-rank percentile: the smallest value with at least p% at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
  return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
}

namespace {

nlohmann::ordered_json logical_json(const plan::LogicalByte& b)
{
  return {{"space", b.space == 0 ? "conv" : "temporal"}, {"layer", b.layer},   {"row", b.outer},
          {"channel", b.channel},                         {"byte", b.byte},     {"itemsize", b.itemsize}};
}

std::string describe_memory_path(const std::string& path)
{
  if (path == "gpu-direct-dmabuf") {
    return "the NIC reads and writes GPU memory (dma-buf)";
  }
  if (path == "gpu-direct-peermem") {
    return "the NIC reads and writes GPU memory (nvidia-peermem)";
  }
  if (path == "staged") {
    return "staged through host memory: the transport cannot reach GPU memory";
  }
  return "memory path " + path;
}

} // namespace

nlohmann::ordered_json probe_to_json(const ProbeResult& r, int exit_code)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["tool"] = "pdcheck";
  j["version"] = PDCHECK_VERSION;
  j["verified"] = r.verified;
  j["exit_code"] = exit_code;
  j["role"] = r.role;
  j["transport"] = r.transport;
  j["memory"] = r.memory;
  j["memory_path"] = r.memory_path;
  if (r.gpu) {
    j["gpu"] = {{"ordinal", r.gpu->ordinal},
                {"name", r.gpu->name},
                {"pci_bus_id", r.gpu->pci_bus_id},
                {"driver_version", r.gpu->driver_version},
                {"dmabuf", r.gpu->dmabuf}};
  } else {
    j["gpu"] = nullptr;
  }
  j["backend"] = r.backend;
  j["prefill_profile"] = r.prefill_profile;
  j["decode_profile"] = r.decode_profile;
  j["model"] = r.model;
  j["prefill_ranks"] = r.prefill_ranks;
  j["decode_ranks"] = r.decode_ranks;
  j["slots"] = r.slots;
  j["pool_bytes"] = r.pool_bytes;
  j["checker_prediction"] = r.checker_prediction;
  j["phases"] = nlohmann::ordered_json::array();
  for (const ProbePhase& p : r.phases) {
    nlohmann::ordered_json pj;
    pj["name"] = p.name;
    pj["seconds"] = p.seconds;
    pj["bytes"] = p.bytes;
    pj["work_requests"] = p.work_requests;
    pj["ok"] = p.ok ? nlohmann::ordered_json(*p.ok) : nlohmann::ordered_json();
    pj["detail"] = p.detail;
    j["phases"].push_back(std::move(pj));
  }
  nlohmann::ordered_json t;
  t["bytes"] = r.bytes;
  t["work_requests"] = r.work_requests;
  t["queue_pairs"] = r.queue_pairs;
  t["seconds"] = r.write_seconds;
  t["bandwidth_gbytes_per_s"] = r.bandwidth_gbytes_per_s();
  t["line_rate_gbps"] = r.line_rate_gbps > 0 ? nlohmann::ordered_json(r.line_rate_gbps) : nlohmann::ordered_json();
  t["percent_of_line_rate"] = r.line_rate_gbps > 0
                                ? nlohmann::ordered_json(100.0 * r.bandwidth_gbytes_per_s() * 8.0 / r.line_rate_gbps)
                                : nlohmann::ordered_json();
  t["latency_p50_ms"] = r.latency_percentile(50) * 1e3;
  t["latency_p99_ms"] = r.latency_percentile(99) * 1e3;
  j["transfer"] = std::move(t);
  j["requests"] = nlohmann::ordered_json::array();
  for (const ProbeRequest& q : r.requests) {
    nlohmann::ordered_json qj;
    qj["index"] = q.index;
    qj["iteration"] = q.iteration;
    qj["room"] = q.room;
    qj["src_slot"] = q.src_slot;
    qj["dst_slot"] = q.dst_slot;
    qj["state_indices_sent"] = q.state_indices_sent;
    qj["outcome"] = q.outcome;
    qj["sglang_error"] = q.sglang_error ? nlohmann::ordered_json(*q.sglang_error) : nlohmann::ordered_json();
    qj["transport_error"] = q.transport_error ? nlohmann::ordered_json(*q.transport_error) : nlohmann::ordered_json();
    qj["latency_ms"] = q.latency_seconds * 1e3;
    qj["write_ms"] = q.write_seconds * 1e3;
    qj["bytes"] = q.bytes;
    qj["work_requests"] = q.work_requests;
    qj["wrong_bytes"] = q.wrong_bytes;
    qj["unwritten_bytes"] = q.unwritten_bytes;
    j["requests"].push_back(std::move(qj));
  }
  nlohmann::ordered_json v;
  v["bytes_checked"] = r.verification.bytes;
  v["wrong_bytes"] = r.verification.wrong;
  v["unwritten_bytes"] = r.verification.unwritten;
  v["stray_bytes"] = r.verification.stray;
  v["mismatches"] = nlohmann::ordered_json::array();
  for (const ProbeMismatch& m : r.verification.ranges) {
    v["mismatches"].push_back({{"rank", m.rank},
                               {"entry", m.entry},
                               {"tensor", m.tensor},
                               {"layer", m.layer},
                               {"slot_offset", m.offset},
                               {"bytes", m.bytes},
                               {"never_arrived", m.never_arrived},
                               {"first", logical_json(m.first)},
                               {"last", logical_json(m.last)},
                               {"description", m.description}});
  }
  v["mismatches_not_listed"] = r.verification.ranges_dropped;
  j["verification"] = std::move(v);
  j["refusals"] = r.refusals;
  if (r.failure) {
    j["failure"] = {{"phase", r.failure->phase}, {"message", r.failure->message}, {"hint", r.failure->hint}};
  } else {
    j["failure"] = nullptr;
  }
  j["notes"] = r.notes;
  j["teardown_issues"] = r.teardown_issues;
  return j;
}

std::string probe_to_text(const ProbeResult& r)
{
  std::string out;
  out += fmt::format("pdcheck probe ({}): {} over {}, {} memory\n", r.role, r.model.empty() ? "?" : r.model,
                     r.transport.empty() ? "?" : r.transport, r.memory);
  if (r.gpu) {
    out += fmt::format("  GPU cuda:{} {}{}, CUDA driver {}.{}; {}\n", r.gpu->ordinal, r.gpu->name,
                       r.gpu->pci_bus_id.empty() ? "" : " at " + r.gpu->pci_bus_id, r.gpu->driver_version / 1000,
                       r.gpu->driver_version % 1000 / 10, describe_memory_path(r.memory_path));
  }
  if (!r.backend.empty()) {
    out += fmt::format("  backend {}, prefill {} ({}), decode {} ({}), {}, {} of state pools\n", r.backend,
                       r.prefill_profile, counted(r.prefill_ranks, "rank"), r.decode_profile,
                       counted(r.decode_ranks, "rank"), counted(r.slots, "slot"), bytes_text(static_cast<std::uint64_t>(r.pool_bytes)));
  }
  out += "phases:\n";
  for (const ProbePhase& p : r.phases) {
    out += fmt::format("  {:<16} {:>9.3f} ms", p.name, p.seconds * 1e3);
    if (p.bytes > 0) {
      out += fmt::format("  {:>10}", bytes_text(static_cast<std::uint64_t>(p.bytes)));
    }
    if (p.work_requests > 0) {
      out += fmt::format("  {:>7} WRs", p.work_requests);
    }
    if (p.ok) {
      out += *p.ok ? "  ok" : "  FAILED";
    }
    if (!p.detail.empty()) {
      out += "  " + p.detail;
    }
    out += "\n";
  }
  if (!r.requests.empty()) {
    out += fmt::format("transfer: {} in {}", bytes_text(static_cast<std::uint64_t>(r.bytes)),
                       counted(static_cast<long long>(r.work_requests), "work request"));
    if (r.queue_pairs > 1) {
      out += fmt::format(" over {} queue pairs", r.queue_pairs);
    }
    out += fmt::format(", {:.3f} GB/s", r.bandwidth_gbytes_per_s());
    if (r.line_rate_gbps > 0) {
      out += fmt::format(" ({:.1f}% of {:g} Gb/s line rate)", 100.0 * r.bandwidth_gbytes_per_s() * 8.0 / r.line_rate_gbps,
                         r.line_rate_gbps);
    }
    out += fmt::format("; latency p50 {:.3f} ms, p99 {:.3f} ms\n", r.latency_percentile(50) * 1e3,
                       r.latency_percentile(99) * 1e3);
    for (const ProbeRequest& q : r.requests) {
      if (q.outcome != "verified") {
        out += fmt::format("  request {} (room {}, slot {} -> {}, {}): {}{}{}\n", q.index, q.room,
                           q.src_slot, q.dst_slot, counted(q.state_indices_sent, "state index", "state indices"), q.outcome,
                           q.sglang_error ? ": " + *q.sglang_error : "",
                           q.transport_error ? ": " + *q.transport_error : "");
      }
    }
  }
  if (r.verification.bytes > 0 || !r.verification.clean()) {
    out += fmt::format("verification: {} checked, {} wrong, {} never arrived, {} stray (bytes)\n",
                       bytes_text(static_cast<std::uint64_t>(r.verification.bytes)),
                       r.verification.wrong, r.verification.unwritten, r.verification.stray);
    for (const ProbeMismatch& m : r.verification.ranges) {
      out += "  " + m.description + "\n";
    }
    if (r.verification.ranges_dropped > 0) {
      out += fmt::format("  ... and {} more ranges\n", r.verification.ranges_dropped);
    }
  }
  for (const std::string& s : r.refusals) {
    out += "refused: " + s + "\n";
  }
  if (!r.checker_prediction.empty()) {
    out += "pdcheck check predicted: " + r.checker_prediction + "\n";
  }
  for (const std::string& n : r.notes) {
    out += "note: " + n + "\n";
  }
  for (const std::string& t : r.teardown_issues) {
    out += "teardown: " + t + "\n";
  }
  if (r.failure) {
    out += fmt::format("FAILED in phase {}: {}\n", r.failure->phase, r.failure->message);
    if (!r.failure->hint.empty()) {
      out += "  check: " + r.failure->hint + "\n";
    }
  }
  out += fmt::format("verified: {}\n", r.verified ? "yes" : "no");
  return out;
}

} // namespace pdcheck::report
