// The fleet probe's coordinator (rank 0) and members (every rank): see
// fleet_session.hpp for the protocol.

#include "probe/fleet_session.hpp"

#include "probe/session_steps.hpp"
#include "util/untrusted_text.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <thread>

namespace pdcheck::probe {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

/// How long one control message may take once its peer has started sending it.
constexpr double k_message_seconds = 10;
/// How long a rank told "done" waits for rank 0 to write its report.
constexpr double k_report_seconds = 60;
/// How long rank 0 gives a connection that comes after the fleet started to say
/// who it is: short, since the rounds wait meanwhile.
constexpr double k_late_join_seconds = 2;

std::string verdict_key(Verdict v)
{
  switch (v) {
  case Verdict::ok:
    return "ok";
  case Verdict::findings:
    return "findings";
  default:
    return "cannot_run";
  }
}

Verdict verdict_of_key(const std::string& key)
{
  if (key == "ok") {
    return Verdict::ok;
  }
  return key == "findings" ? Verdict::findings : Verdict::cannot_run;
}

bool is_loopback(const std::string& address)
{
  return address.rfind("127.", 0) == 0 || address == "::1" || address == "localhost";
}

/// This host's first address that is up and not loopback ("" when none).
std::string non_loopback_address()
{
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    return "";
  }
  std::string found;
  for (ifaddrs* a = list; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_UP) == 0 ||
        (a->ifa_flags & IFF_LOOPBACK) != 0) {
      continue;
    }
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
    found = text;
  }
  ::freeifaddrs(list);
  return found;
}

/// The address this end of a connected socket has: the one its peer (rank 0)
/// reached it by, so the one the other ranks most likely reach it by too.
std::string local_address(int fd)
{
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return "127.0.0.1";
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET6) {
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &a6->sin6_addr, text, sizeof text);
  } else {
    const auto* a4 = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &a4->sin_addr, text, sizeof text);
  }
  return text;
}

json pair_end_json(std::size_t pair, const PairEnd& e)
{
  return {{"type", "result"},      {"pair", pair},     {"verdict", verdict_key(e.verdict)},
          {"phase", e.phase},      {"reason", e.reason}, {"bytes", e.bytes},
          {"write_seconds", e.write_seconds}, {"wrong_bytes", e.wrong_bytes}};
}

PairEnd pair_end_from_json(const json& m)
{
  PairEnd e;
  e.verdict = verdict_of_key(m.at("verdict").get<std::string>());
  e.phase = printable_untrusted(m.at("phase").get<std::string>());
  e.reason = printable_untrusted(m.at("reason").get<std::string>());
  e.bytes = m.at("bytes").get<std::int64_t>();
  e.write_seconds = m.at("write_seconds").get<double>();
  e.wrong_bytes = m.at("wrong_bytes").get<std::int64_t>();
  return e;
}

report::FleetProbePair pair_at(const plan::FleetPair& pair, int round)
{
  report::FleetProbePair out;
  out.prefill = pair.prefill;
  out.decode = pair.decode;
  out.round = round;
  return out;
}

// ---------------------------------------------------------------- coordinator

struct Member
{
  Fd fd;
  std::string host;
  int port = 0;
  std::string memory;
  bool joined = false;
  std::string left;
};

class Coordinator
{
public:
  Coordinator(Listener listener, const FleetPlace& place, const plan::FleetRoles& roles,
              const std::vector<plan::FleetPair>& pairs, std::vector<std::vector<std::size_t>> rounds,
              const FleetOptions& o)
    : m_listener(std::move(listener)), m_place(place), m_roles(roles), m_pairs(pairs), m_rounds(std::move(rounds)),
      m_options(o), m_members(static_cast<std::size_t>(place.size))
  {
  }

