// `pdcheck probe fleet`: the launcher's place read from each launcher's
// variables, rank 0's address, how both ends' results make a pair's outcome,
// and the renderers of the gathered result.
#include "io/side_file.hpp"
#include "probe/fleet_session.hpp"
#include "probe/launcher_env.hpp"
#include "probe/mpi_launcher.hpp"
#include "probe/tcp_transport.hpp"
#include "report/fleet_probe_render.hpp"

#include "../../support/error_of.hpp"
#include "../../support/test_data.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <climits>
#include <future>
#include <map>
#include <thread>

using namespace pdcheck;
using test::error_of;

namespace {

probe::EnvLookup env_of(std::map<std::string, std::string> vars)
{
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

probe::PairEnd end_of(const std::string& role, Verdict v, std::string phase = "", std::string reason = "")
{
  probe::PairEnd e;
  e.role = role;
  e.verdict = v;
  e.phase = std::move(phase);
  e.reason = std::move(reason);
  e.bytes = 4000000;
  e.write_seconds = 0.002;
  return e;
}

} // namespace

TEST_CASE("fleet: rank and size from each launcher's variables", "[probe][fleet]")
{
  const probe::FleetPlace ompi = probe::fleet_place(
    env_of({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "8"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
            {"PMIX_RANK", "3"}, {"SLURM_PROCID", "0"}}),
    std::nullopt, std::nullopt);
  CHECK(ompi.rank == 3);
  CHECK(ompi.size == 8);
  CHECK(ompi.local_rank == 1);
  CHECK(ompi.source == "Open MPI (OMPI_COMM_WORLD_RANK)");

  const probe::FleetPlace slurm = probe::fleet_place(
    env_of({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}, {"SLURM_LOCALID", "2"}}), std::nullopt, std::nullopt);
  CHECK((slurm.rank == 5 && slurm.size == 6 && slurm.local_rank == 2));
  CHECK(slurm.source == "Slurm (SLURM_PROCID)");

  const probe::FleetPlace hydra = probe::fleet_place(env_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}), std::nullopt, std::nullopt);
  CHECK((hydra.rank == 1 && hydra.size == 2 && hydra.source == "MPICH Hydra (PMI_RANK)"));

  // PMIx alone has no size variable: --size gives it.
  CHECK(error_of([] { probe::fleet_place(env_of({{"PMIX_RANK", "1"}}), std::nullopt, std::nullopt); }) ==
        "--size: the fleet's size is not known from PMIx (PMIX_RANK): give --size");
  CHECK(probe::fleet_place(env_of({{"PMIX_RANK", "1"}}), std::nullopt, 4).size == 4);

  // An Indexed Job: JOB_COMPLETION_INDEX, the size from PDCHECK_FLEET_SIZE or --size.
  const probe::FleetPlace job = probe::fleet_place(env_of({{"JOB_COMPLETION_INDEX", "2"}, {"PDCHECK_FLEET_SIZE", "4"}}),
                                                   std::nullopt, std::nullopt);
  CHECK((job.rank == 2 && job.size == 4 && job.source == "Kubernetes Indexed Job (JOB_COMPLETION_INDEX)"));
  CHECK(error_of([] { probe::fleet_place(env_of({{"JOB_COMPLETION_INDEX", "2"}}), std::nullopt, std::nullopt); }) ==
        "--size: the fleet's size is not known from Kubernetes Indexed Job (JOB_COMPLETION_INDEX): give --size");

  // --rank and --size win over the environment.
  const probe::FleetPlace flags = probe::fleet_place(env_of({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}}), 1, 2);
  CHECK((flags.rank == 1 && flags.size == 2 && flags.source == "--rank"));

  CHECK(error_of([] { probe::fleet_place(env_of({}), std::nullopt, std::nullopt); }) ==
        "--rank: no launcher set this process's rank (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_PROCID or "
        "JOB_COMPLETION_INDEX): give --rank and --size");
  CHECK(error_of([] {
          probe::fleet_place(env_of({{"SLURM_PROCID", "x1"}, {"SLURM_NTASKS", "6"}}), std::nullopt, std::nullopt);
        }) == "SLURM_PROCID: expected a non-negative whole number, got \"x1\"");
  CHECK(error_of([] {
          probe::fleet_place(env_of({{"SLURM_PROCID", "6"}, {"SLURM_NTASKS", "6"}}), std::nullopt, std::nullopt);
        }) == "SLURM_NTASKS: rank 6 is outside a fleet of 6 ranks");
  CHECK(error_of([] {
          probe::fleet_place(env_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2000000000"}}), std::nullopt, std::nullopt);
        }) == "SLURM_NTASKS: a fleet of 2000000000 ranks is more than pdcheck probes (at most 100000)");
  CHECK(error_of([] { probe::fleet_place(env_of({}), 0, std::nullopt); }) ==
        "--size: the fleet's size is not known from --rank: give --size");
}

