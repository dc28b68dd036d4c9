#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "io/fleet_plan_file.hpp"
#include "io/side_file.hpp"
#include "model/layout.hpp"
#include "probe/fleet_session.hpp"
#include "probe/mpi_launcher.hpp"
#include "probe/launcher_env.hpp"
#include "probe/gpu_memory.hpp"
#include "probe/oob.hpp"
#include "probe/probe_session.hpp"
#include "probe/rdma.hpp"
#include "probe/tcp_transport.hpp"
#include "report/fleet_probe_render.hpp"
#include "report/probe_render.hpp"
#include "sglang/side_layout.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string_view>
#include <memory>

#include <ostream>

namespace pdcheck::cli {

namespace {

struct ProbeCliOptions
{
  std::string prefill_file;
  std::string decode_file;
  std::string listen;
  std::string connect;
  std::string transport = "auto";
  std::string device;
  int ib_port = 1;
  int gid_index = -1;
  int qps = 1;
  std::string memory = "host";
  int requests = 2;
  int iterations = 1;
  double timeout = 30;
  int bad_state_indices = -1;
  int slots = 4;
  ReportOptions report;
};

struct FleetCliOptions
{
  std::string plan;
  std::optional<int> rank;
  std::optional<int> size;
  std::string coordinator;
  std::string listen = "0.0.0.0:0";
  std::string advertise;
  double join_timeout = 60;
  double pair_timeout = 0;
  std::vector<std::string> outputs;
  bool mpi = false;
};

/// --transport auto: RDMA when a device is present, else TCP (said in the report).
std::string resolve_transport(const ProbeCliOptions& o, std::string& note)
{
  if (o.transport != "auto") {
    return o.transport;
  }
  try {
    probe::list_rdma_devices();
    return "rdma";
  } catch (const CannotRun& e) {
    note = std::string("--transport auto chose tcp: ") + e.what();
    return "tcp";
  }
}

probe::TransportFactory factory_for(const ProbeCliOptions& o, const std::string& kind)
{
  if (kind == "rdma") {
    probe::VerbsOptions v;
    v.device = o.device;
    v.ib_port = o.ib_port;
    v.gid_index = o.gid_index;
    v.queue_pairs = static_cast<std::size_t>(o.qps);
    return [v](const std::string&) { return probe::open_verbs_transport(v); };
  }
  const double timeout = o.timeout;
  return [timeout](const std::string& bind_host) { return std::make_unique<probe::TcpTransport>(bind_host, timeout); };
}

/// A progress line on stderr, redrawn at most five times a second, when stderr
/// is a terminal (never in a pipe or a CI log).
std::function<void(int, int, std::int64_t)> progress_line(std::ostream& err, const char* verb)
{
  if (isatty(STDERR_FILENO) != 1) {
    return nullptr;
  }
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [&err, verb, last](int done, int total, std::int64_t bytes) {
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - *last < std::chrono::milliseconds(200)) {
      return;
    }
    *last = now;
    err << fmt::format("\rpdcheck probe: request {}/{} · {:.1f} MB {}", done, total,
                       static_cast<double>(bytes) / 1e6, verb)
        << (done >= total ? "\n" : "") << std::flush;
  };
}

/// The N of "cuda:N", or nullopt for anything else.
std::optional<int> cuda_ordinal(const std::string& memory)
{
  constexpr std::string_view prefix = "cuda:";
  if (memory.size() <= prefix.size() || memory.size() > prefix.size() + 4 || memory.rfind(prefix, 0) != 0) {
    return std::nullopt;
  }
  int n = 0;
  for (char c : memory.substr(prefix.size())) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    n = n * 10 + (c - '0');
  }
  return n;
}

/// --memory: host or cuda:N; the fleet probe also takes cuda:local (the GPU
/// of the launcher's local rank).
CLI::Validator memory_validator(bool fleet)
{
  return CLI::Validator(
    [fleet](std::string& word) -> std::string {
      if (word == "host" || cuda_ordinal(word) || (fleet && word == "cuda:local")) {
        return "";
      }
      return fleet ? "expected host, cuda:N (N the GPU's CUDA ordinal) or cuda:local, got '" + word + "'"
                   : "expected host or cuda:N (N the GPU's CUDA ordinal), got '" + word + "'";
    },
    fleet ? "host|cuda:N|cuda:local" : "host|cuda:N");
}

