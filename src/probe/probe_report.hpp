#pragma once

// The probe's record of one run: the facts every report shows (plain data of
// report/probe_render.hpp), the verdict, and the probe's own GPU and
// verification records, which probe_result() turns into what the renderers take.

#include "probe/gpu_memory.hpp"
#include "probe/pattern.hpp"
#include "probe/probe_error.hpp"
#include "report/probe_render.hpp"
#include "util/error.hpp"

#include <optional>
#include <string>

namespace pdcheck::probe {

using PhaseReport = report::ProbePhase;
using RequestReport = report::ProbeRequest;
using Failure = report::ProbeFailure;

struct ProbeReport : report::ProbeFacts
{
  /// ok: every byte verified; findings: a byte wrong or never written, a stray
  /// write, an SGLang rule violated; cannot_run: the run stopped (the failure says why).
  Verdict verdict = Verdict::cannot_run;
  std::optional<GpuInfo> gpu; ///< the GPU the pools live on (--memory cuda:N)
  VerifyTally tally;
};

/// What report::probe_to_json and probe_to_text take.
report::ProbeResult probe_result(const ProbeReport& r);

/// Text of a report (report::probe_to_text of probe_result), for tests and logs.
std::string probe_to_text(const ProbeReport& r);

} // namespace pdcheck::probe