  report::FleetProbeResult run()
  {
    const auto t0 = Clock::now();
    accept_joins();
    refuse_late_joins();
    report::FleetProbeResult r = start_result(static_cast<int>(m_rounds.size()));
    for (std::size_t round = 0; round < m_rounds.size(); ++round) {
      run_round(static_cast<int>(round) + 1, m_rounds[round], r);
    }
    std::sort(r.pairs.begin(), r.pairs.end(), [](const report::FleetProbePair& a, const report::FleetProbePair& b) {
      return std::pair(a.prefill, a.decode) < std::pair(b.prefill, b.decode);
    });
    r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    for (report::FleetProbeRank& x : r.ranks) {
      x.left = m_members[static_cast<std::size_t>(x.rank)].left;
    }
    refuse_late_joins();
    const int code = fleet_exit_code(r);
    const std::string summary = report::verified_count(r);
    for (Member& m : m_members) {
      if (m.fd) {
        try {
          send_message(m.fd.get(), {{"type", "done"}, {"exit_code", code}, {"summary", summary}},
                       Deadline::after(k_message_seconds), Phase::teardown);
        } catch (const ProbeError&) {
          // A rank gone at the very end: its pairs are already reported.
        }
      }
    }
    return r;
  }

  /// The connections to the ranks that are still there, for rank 0 to close
  /// once its report is written.
  std::vector<Fd> take_connections()
  {
    std::vector<Fd> out;
    for (Member& m : m_members) {
      if (m.fd) {
        out.push_back(std::move(m.fd));
      }
    }
    return out;
  }

private:
  std::string side_of(int rank) const
  {
    return std::binary_search(m_roles.prefill.begin(), m_roles.prefill.end(), rank) ? "prefill" : "decode";
  }

  std::optional<std::string> join_refusal(const json& m) const
  {
    if (m.value("type", "") != "join" || m.value("magic", "") != k_fleet_magic) {
      return "not a pdcheck probe fleet join";
    }
    if (m.at("version").get<int>() != k_fleet_protocol_version) {
      return fmt::format("fleet protocol {} against rank 0's {}: run the same pdcheck on every host",
                         m.at("version").get<int>(), k_fleet_protocol_version);
    }
    const int rank = m.at("rank").get<int>();
    const int size = m.at("size").get<int>();
    if (size != m_place.size) {
      return fmt::format("rank {} was started in a fleet of {} ranks, rank 0 in one of {}", rank, size, m_place.size);
    }
    if (rank < 0 || rank >= m_place.size) {
      return fmt::format("rank {} is outside the fleet of {} ranks", rank, m_place.size);
    }
    if (m_members[static_cast<std::size_t>(rank)].joined) {
      return fmt::format("rank {} has already joined: two processes were given the same rank", rank);
    }
    if (m.at("plan").get<std::string>() != m_options.plan_digest) {
      return fmt::format("rank {} runs a different plan (digest {}, rank 0's {}): give every rank the same plan "
                         "and side files",
                         rank, printable_untrusted(m.at("plan").get<std::string>(), 32), m_options.plan_digest);
    }
    return std::nullopt;
  }

  void accept_joins()
  {
    const Deadline deadline = Deadline::after(m_options.join_timeout);
    int joined = 0;
    while (joined < m_place.size) {
      Fd fd;
      try {
        fd = m_listener.accept(deadline, Phase::handshake);
      } catch (const ProbeError&) {
        return; // the join deadline: whoever is missing never joined
      }
      try {
        const json m = recv_message(fd.get(), Deadline::after(k_message_seconds), Phase::handshake, "join");
        if (const auto refusal = join_refusal(m)) {
          send_message(fd.get(), {{"type", "refuse"}, {"reason", *refusal}}, Deadline::after(k_message_seconds),
                       Phase::handshake);
          continue;
        }
        Member& member = m_members[static_cast<std::size_t>(m.at("rank").get<int>())];
        member.host = printable_untrusted(m.at("host").get<std::string>(), 256);
        member.port = m.at("port").get<int>();
        member.memory = printable_untrusted(m.at("memory").get<std::string>(), 64);
        member.joined = true;
        member.fd = std::move(fd);
        ++joined;
      } catch (const ProbeError&) {
        continue; // a connection that was not a rank of this fleet
      } catch (const json::exception&) {
        continue;
      }
    }
  }