TEST_CASE("fleet: deadlines of any length stay deadlines", "[probe][fleet]")
{
  // A member's deadline sums a pair deadline per round: --pair-timeout 86400 over
  // 25 rounds is 25 days, past poll()'s int of milliseconds. It must not wrap
  // into a negative "wait forever" or overflow the clock.
  CHECK(probe::Deadline::after(25 * 86400.0).remaining_ms() == INT_MAX);
  CHECK(probe::Deadline::after(1e300).remaining_ms() == INT_MAX);
  CHECK_FALSE(probe::Deadline::after(1e300).expired());
  CHECK(probe::Deadline::after(-5).remaining_ms() == 0);
  const int ten_s = probe::Deadline::after(10).remaining_ms();
  CHECK((ten_s > 9000 && ten_s <= 10000));
}

TEST_CASE("fleet: rank 0's address from the command line, the plan or the environment", "[probe][fleet]")
{
  const auto env = env_of({{"PDCHECK_FLEET_COORDINATOR", "a:1"}, {"MASTER_ADDR", "b"}, {"MASTER_PORT", "2"}});
  CHECK(probe::fleet_coordinator(env, "c:3", "d:4") == "c:3");
  CHECK(probe::fleet_coordinator(env, "", "d:4") == "d:4");
  CHECK(probe::fleet_coordinator(env, "", "") == "a:1");
  CHECK(probe::fleet_coordinator(env_of({{"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29500"}}), "", "") == "node0:29500");
  CHECK(probe::fleet_coordinator(env_of({{"MASTER_ADDR", "fd00::1"}, {"MASTER_PORT", "29500"}}), "", "") ==
        "[fd00::1]:29500");
  CHECK(error_of([] { probe::fleet_coordinator(env_of({{"MASTER_ADDR", "n"}, {"MASTER_PORT", "p"}}), "", ""); }) ==
        "MASTER_PORT: expected a non-negative whole number, got \"p\"");
  CHECK(error_of([] { probe::fleet_coordinator(env_of({}), "", ""); }) ==
        "--coordinator: where rank 0 listens is not known: give --coordinator HOST:PORT, a coordinator: in the plan, "
        "PDCHECK_FLEET_COORDINATOR or MASTER_ADDR and MASTER_PORT");
}

