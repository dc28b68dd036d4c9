#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/run.hpp"
#include "io/side_file.hpp"
#include "probe/gpu_memory.hpp"
#include "probe/oob.hpp"
#include "probe/probe_session.hpp"
#include "probe/rdma.hpp"
#include "probe/tcp_transport.hpp"
#include "report/probe_render.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
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
  std::string memory = "host";
  int requests = 2;
  int iterations = 1;
  double timeout = 30;
  int bad_state_indices = -1;
  int slots = 4;
  ReportOptions report;
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

CLI::Validator memory_validator()
{
  return CLI::Validator(
    [](std::string& word) -> std::string {
      if (word == "host" || cuda_ordinal(word)) {
        return "";
      }
      return "expected host or cuda:N (N the GPU's CUDA ordinal), got '" + word + "'";
    },
    "host|cuda:N");
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
  if (const auto ordinal = cuda_ordinal(o.memory)) {
    const int n = *ordinal;
    p.open_gpu = [n] { return probe::open_cuda_device(n); };
  }
  return p;
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

void add_common(CLI::App* cmd, ProbeCliOptions& o)
{
  cmd->add_option("--transport", o.transport, "rdma, tcp or auto (RDMA when a device is present)")
    ->check(CLI::IsMember({"rdma", "tcp", "auto"}));
  cmd->add_option("--device", o.device, "RDMA device name (default: the first one)");
  cmd->add_option("--ib-port", o.ib_port, "RDMA port number (default 1)")->check(integer_range(1, 255));
  cmd->add_option("--gid-index", o.gid_index, "GID index (default: ranked choice, see `pdcheck devices`)")
    ->check(integer_range(0, 65535));
  cmd->add_option("--memory", o.memory, "host (default), or cuda:N: GPU memory through the CUDA driver")
    ->check(memory_validator());
  cmd->add_option("--requests", o.requests, "requests per iteration (default 2)")->check(integer_range(1, 1000000));
  cmd->add_option("--iterations", o.iterations, "iterations over the requests (default 1)")->check(integer_range(1, 1000000));
  cmd->add_option("--timeout", o.timeout, "seconds for every connect, read and request (default 30)")
    ->check(number_range(0.1, 86400.0));
  cmd->add_option("--bad-state-indices", o.bad_state_indices,
                  "send 0 or 2 state indices per Mamba component instead of 1")
    ->check(CLI::IsMember({0, 2}));
  cmd->add_option("--slots", o.slots, "slots per state buffer (default 4; slot 0 is never used)")->check(integer_range(2, 1024));
  add_report_options(cmd, o.report);
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
}

} // namespace pdcheck::cli