  /// Answers every connection waiting once the fleet has started (a rank given
  /// twice, one that came after --join-timeout) with its refusal, instead of
  /// leaving it in the listen queue until rank 0 exits and the kernel resets it.
  void refuse_late_joins()
  {
    // A budget, so that connections that never say who they are cannot hold up a round.
    const Deadline budget = Deadline::after(2 * k_late_join_seconds);
    while (!budget.expired()) {
      Fd fd;
      try {
        fd = m_listener.accept(Deadline::after(0), Phase::handshake);
      } catch (const ProbeError&) {
        return; // nobody waiting
      }
      try {
        const json m = recv_message(fd.get(), Deadline::after(k_late_join_seconds), Phase::handshake, "join");
        std::optional<std::string> refusal = join_refusal(m);
        const std::string reason =
          refusal ? *refusal
                  : fmt::format("rank {} came after the fleet started without it (--join-timeout {:g} s)",
                                m.at("rank").get<int>(), m_options.join_timeout);
        send_message(fd.get(), {{"type", "refuse"}, {"reason", reason}}, Deadline::after(k_late_join_seconds),
                     Phase::handshake);
      } catch (const ProbeError&) {
        // not a rank of this fleet, or gone already
      } catch (const json::exception&) {
      }
    }
  }

  report::FleetProbeResult start_result(int rounds) const
  {
    report::FleetProbeResult r;
    r.plan = m_options.plan_label;
    r.launcher = m_options.launcher;
    r.coordinator = m_options.coordinator;
    r.transport = m_options.transport;
    r.memory = m_options.probe.memory;
    r.pairing = m_options.pairing;
    r.rounds = rounds;
    for (int rank = 0; rank < m_place.size; ++rank) {
      const std::string side = side_of(rank);
      const bool named = side == "prefill" || std::binary_search(m_roles.decode.begin(), m_roles.decode.end(), rank);
      if (!named) {
        continue; // a rank the plan gives no end: it joins, waits and is told when the fleet is done
      }
      const Member& m = m_members[static_cast<std::size_t>(rank)];
      r.ranks.push_back({rank, side, m.host, m.port, m.memory, m.joined, ""});
    }
    return r;
  }

  /// Why `rank` cannot run a pair now, or "".
  std::string absent(int rank) const
  {
    const Member& m = m_members[static_cast<std::size_t>(rank)];
    if (!m.joined) {
      return fmt::format("rank {} never joined the fleet (waited {:g} s)", rank, m_options.join_timeout);
    }
    if (!m.left.empty()) {
      return fmt::format("rank {} left the fleet: {}", rank, m.left);
    }
    return "";
  }

  void leave(int rank, const std::string& why)
  {
    Member& m = m_members[static_cast<std::size_t>(rank)];
    if (m.left.empty()) {
      m.left = why;
    }
    m.fd = Fd(); // a late message from it must not be read as a later round's
  }

  bool tell_run(std::size_t index, int round, int rank, const char* role, int peer)
  {
    const Member& p = m_members[static_cast<std::size_t>(peer)];
    try {
      send_message(m_members[static_cast<std::size_t>(rank)].fd.get(),
                   {{"type", "run"}, {"pair", index}, {"round", round}, {"role", role}, {"peer_rank", peer},
                    {"peer_host", p.host}, {"peer_port", p.port}},
                   Deadline::after(k_message_seconds), Phase::handshake);
      return true;
    } catch (const ProbeError& e) {
      leave(rank, fmt::format("could not be told its pair: {}", e.detail()));
      return false;
    }
  }