TEST_CASE("fleet: a pair's outcome from both ends", "[probe][fleet]")
{
  const plan::FleetPair pair{0, 2};
  SECTION("both ends ok: verified, at the prefill's rate")
  {
    const auto p = probe::merge_pair_ends(pair, 1, end_of("prefill", Verdict::ok), end_of("decode", Verdict::ok), "", "");
    CHECK(p.outcome == report::PairOutcome::verified);
    CHECK(p.gbytes_per_s() == Approx(2.0));
    CHECK(p.reason.empty());
  }
  SECTION("the decode found wrong bytes: findings, with the decode's reason")
  {
    auto d = end_of("decode", Verdict::findings, "verify", "12 bytes wrong, 0 never written, 0 written outside the slots");
    d.wrong_bytes = 12;
    const auto p = probe::merge_pair_ends(pair, 1, end_of("prefill", Verdict::ok), d, "", "");
    CHECK(p.outcome == report::PairOutcome::findings);
    CHECK(p.phase == "verify");
    CHECK(p.reason == "decode: 12 bytes wrong, 0 never written, 0 written outside the slots");
    CHECK(p.wrong_bytes == 12);
  }
  SECTION("one end stopped on its own, the other because its peer did: the first one's reason")
  {
    const auto p = probe::merge_pair_ends(
      pair, 2, end_of("prefill", Verdict::cannot_run, "connect", "cannot connect to 10.0.0.2:4000: refused"),
      end_of("decode", Verdict::cannot_run, "connect", "the peer stopped: connect"), "", "");
    CHECK(p.outcome == report::PairOutcome::failed);
    CHECK(p.reason == "prefill: cannot connect to 10.0.0.2:4000: refused");
    CHECK(p.round == 2);
  }
  SECTION("an end that sent nothing: the missing rank, then what the other end saw")
  {
    const auto p = probe::merge_pair_ends(pair, 1, end_of("prefill", Verdict::cannot_run, "write", "peer closed the connection"),
                                          std::nullopt, "", "rank 2 left the fleet: lost during round 1");
    CHECK(p.outcome == report::PairOutcome::failed);
    CHECK(p.phase == "write");
    CHECK(p.reason == "rank 2 left the fleet: lost during round 1; prefill: peer closed the connection");
  }
}

TEST_CASE("fleet: the gathered result as text, JSON, JUnit and SVG", "[probe][fleet][report]")
{
  report::FleetProbeResult r;
  r.plan = "plan.yaml";
  r.launcher = "Slurm (SLURM_PROCID)";
  r.coordinator = "node0:29650";
  r.transport = "tcp";
  r.pairing = "all";
  r.rounds = 2;
  r.seconds = 3.25;
  r.ranks = {{0, "prefill", "10.0.0.1", 4001, "host", true, ""},
             {1, "decode", "10.0.0.2", 4002, "cuda:1", true, ""},
             {2, "decode", "", 0, "", false, ""}};
  report::FleetProbePair ok;
  ok.prefill = 0;
  ok.decode = 1;
  ok.round = 1;
  ok.outcome = report::PairOutcome::verified;
  ok.bytes = 3000000000;
  ok.write_seconds = 1.5;
  report::FleetProbePair missing;
  missing.prefill = 0;
  missing.decode = 2;
  missing.round = 2;
  missing.reason = "rank 2 never joined the fleet (waited 60 s)";
  r.pairs = {ok, missing};

  CHECK(report::fleet_probe_to_text(r) ==
        "pdcheck probe fleet: plan.yaml · 3 ranks (Slurm (SLURM_PROCID)) · tcp · host memory\n"
        "pairs: all · 2 in 2 rounds · 1 verified · 1 not-run · 3.2 s\n"
        "\n"
        "prefill \\ decode  1 10.0.0.2       2\n"
        "0 10.0.0.1              2.00     n/a\n"
        "(GB/s verified · WRONG bytes wrong or missing · FAIL stopped · n/a an end was missing · . not a pair)\n"
        "\n"
        "not verified:\n"
        "  prefill 0 -> decode 2 (round 2): not-run: rank 2 never joined the fleet (waited 60 s)\n"
        "\n"
        "ranks missing:\n"
        "  rank 2 (decode): never joined\n");

  const auto j = report::fleet_probe_to_json(r, 1);
  CHECK(j["verified"] == false);
  CHECK(j["exit_code"] == 1);
  CHECK(j["counts"]["verified"] == 1);
  CHECK(j["counts"]["not_run"] == 1);
  CHECK(j["pairs"][0]["gbytes_per_s"] == 2.0);
  CHECK(j["pairs"][1]["outcome"] == "not-run");
  CHECK(j["ranks"][2]["left"].is_null());
  CHECK(j["ranks"][1]["memory"] == "cuda:1");

  const std::string junit = report::fleet_probe_to_junit(r);
  CHECK(junit.find("<testsuites name=\"pdcheck\" tests=\"2\" failures=\"1\"") != std::string::npos);
  CHECK(junit.find("name=\"prefill 0 -&gt; decode 1\"") != std::string::npos);
  CHECK(junit.find("<failure type=\"not-run\" message=\"not-run: rank 2 never joined the fleet (waited 60 s)\"/>") !=
        std::string::npos);

  const std::string svg = report::fleet_probe_to_svg(r);
  CHECK(svg.find("data-prefill=\"0\" data-decode=\"1\" data-outcome=\"verified\" data-gbps=\"2.000\"") != std::string::npos);
  CHECK(svg.find("data-prefill=\"0\" data-decode=\"2\" data-outcome=\"not-run\"") != std::string::npos);
  const std::string html = report::fleet_probe_to_html(r);
  CHECK(html.find("<title>pdcheck probe fleet: 1 of 2 pairs verified</title>") != std::string::npos);
  CHECK(html.find("<tr><td>prefill 0 -&gt; decode 2</td><td>2</td><td>not-run</td><td></td><td>rank 2 never joined "
                  "the fleet (waited 60 s)</td></tr>") != std::string::npos);
  CHECK(html.find("<tr><td>1</td><td>decode</td><td>10.0.0.2</td><td>cuda:1</td><td>took part</td></tr>") !=
        std::string::npos);
  CHECK(html.find("<svg ") != std::string::npos);
  CHECK(r.all_verified() == false);
  CHECK(probe::fleet_exit_code(r) == 1);
  r.pairs.pop_back();
  CHECK(probe::fleet_exit_code(r) == 0);
}