probe::ProbeOptions session_options(const ProbeCliOptions& o)
{
  probe::ProbeOptions p;
  p.requests = o.requests;
  p.iterations = o.iterations;
  p.timeout = o.timeout;
  p.state_indices = o.bad_state_indices < 0 ? 1 : o.bad_state_indices;
  p.slots = o.slots;
  p.memory = o.memory;
  p.write.lanes = static_cast<std::size_t>(o.qps);
  if (const auto ordinal = cuda_ordinal(o.memory)) {
    const int n = *ordinal;
    p.open_gpu = [n] { return probe::open_cuda_device(n); };
  }
  return p;
}

std::vector<std::string> report_formats_of_fleet()
{
  return {"text", "json", "junit", "svg", "html"};
}

std::string render_fleet(const std::string& format, const report::FleetProbeResult& r, int exit_code)
{
  if (format == "json") {
    return report::fleet_probe_to_json(r, exit_code).dump(2) + "\n";
  }
  if (format == "junit") {
    return report::fleet_probe_to_junit(r);
  }
  if (format == "svg") {
    return report::fleet_probe_to_svg(r);
  }
  if (format == "html") {
    return report::fleet_probe_to_html(r);
  }
  return report::fleet_probe_to_text(r);
}

std::optional<std::string> environment_variable(const std::string& name)
{
  const char* v = std::getenv(name.c_str());
  return v == nullptr ? std::nullopt : std::optional<std::string>(v);
}

int attention_tp_of(const sglang::Side& side)
{
  const model::LayoutInput in = sglang::layout_input(side);
  return model::attention_tp_size(in.tp_size, in.dp_size, in.enable_dp_attention, in.attn_cp_size);
}