  void run_round(int round, const std::vector<std::size_t>& indices, report::FleetProbeResult& r)
  {
    struct Running
    {
      std::size_t index;
      std::optional<PairEnd> prefill, decode;
    };
    std::vector<Running> running;
    std::map<int, std::size_t> waiting; // rank -> position in `running` whose result it owes
    for (std::size_t index : indices) {
      const plan::FleetPair& pair = m_pairs[index];
      const std::string missing_p = absent(pair.prefill);
      const std::string missing_d = absent(pair.decode);
      if (!missing_p.empty() || !missing_d.empty()) {
        report::FleetProbePair out = pair_at(pair, round);
        out.reason = missing_p.empty() ? missing_d : missing_p;
        r.pairs.push_back(out);
        continue;
      }
      running.push_back({index, std::nullopt, std::nullopt});
      if (tell_run(index, round, pair.decode, "decode", pair.prefill)) {
        waiting[pair.decode] = running.size() - 1;
      }
      if (tell_run(index, round, pair.prefill, "prefill", pair.decode)) {
        waiting[pair.prefill] = running.size() - 1;
      }
    }
    const double limit = m_options.pair_deadline_seconds();
    const Deadline deadline = Deadline::after(limit);
    // Past the deadline, one last pass still reads the results already here
    // (poll with 0 ms), so that reading others' never makes a rank late.
    while (!waiting.empty()) {
      std::vector<pollfd> fds;
      std::vector<int> ranks;
      for (const auto& [rank, at] : waiting) {
        fds.push_back({m_members[static_cast<std::size_t>(rank)].fd.get(), POLLIN, 0});
        ranks.push_back(rank);
      }
      fds.push_back({m_listener.fd(), POLLIN, 0}); // a late joiner, answered at once
      const int ready = ::poll(fds.data(), fds.size(), deadline.remaining_ms());
      if (ready == 0 && deadline.expired()) {
        break;
      }
      if (ready <= 0) {
        continue;
      }
      if (fds.back().revents != 0 && !deadline.expired()) {
        refuse_late_joins();
      }
      fds.pop_back();
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].revents == 0) {
          continue;
        }
        const int rank = ranks[i];
        Running& run = running[waiting.at(rank)];
        waiting.erase(rank);
        try {
          const json m = recv_message(fds[i].fd, Deadline::after(k_message_seconds), Phase::completion, "result");
          if (m.value("type", "") != "result" || m.at("pair").get<std::size_t>() != run.index) {
            leave(rank, "sent a message that is not this pair's result");
            continue;
          }
          PairEnd e = pair_end_from_json(m);
          e.role = side_of(rank); // as the plan says
          (e.role == "prefill" ? run.prefill : run.decode) = std::move(e);
        } catch (const ProbeError& e) {
          leave(rank, fmt::format("lost during round {}: {}", round, e.detail()));
        } catch (const json::exception&) {
          leave(rank, "sent a malformed result");
        }
      }
    }
    for (const auto& [rank, at] : waiting) {
      leave(rank, fmt::format("sent no result within {:g} s of round {} (hung?)", limit, round));
    }
    for (const Running& run : running) {
      const plan::FleetPair& pair = m_pairs[run.index];
      const auto missing = [&](int rank) {
        const std::string why = absent(rank);
        return why.empty() ? fmt::format("rank {} sent no result", rank) : why;
      };
      r.pairs.push_back(merge_pair_ends(pair, round, run.prefill, run.decode, missing(pair.prefill), missing(pair.decode)));
    }
  }

  Listener m_listener;
  FleetPlace m_place;
  plan::FleetRoles m_roles;
  std::vector<plan::FleetPair> m_pairs;
  std::vector<std::vector<std::size_t>> m_rounds;
  FleetOptions m_options;
  std::vector<Member> m_members;
};

// ---------------------------------------------------------------- member