namespace {

sglang::Side fleet_side(sglang::Role role)
{
  const std::string mode = role == sglang::Role::prefill ? "prefill" : "decode";
  return io::side_from_args(role, "--tp 1 --disaggregation-mode " + mode, test::probe_model(), "0.5.11", {}, "test " + mode);
}

/// Three ranks in threads (rank 0 prefill, 1 and 2 decode), every pair over
/// TCP on loopback, rank 0's address passed on as MPI's broadcast would.
struct ExchangedFleet
{
  std::vector<probe::FleetOutcome> outcomes = std::vector<probe::FleetOutcome>(3);
  std::vector<std::string> learnt = std::vector<std::string>(3);
};

ExchangedFleet run_exchanged_fleet(int coordinator_port)
{
  const plan::FleetRoles roles{{0}, {1, 2}};
  const std::vector<plan::FleetPair> pairs{{0, 1}, {0, 2}};
  probe::FleetOptions o;
  o.probe.requests = 1;
  o.probe.timeout = 10;
  o.listen_host = "127.0.0.1";
  o.advertise = "127.0.0.1";
  o.join_timeout = 10;
  o.plan_digest = "digest";
  std::promise<std::string> published;
  std::shared_future<std::string> address = published.get_future().share();
  ExchangedFleet out;
  std::vector<std::thread> ranks;
  for (int rank = 0; rank < 3; ++rank) {
    ranks.emplace_back([&, rank] {
      const probe::CoordinatorExchange exchange = [&](const std::string& mine) {
        if (rank == 0) {
          published.set_value(mine);
        }
        if (address.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
          throw probe::ProbeError(probe::Phase::handshake, "no address in 10 s", "");
        }
        out.learnt[static_cast<std::size_t>(rank)] = address.get();
        return address.get();
      };
      const probe::FleetPlace place{rank, 3, 0, "test"};
      out.outcomes[static_cast<std::size_t>(rank)] = probe::run_fleet_rank(
        place, {"", coordinator_port}, roles, pairs, fleet_side(rank == 0 ? sglang::Role::prefill : sglang::Role::decode),
        o, [](const std::string& host) { return std::make_unique<probe::TcpTransport>(host, 10); }, exchange);
    });
  }
  ranks[0].join();
  // What the CLI does once rank 0's report is written: the others, told
  // "done", wait for that before they exit.
  CHECK(out.outcomes[0].held_ranks.size() == (out.outcomes[0].result ? 3 : 0));
  out.outcomes[0].release_ranks();
  ranks[1].join();
  ranks[2].join();
  return out;
}

} // namespace