/// FNV-1a of what every rank must agree on: roles, pairs and both sides'
/// profile and model. Stable across hosts and builds.
std::string plan_digest(const plan::FleetRoles& roles, const std::vector<plan::FleetPair>& pairs,
                        const sglang::Side& prefill, const sglang::Side& decode)
{
  std::string text = fmt::format("prefill {} decode {} pairs", fmt::join(roles.prefill, ","), fmt::join(roles.decode, ","));
  for (const plan::FleetPair& p : pairs) {
    text += fmt::format(" {}-{}", p.prefill, p.decode);
  }
  text += fmt::format(" | {} {} | {} {}", prefill.profile.name, prefill.model.name, decode.profile.name, decode.model.name);
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h = (h ^ c) * 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

std::string_view pairing_name(plan::PairChoice c)
{
  switch (c) {
  case plan::PairChoice::all:
    return "all";
  case plan::PairChoice::sglang:
    return "sglang";
  case plan::PairChoice::listed:
    return "listed";
  }
  return "all";
}

Verdict verdict_of_exit(int code)
{
  return code == 0 ? Verdict::ok : code == 1 ? Verdict::findings : Verdict::cannot_run;
}

/// How long rank 0 waits, after its own end is done, for every rank's account
/// of its own through MPI: the ranks finish within moments of each other
/// (each is told "done"), and one that failed early sent its account then.
constexpr double k_mpi_gather_seconds = 15;

/// `probe fleet --mpi`: what this rank has done of MPI's collective steps, so
/// that a rank that fails (a side file missing on its host, an output it
/// cannot write) still takes part in the ones the others wait in, says why
/// through the gather, and leaves MPI: Open MPI ends the whole job when a rank
/// exits without MPI_Finalize, before rank 0 could report.
struct MpiSteps
{
  probe::MpiSession* mpi = nullptr;
  /// How long this rank waits in MPI_Finalize for the others: as long as the
  /// fleet can last. A rank that leaves sooner exits unfinalized, and Open MPI
  /// then ends the whole job, rank 0 with its report unwritten.
  double finalize_seconds = 0;
  bool exchanged = false;
  bool gathered = false;
  bool left = false;

  std::string exchange(const std::string& address, double seconds)
  {
    exchanged = true;
    return mpi->broadcast(address, seconds);
  }

  /// Finalize waits as long as a fleet of `rounds` rounds can take, and the gather after it.
  void last_as_long_as(const probe::FleetOptions& fleet, std::size_t rounds)
  {
    finalize_seconds = probe::longest_fleet_seconds(fleet, rounds) + k_mpi_gather_seconds;
  }

  std::vector<std::string> gather(const std::string& mine, double seconds)
  {
    gathered = true;
    return mpi->gather(mine, seconds);
  }

  void leave(std::ostream& out, std::ostream& err, int rank)
  {
    if (left) {
      return;
    }
    left = true;
    out.flush();
    if (const std::string why = mpi->finalize(finalize_seconds); !why.empty()) {
      err << "pdcheck probe fleet: rank " << rank << ": " << why << "\n";
    }
  }

  /// The steps not yet taken, for a rank that stops with `why`.
  void fail_out(int rank, const std::string& why, double join_seconds, std::ostream& out, std::ostream& err)
  {
    try {
      if (!exchanged) {
        exchange("", join_seconds); // rank 0: "could not start"; the others: rank 0's address, unused
      }
      if (!gathered) {
        gather(fmt::format("3 rank {}: {}", rank, why), k_mpi_gather_seconds);
      }
    } catch (const probe::ProbeError&) {
      // MPI itself failed: leaving it does nothing then, and the launcher ends the job
    }
    leave(out, err, rank);
  }
};

Verdict run_fleet_placed(ProbeCliOptions& o, const FleetCliOptions& f, CommandContext& ctx, const plan::FleetPlan& plan,
                         const probe::FleetPlace& place, MpiSteps* mpi)
{
  if (o.memory == "cuda:local") {
    o.memory = fmt::format("cuda:{}", place.local_rank);
  }
  probe::FleetOptions fo;
  fo.probe = session_options(o);
  fo.advertise = f.advertise;
  fo.join_timeout = f.join_timeout;
  fo.pair_timeout = f.pair_timeout;
  fo.plan_label = f.plan;
  fo.pairing = std::string(pairing_name(plan.pairs));
  fo.launcher = place.source;
  fo.wait_for_rank0_report = !mpi;
  if (mpi) {
    // Until the pairs are known, as long as any schedule of this many ranks
    // can take: greedy rounds never exceed twice the ranks.
    mpi->last_as_long_as(fo, 2 * static_cast<std::size_t>(place.size));
  }
  const plan::FleetRoles roles = plan::resolve_roles(plan, place.size);
  const sglang::Side prefill = io::load_side_file(plan.prefill_side);
  const sglang::Side decode = io::load_side_file(plan.decode_side);
  const std::vector<plan::FleetPair> pairs = plan::fleet_pairs(plan, roles, attention_tp_of(prefill), attention_tp_of(decode));
  if (mpi) {
    mpi->last_as_long_as(fo, plan::schedule_rounds(pairs).size());
  }
  // With --mpi, rank 0 publishes its address through MPI: --coordinator (or
  // the plan's), when given, chooses its port and the host it names.
  const std::string coordinator_text =
    mpi ? (!f.coordinator.empty() ? f.coordinator : !plan.coordinator.empty() ? plan.coordinator : "0.0.0.0:0")
        : probe::fleet_coordinator(environment_variable, f.coordinator, plan.coordinator);
  const probe::HostPort coordinator = probe::parse_host_port(coordinator_text, "--coordinator");
  const probe::HostPort listen = probe::parse_host_port(f.listen, "--listen");
  std::string note;
  const std::string kind = resolve_transport(o, note);
  fo.listen_host = listen.host;
  fo.listen_port = listen.port;
  fo.plan_digest = plan_digest(roles, pairs, prefill, decode);
  fo.transport = kind;
  fo.coordinator = coordinator_text;
  const bool is_prefill = std::binary_search(roles.prefill.begin(), roles.prefill.end(), place.rank);
  probe::CoordinatorExchange exchange;
  if (mpi) {
    exchange = [&](const std::string& address) { return mpi->exchange(address, f.join_timeout); };
  }
  probe::FleetOutcome outcome = probe::run_fleet_rank(place, coordinator, roles, pairs, is_prefill ? prefill : decode,
                                                      fo, factory_for(o, kind), exchange);
  if (mpi) {
    try {
      const std::vector<std::string> said =
        mpi->gather(fmt::format("{} {}", outcome.exit_code, outcome.summary), k_mpi_gather_seconds);
      if (outcome.result) {
        probe::add_ranks_own_words(*outcome.result, said);
      }
    } catch (const probe::ProbeError& e) {
      if (outcome.result) {
        outcome.result->notes.push_back(fmt::format("the ranks' own accounts were not gathered through MPI: {}", e.detail()));
      }
    }
  }
  // Leaves MPI once everything is written. MPI_Finalize waits for every rank
  // (a rank that failed early waits there for the fleet to end), and Open MPI
  // ends the job when one rank exits before the others finalize.
  const auto leave_mpi = [&] {
    if (mpi) {
      mpi->leave(*ctx.out, *ctx.err, place.rank);
    }
  };
  if (!outcome.result) {
    *ctx.err << "pdcheck probe fleet: " << outcome.summary << "\n";
    leave_mpi();
    return verdict_of_exit(outcome.exit_code);
  }
  write_requested_outputs(
    f.outputs, [&](const std::string& format) { return render_fleet(format, *outcome.result, outcome.exit_code); },
    *ctx.out);
  *ctx.out << render_fleet(o.report.format, *outcome.result, outcome.exit_code);
  if (!note.empty() && o.report.format == "text") {
    *ctx.out << "note: " << note << "\n";
  }
  ctx.out->flush();
  outcome.release_ranks(); // the report is out: the other ranks may exit now
  leave_mpi();
  return verdict_of_exit(outcome.exit_code);
}


Verdict run_fleet(ProbeCliOptions& o, const FleetCliOptions& f, CommandContext& ctx)
{
  const plan::FleetPlan plan = io::load_fleet_plan(f.plan);
  std::unique_ptr<probe::MpiSession> mpi;
  probe::FleetPlace place;
  if (!f.mpi) {
    place = probe::fleet_place(environment_variable, f.rank, f.size);
    return run_fleet_placed(o, f, ctx, plan, place, nullptr);
  }
  mpi = probe::MpiSession::start(f.join_timeout);
  place = {mpi->rank(), mpi->size(), mpi->local_rank(), fmt::format("MPI ({})", mpi->implementation())};
  MpiSteps steps{mpi.get(), f.join_timeout + k_mpi_gather_seconds}; // run_fleet_placed sets the fleet's own bound
  try {
    return run_fleet_placed(o, f, ctx, plan, place, &steps);
  } catch (const std::exception& e) {
    steps.fail_out(place.rank, e.what(), f.join_timeout, *ctx.out, *ctx.err);
    throw;
  }
}
Verdict finish(const probe::ProbeReport& run, const ProbeCliOptions& o, const std::string& kind,
               const std::string& note, CommandContext& ctx)
{
  report::ProbeResult r = probe::probe_result(run);
  if (r.transport.empty()) {
    r.transport = kind; // the transport could not even be opened
  }
  if (!note.empty()) {
    r.notes.insert(r.notes.begin(), note);
  }
  if (o.report.format == "json") {
    *ctx.out << report::probe_to_json(r, exit_status_for(run.verdict)).dump(2) << "\n";
  } else {
    *ctx.out << report::probe_to_text(r);
  }
  return run.verdict;
}

void add_common(CLI::App* cmd, ProbeCliOptions& o, bool fleet = false)
{
  cmd->add_option("--transport", o.transport, "rdma, tcp or auto (RDMA when a device is present)")
    ->check(CLI::IsMember({"rdma", "tcp", "auto"}));
  cmd->add_option("--device", o.device, "RDMA device name (default: the first one)");
  cmd->add_option("--ib-port", o.ib_port, "RDMA port number (default 1)")->check(integer_range(1, 255));
  cmd->add_option("--gid-index", o.gid_index, "GID index (default: ranked choice, see `pdcheck devices`)")
    ->check(integer_range(0, 65535));
  cmd->add_option("--qps", o.qps,
                  fmt::format("RDMA queue pairs to spread the writes over, 1 to {} (default 1; the same on both ends)",
                              probe::k_max_queue_pairs))
    ->check(integer_range(1, static_cast<int>(probe::k_max_queue_pairs)));
  cmd->add_option("--memory", o.memory, "host (default), or cuda:N: GPU memory through the CUDA driver")
    ->check(memory_validator(fleet));
  cmd->add_option("--requests", o.requests, "requests per iteration (default 2)")->check(integer_range(1, 1000000));
  cmd->add_option("--iterations", o.iterations, "iterations over the requests (default 1)")->check(integer_range(1, 1000000));
  cmd->add_option("--timeout", o.timeout, "seconds for every connect, read and request (default 30)")
    ->check(number_range(0.1, 86400.0));
  if (!fleet) {
    cmd->add_option("--bad-state-indices", o.bad_state_indices,
                    "send 0 or 2 state indices per Mamba component instead of 1")
      ->check(CLI::IsMember({0, 2}));
  }
  cmd->add_option("--slots", o.slots, "slots per state buffer (default 4; slot 0 is never used)")->check(integer_range(2, 1024));
  if (fleet) {
    ReportFlags flags;
    flags.formats = report_formats_of_fleet();
    add_report_options(cmd, o.report, flags);
  } else {
    add_report_options(cmd, o.report);
  }
}

} // namespace