PairEnd run_decode_pair(std::size_t index, int peer_rank, const sglang::Side& side, const FleetOptions& o,
                        const Listener& listener, const TransportFactory& make_transport)
{
  std::unique_ptr<Transport> transport;
  ProbeReport report;
  try {
    transport = make_transport(o.listen_host);
    const Deadline d = Deadline::after(o.probe.timeout);
    for (;;) {
      Fd oob = listener.accept(d, Phase::handshake);
      try {
        // The prefill sends it right after connecting: a connection that stays
        // silent (a port scanner, a health check) must not use up the pair's deadline.
        const Deadline first = d.remaining_ms() < k_late_join_seconds * 1000 ? d : Deadline::after(k_late_join_seconds);
        const json m = recv_message(oob.get(), first, Phase::handshake, "fleet-pair");
        if (m.value("type", "") == "fleet-pair" && m.value("pair", std::size_t{0}) == index &&
            m.value("rank", -1) == peer_rank) {
          report = run_decode_end(side, o.probe, std::move(oob), *transport);
          break;
        }
      } catch (const json::exception&) {
        // not this pair's prefill: a late peer of an earlier round; keep waiting
      } catch (const ProbeError&) {
        if (d.expired()) {
          throw;
        }
      }
    }
  } catch (const ProbeError& e) {
    report = steps::could_not_start(sglang::Role::decode, side, o.probe, transport, e);
  }
  return pair_end_of("decode", report);
}

PairEnd run_prefill_pair(std::size_t index, int my_rank, const std::string& peer_host, int peer_port,
                         const sglang::Side& side, const FleetOptions& o, const TransportFactory& make_transport)
{
  std::unique_ptr<Transport> transport;
  ProbeReport report;
  try {
    transport = make_transport("0.0.0.0");
    const Deadline d = Deadline::after(o.probe.timeout);
    Fd oob = connect_to(peer_host, peer_port, d, Phase::handshake);
    send_message(oob.get(), {{"type", "fleet-pair"}, {"pair", index}, {"rank", my_rank}}, d, Phase::handshake);
    report = run_prefill_end(side, o.probe, std::move(oob), *transport, peer_host);
  } catch (const ProbeError& e) {
    report = steps::could_not_start(sglang::Role::prefill, side, o.probe, transport, e);
  }
  return pair_end_of("prefill", report);
}

/// Until rank 0 closes the connection (its report is written), or a deadline:
/// an exit before then could make the launcher end rank 0 mid-report.
void wait_for_close(int fd)
{
  try {
    recv_message(fd, Deadline::after(k_report_seconds), Phase::teardown, "the end of the connection");
  } catch (const ProbeError&) {
    // closed (the usual end), or rank 0 took longer than it should
  }
}

FleetOutcome member_failed(std::string summary, bool coordinator_unreachable = false)
{
  FleetOutcome out;
  out.exit_code = 3;
  out.summary = std::move(summary);
  out.coordinator_unreachable = coordinator_unreachable;
  return out;
}