TEST_CASE("fleet: rank 0 publishes its address (probe fleet --mpi), so no rank is given one", "[probe][fleet]")
{
  SECTION("every rank learns rank 0's address and port, and every pair is verified")
  {
    const ExchangedFleet f = run_exchanged_fleet(0);
    const std::string address = f.learnt[0];
    REQUIRE(address.rfind("127.0.0.1:", 0) == 0);
    CHECK(address != "127.0.0.1:0"); // the port rank 0 got, not the one asked for
    CHECK(f.learnt[1] == address);
    CHECK(f.learnt[2] == address);
    REQUIRE(f.outcomes[0].result);
    CHECK(f.outcomes[0].exit_code == 0);
    CHECK(f.outcomes[0].result->coordinator == address);
    CHECK(report::verified_count(*f.outcomes[0].result) == "2 of 2 pairs verified");
    CHECK(f.outcomes[1].exit_code == 0);
    CHECK(f.outcomes[2].exit_code == 0);
  }
  SECTION("rank 0 cannot listen: it says so at once, and the others stop waiting")
  {
    const probe::Listener taken = probe::Listener::bind("0.0.0.0", 0, probe::Phase::handshake);
    const ExchangedFleet f = run_exchanged_fleet(taken.port());
    CHECK(f.learnt[1].empty());
    CHECK(f.outcomes[0].exit_code == 3);
    CHECK(f.outcomes[0].summary.rfind("rank 0: the coordinator handshake: cannot listen on", 0) == 0);
    CHECK(f.outcomes[1].exit_code == 3);
    CHECK(f.outcomes[1].summary == "rank 1: rank 0 could not start the coordinator");
    CHECK(f.outcomes[2].summary == "rank 2: rank 0 could not start the coordinator");
  }
}

TEST_CASE("fleet: what each rank said of its own end joins rank 0's report (--mpi)", "[probe][fleet]")
{
  report::FleetProbeResult r;
  r.ranks = {{0, "prefill", "10.0.0.1", 4001, "host", true, ""},
             {1, "decode", "", 0, "", false, ""},
             {2, "decode", "10.0.0.3", 4003, "host", true, ""},
             {3, "decode", "10.0.0.4", 4004, "host", true, "sent no result within 190 s of round 1 (hung?)"}};
  probe::add_ranks_own_words(r, {"0 2 of 3 pairs verified",
                                 "3 rank 1: cannot listen on 203.0.113.1:0: Cannot assign requested address",
                                 "", "", "0 rank 4: the fleet is done: 2 of 3 pairs verified"});
  // Rank 1's own reason (the coordinator only saw it missing); rank 2 was in
  // the fleet yet said nothing; rank 3, reported hung already, adds nothing;
  // rank 4 ended well.
  CHECK(r.notes == std::vector<std::string>{"rank 1: cannot listen on 203.0.113.1:0: Cannot assign requested address",
                                            "rank 2 said nothing through MPI of how its end went"});
}

TEST_CASE("fleet: --mpi without its module, or with a file that is not one", "[probe][fleet]")
{
  CHECK(error_of([] { probe::MpiSession::start_from({"/nonexistent/pdcheck-mpi.so"}, 1); }) ==
        "cannot run: --mpi: this pdcheck has no MPI module (looked for /nonexistent/pdcheck-mpi.so): build it where an "
        "MPI library is installed (Debian: libopenmpi-dev), or run without --mpi");
  CHECK(error_of([] { probe::MpiSession::start_from({std::string(PDCHECK_SOURCE_DIR) + "/README.md"}, 1); })
          .rfind("cannot run: --mpi: cannot load the MPI module: ", 0) == 0);
}