void install_probe(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<ProbeCliOptions>();
  CLI::App* probe_cmd = app.add_subcommand("probe", "Move a real-shaped Mamba state between prefill and decode and "
                                                    "verify every byte");
  probe_cmd->require_subcommand(1);

  CLI::App* serve = probe_cmd->add_subcommand("serve", "Decode end: listen, receive the state, verify it");
  serve->add_option("decode", o->decode_file, "Decode side file")->required();
  serve->add_option("--listen", o->listen, "ADDR:PORT to listen on")->required();
  add_common(serve, *o);
  serve->callback([o, &ctx] {
    std::string note;
    const sglang::Side decode = io::load_side_file(o->decode_file);
    const probe::HostPort hp = probe::parse_host_port(o->listen, "--listen");
    probe::ProbeOptions po = session_options(*o);
    po.progress = progress_line(*ctx.err, "verified");
    const std::string kind = resolve_transport(*o, note);
    ctx.verdict = finish(probe::serve(decode, hp, po, factory_for(*o, kind)), *o, kind, note, ctx);
  });

  CLI::App* send = probe_cmd->add_subcommand("send", "Prefill end: connect, fill, execute the plan");
  send->add_option("prefill", o->prefill_file, "Prefill side file")->required();
  send->add_option("--connect", o->connect, "HOST:PORT of `pdcheck probe serve`")->required();
  add_common(send, *o);
  send->callback([o, &ctx] {
    std::string note;
    const sglang::Side prefill = io::load_side_file(o->prefill_file);
    const probe::HostPort hp = probe::parse_host_port(o->connect, "--connect");
    probe::ProbeOptions po = session_options(*o);
    po.progress = progress_line(*ctx.err, "written");
    const std::string kind = resolve_transport(*o, note);
    ctx.verdict = finish(probe::send(prefill, hp, po, factory_for(*o, kind)), *o, kind, note, ctx);
  });

  CLI::App* loop = probe_cmd->add_subcommand("loopback", "Both ends in one process over 127.0.0.1");
  loop->add_option("prefill", o->prefill_file, "Prefill side file")->required();
  loop->add_option("decode", o->decode_file, "Decode side file")->required();
  add_common(loop, *o);
  loop->callback([o, &ctx] {
    std::string note;
    const sglang::Side prefill = io::load_side_file(o->prefill_file);
    const sglang::Side decode = io::load_side_file(o->decode_file);
    probe::ProbeOptions po = session_options(*o);
    po.progress = progress_line(*ctx.err, "verified");
    const std::string kind = resolve_transport(*o, note);
    ctx.verdict = finish(probe::loopback(prefill, decode, po, factory_for(*o, kind)), *o, kind, note, ctx);
  });

  auto f = std::make_shared<FleetCliOptions>();
  CLI::App* fleet = probe_cmd->add_subcommand("fleet", "One rank of a fleet started by mpirun, srun or a Kubernetes "
                                                       "Indexed Job: probe every planned prefill x decode pair");
  fleet->add_option("plan", f->plan, "Fleet plan: side files, which ranks are prefill and decode, which pairs")
    ->required();
  CLI::Option* rank = fleet->add_option("--rank", f->rank, "this process's rank (default: from the launcher's environment)")
    ->check(integer_range(0, probe::k_max_fleet_size - 1));
  CLI::Option* size = fleet->add_option("--size", f->size, "ranks in the fleet (default: from the launcher's environment)")
    ->check(integer_range(1, probe::k_max_fleet_size));
  fleet->add_flag("--mpi", f->mpi,
                  "rank, size and rank 0's address from MPI itself, every rank's own account gathered through MPI "
                  "(needs pdcheck-mpi.so, built where MPI is installed)")
    ->excludes(rank)
    ->excludes(size);
  fleet->add_option("--coordinator", f->coordinator,
                    "HOST:PORT where rank 0 gathers the fleet (default: the plan's, PDCHECK_FLEET_COORDINATOR, "
                    "or MASTER_ADDR:MASTER_PORT)");
  fleet->add_option("--listen", f->listen, "ADDR:PORT of this rank's probe listener (default 0.0.0.0:0, any port)");
  fleet->add_option("--advertise", f->advertise,
                    "the host other ranks reach this one at (default: the address that reaches rank 0)");
  fleet->add_option("--join-timeout", f->join_timeout, "seconds rank 0 waits for every rank to join (default 60)")
    ->check(number_range(0.1, 86400.0));
  fleet->add_option("--pair-timeout", f->pair_timeout,
                    "seconds rank 0 waits for a pair's results before calling a rank hung (default: (6 + requests x iterations) x --timeout + 10)")
    ->check(number_range(0.1, 86400.0));
  fleet->add_option("--output", f->outputs, "Also write the report, FORMAT=PATH (repeatable; rank 0 only)")
    ->check(output_request_validator(report_formats_of_fleet()));
  add_common(fleet, *o, true);
  fleet->callback([o, f, &ctx] { ctx.verdict = run_fleet(*o, *f, ctx); });
}

} // namespace pdcheck::cli