FleetOutcome run_member(const FleetPlace& place, const HostPort& coordinator, std::size_t rounds,
                        const sglang::Side& side, const FleetOptions& o, const TransportFactory& make_transport)
{
  std::optional<Listener> listener;
  try {
    listener.emplace(Listener::bind(o.listen_host, o.listen_port, Phase::handshake));
  } catch (const ProbeError& e) {
    return member_failed(fmt::format("rank {}: {}", place.rank, e.what()));
  }
  Fd c;
  try {
    c = connect_to(coordinator.host, coordinator.port, Deadline::after(o.join_timeout), Phase::handshake);
  } catch (const ProbeError& e) {
    return member_failed(fmt::format("rank {}: cannot reach the coordinator (rank 0) at {}:{}: {}", place.rank,
                                     coordinator.host, coordinator.port, e.detail()),
                         true);
  }
  std::string host = o.advertise.empty() ? local_address(c.get()) : o.advertise;
  if (o.advertise.empty() && is_loopback(host) && !is_loopback(coordinator.host)) {
    // Rank 0's own host, its name mapped to 127.0.1.1 by /etc/hosts (Debian's
    // default): the other hosts cannot reach a loopback address.
    if (const std::string other = non_loopback_address(); !other.empty()) {
      host = other;
    }
  }
  const Deadline overall = Deadline::after(longest_fleet_seconds(o, rounds));
  try {
    send_message(c.get(),
                 {{"type", "join"}, {"magic", k_fleet_magic}, {"version", k_fleet_protocol_version}, {"rank", place.rank},
                  {"size", place.size}, {"plan", o.plan_digest}, {"host", host}, {"port", listener->port()},
                  {"memory", o.probe.memory}},
                 Deadline::after(k_message_seconds), Phase::handshake);
    for (;;) {
      const json m = recv_message(c.get(), overall, Phase::handshake, "run or done");
      const std::string type = m.value("type", "");
      if (type == "refuse") {
        return member_failed(fmt::format("rank {}: rank 0 refused this rank: {}", place.rank,
                                         printable_untrusted(m.at("reason").get<std::string>())));
      }
      if (type == "done") {
        FleetOutcome out;
        out.exit_code = m.at("exit_code").get<int>() == 0 ? 0 : 1;
        out.summary = fmt::format("rank {}: the fleet is done: {}", place.rank,
                                  printable_untrusted(m.at("summary").get<std::string>(), 200));
        if (o.wait_for_rank0_report) {
          wait_for_close(c.get());
        }
        return out;
      }
      if (type != "run") {
        return member_failed(fmt::format("rank {}: unexpected \"{}\" from the coordinator", place.rank,
                                         printable_untrusted(type, 40)));
      }
      const std::size_t index = m.at("pair").get<std::size_t>();
      const int peer = m.at("peer_rank").get<int>();
      const PairEnd e = m.at("role").get<std::string>() == "decode"
                          ? run_decode_pair(index, peer, side, o, *listener, make_transport)
                          : run_prefill_pair(index, place.rank, m.at("peer_host").get<std::string>(),
                                             m.at("peer_port").get<int>(), side, o, make_transport);
      send_message(c.get(), pair_end_json(index, e), Deadline::after(k_message_seconds), Phase::completion);
    }
  } catch (const ProbeError& e) {
    return member_failed(fmt::format("rank {}: lost the coordinator (rank 0) at {}:{}: {}", place.rank,
                                     coordinator.host, coordinator.port, e.detail()));
  } catch (const json::exception& e) {
    return member_failed(fmt::format("rank {}: malformed message from the coordinator: {}", place.rank,
                                     printable_untrusted(e.what(), 200)));
  }
}

} // namespace

PairEnd pair_end_of(const std::string& role, const ProbeReport& report)
{
  PairEnd e;
  e.role = role;
  e.verdict = report.verdict;
  e.bytes = report.bytes;
  e.write_seconds = report.write_seconds;
  e.wrong_bytes = report.tally.wrong + report.tally.unwritten + report.tally.stray;
  if (report.failure) {
    e.phase = report.failure->phase;
    e.reason = report.failure->message;
  } else if (!report.refusals.empty()) {
    e.reason = report.refusals.front();
  } else if (e.wrong_bytes > 0) {
    e.phase = "verify";
    e.reason = fmt::format("{} bytes wrong, {} never written, {} written outside the slots", report.tally.wrong,
                           report.tally.unwritten, report.tally.stray);
  } else if (report.verdict == Verdict::ok && !report.verified && role == "decode") {
    e.verdict = Verdict::cannot_run;
    e.reason = "the decode end verified nothing";
  }
  return e;
}

