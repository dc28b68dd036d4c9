#include "probe/probe_report.hpp"

namespace pdcheck::probe {

report::ProbeResult probe_result(const ProbeReport& r)
{
  report::ProbeResult out;
  static_cast<report::ProbeFacts&>(out) = r;
  if (r.gpu) {
    out.gpu = report::ProbeGpu{r.gpu->ordinal, r.gpu->name, r.gpu->pci_bus_id, r.gpu->driver_version, r.gpu->dmabuf};
  }
  report::ProbeVerification& v = out.verification;
  v.bytes = r.tally.bytes;
  v.wrong = r.tally.wrong;
  v.unwritten = r.tally.unwritten;
  v.stray = r.tally.stray;
  v.ranges_dropped = r.tally.ranges_dropped;
  for (const MismatchRange& m : r.tally.ranges) {
    v.ranges.push_back(report::ProbeMismatch{m.rank, m.entry, m.tensor, m.layer, m.offset, m.bytes, m.never_arrived,
                                             m.first, m.last, describe_range(m)});
  }
  return out;
}

std::string probe_to_text(const ProbeReport& r)
{
  return report::probe_to_text(probe_result(r));
}

} // namespace pdcheck::probe