report::FleetProbePair merge_pair_ends(const plan::FleetPair& pair, int round, const std::optional<PairEnd>& prefill,
                                       const std::optional<PairEnd>& decode, const std::string& missing_prefill,
                                       const std::string& missing_decode)
{
  report::FleetProbePair out = pair_at(pair, round);
  if (prefill) {
    out.bytes = prefill->bytes;
    out.write_seconds = prefill->write_seconds;
  }
  if (decode) {
    out.wrong_bytes = decode->wrong_bytes;
  }
  if (prefill && decode && prefill->verdict == Verdict::ok && decode->verdict == Verdict::ok) {
    out.outcome = report::PairOutcome::verified;
    return out;
  }
  // Findings first (the exchange ran and showed a problem), decode's before
  // prefill's (it verifies); then the first end that stopped for its own
  // reason rather than because its peer did.
  for (const std::optional<PairEnd>* end : {&decode, &prefill}) {
    if (*end && (*end)->verdict == Verdict::findings) {
      out.outcome = report::PairOutcome::findings;
      out.phase = (*end)->phase;
      out.reason = fmt::format("{}: {}", (*end)->role, (*end)->reason);
      return out;
    }
  }
  out.outcome = report::PairOutcome::failed;
  if (!prefill || !decode) {
    const std::optional<PairEnd>& present = prefill ? prefill : decode;
    out.phase = present ? present->phase : "";
    out.reason = !prefill ? missing_prefill : missing_decode;
    if (present && !present->reason.empty()) {
      out.reason += fmt::format("; {}: {}", present->role, present->reason);
    }
    return out;
  }
  // Both ends answered and at least one stopped: the one that stopped for its
  // own reason rather than because its peer did ("the peer stopped ...",
  // "peer closed the connection"); the decode's when both or neither did.
  const auto stopped_itself = [](const PairEnd& e) {
    return e.verdict != Verdict::ok && e.reason.find("peer") == std::string::npos;
  };
  const PairEnd& first = decode->verdict == Verdict::ok                              ? *prefill
                         : prefill->verdict == Verdict::ok                           ? *decode
                         : stopped_itself(*prefill) && !stopped_itself(*decode)      ? *prefill
                                                                                     : *decode;
  out.phase = first.phase;
  out.reason = fmt::format("{}: {}", first.role, first.reason);
  return out;
}

double longest_fleet_seconds(const FleetOptions& o, std::size_t rounds)
{
  return o.join_timeout + static_cast<double>(rounds) * (o.pair_deadline_seconds() + k_message_seconds) + 30;
}

std::string published_coordinator_host(const FleetOptions& options)
{
  if (!options.advertise.empty()) {
    return options.advertise;
  }
  const std::string address = non_loopback_address();
  return address.empty() ? "127.0.0.1" : address;
}

void add_ranks_own_words(report::FleetProbeResult& result, const std::vector<std::string>& said)
{
  for (std::size_t rank = 1; rank < said.size(); ++rank) {
    const auto at = std::find_if(result.ranks.begin(), result.ranks.end(),
                                 [&](const report::FleetProbeRank& x) { return x.rank == static_cast<int>(rank); });
    const bool missing = at != result.ranks.end() && (!at->joined || !at->left.empty());
    const std::string& text = said[rank];
    if (text.empty()) {
      if (!missing) {
        result.notes.push_back(fmt::format("rank {} said nothing through MPI of how its end went", rank));
      }
      continue;
    }
    const std::size_t space = text.find(' ');
    if (text.compare(0, space, "3") == 0 && space != std::string::npos) {
      result.notes.push_back(printable_untrusted(text.substr(space + 1), 300));
    }
  }
}

int fleet_exit_code(const report::FleetProbeResult& r)
{
  return r.all_verified() ? 0 : 1;
}

FleetOutcome run_fleet_rank(const FleetPlace& place, const HostPort& coordinator, const plan::FleetRoles& roles,
                            const std::vector<plan::FleetPair>& pairs, const sglang::Side& side,
                            const FleetOptions& options, const TransportFactory& make_transport,
                            const CoordinatorExchange& exchange)
{
  std::vector<std::vector<std::size_t>> rounds = plan::schedule_rounds(pairs);
  const std::size_t round_count = rounds.size();
  FleetOptions o = options;
  HostPort at = coordinator;
  if (place.rank != 0) {
    if (exchange) {
      std::string published;
      try {
        published = exchange("");
      } catch (const ProbeError& e) {
        return member_failed(fmt::format("rank {}: did not learn rank 0's coordinator address: {}", place.rank,
                                         e.detail()),
                             true);
      }
      if (published.empty()) {
        return member_failed(fmt::format("rank {}: rank 0 could not start the coordinator", place.rank));
      }
      try {
        at = parse_host_port(published, "rank 0's coordinator address");
      } catch (const InputError& e) {
        return member_failed(fmt::format("rank {}: {}", place.rank, printable_untrusted(e.what(), 200)));
      }
      o.coordinator = published;
    }
    return run_member(place, at, round_count, side, o, make_transport);
  }
  // Rank 0 holds one connection per rank: the usual soft limit of 1024 files
  // would end the joins of a large fleet early (accept fails with EMFILE).
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  // With an exchange rank 0 names its own address: --coordinator's host when
  // one was given, else published_coordinator_host.
  const bool wildcard = coordinator.host.empty() || coordinator.host == "0.0.0.0" || coordinator.host == "::";
  const std::string publish_host = !exchange ? "" : wildcard ? published_coordinator_host(o) : coordinator.host;
  std::optional<Listener> listener;
  try {
    const std::string& named = exchange ? publish_host : coordinator.host;
    const std::string any = named.find(':') != std::string::npos ? "::" : "0.0.0.0";
    listener.emplace(Listener::bind(any, coordinator.port, Phase::handshake));
  } catch (const ProbeError& e) {
    if (exchange) {
      try {
        exchange(""); // the other ranks stop waiting for an address
      } catch (const ProbeError&) {
      }
    }
    return member_failed(fmt::format("rank 0: the coordinator {}", e.what()));
  }
  if (exchange) {
    at = {publish_host, listener->port()};
    const std::string address =
      at.host.find(':') != std::string::npos ? fmt::format("[{}]:{}", at.host, at.port) : fmt::format("{}:{}", at.host, at.port);
    try {
      exchange(address);
    } catch (const ProbeError& e) {
      return member_failed(fmt::format("rank 0: could not publish the coordinator's address: {}", e.detail()));
    }
    o.coordinator = address;
  }
  report::FleetProbeResult result;
  std::vector<Fd> held;
  std::exception_ptr coordinator_error; // out of memory, say: rethrown once both threads are done
  std::thread coordinator_thread([&] {
    try {
      Coordinator c(std::move(*listener), place, roles, pairs, std::move(rounds), o);
      result = c.run();
      held = c.take_connections();
    } catch (...) {
      coordinator_error = std::current_exception();
    }
  });
  FleetOutcome own;
  try {
    FleetOptions own_end = o;
    own_end.wait_for_rank0_report = false; // it is rank 0
    own = run_member(place, at, round_count, side, own_end, make_transport);
  } catch (...) {
    coordinator_thread.join();
    throw;
  }
  coordinator_thread.join();
  if (coordinator_error) {
    std::rethrow_exception(coordinator_error);
  }
  FleetOutcome out;
  out.exit_code = fleet_exit_code(result);
  out.summary = report::verified_count(result);
  if (own.exit_code == 3) {
    // Rank 0's own end could not take part. When it could not even reach its own
    // coordinator, the address names another host than rank 0's, and every
    // rank that used it has failed the same way: say so first.
    out.summary += "; " + own.summary;
    result.notes.push_back(own.summary);
    if (own.coordinator_unreachable) {
      result.notes.push_back(fmt::format("--coordinator {} does not reach rank 0's own host: give the address of the "
                                         "host the launcher starts rank 0 on",
                                         o.coordinator));
    }
  }
  out.result = std::move(result);
  out.held_ranks = std::move(held);
  return out;
}

} // namespace pdcheck::probe
