#include "report/fleet_probe_render.hpp"

#include "report/junit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pdcheck::report {

namespace {

struct Grid
{
  std::vector<int> prefill; ///< rows
  std::vector<int> decode;  ///< columns
  std::map<std::pair<int, int>, const FleetProbePair*> cells;
};

Grid grid_of(const FleetProbeResult& r)
{
  Grid g;
  for (const FleetProbeRank& rank : r.ranks) {
    (rank.side == "prefill" ? g.prefill : g.decode).push_back(rank.rank);
  }
  for (const FleetProbePair& p : r.pairs) {
    g.cells[{p.prefill, p.decode}] = &p;
  }
  return g;
}

const FleetProbeRank* rank_of(const FleetProbeResult& r, int rank)
{
  for (const FleetProbeRank& x : r.ranks) {
    if (x.rank == rank) {
      return &x;
    }
  }
  return nullptr;
}

std::string rank_label(const FleetProbeResult& r, int rank)
{
  const FleetProbeRank* x = rank_of(r, rank);
  return x == nullptr || x->host.empty() ? std::to_string(rank) : fmt::format("{} {}", rank, x->host);
}

std::string cell_text(const FleetProbePair* p)
{
  if (p == nullptr) {
    return ".";
  }
  switch (p->outcome) {
  case PairOutcome::verified:
    return fmt::format("{:.2f}", p->gbytes_per_s());
  case PairOutcome::findings:
    return "WRONG";
  case PairOutcome::failed:
    return "FAIL";
  case PairOutcome::not_run:
    return "n/a";
  }
  return "?";
}

std::string pair_name(const FleetProbePair& p)
{
  return fmt::format("prefill {} -> decode {}", p.prefill, p.decode);
}

double median_verified_rate(const FleetProbeResult& r)
{
  std::vector<double> rates;
  for (const FleetProbePair& p : r.pairs) {
    if (p.outcome == PairOutcome::verified && p.write_seconds > 0) {
      rates.push_back(p.gbytes_per_s());
    }
  }
  if (rates.empty()) {
    return 0;
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

} // namespace

std::string_view pair_outcome_key(PairOutcome o)
{
  switch (o) {
  case PairOutcome::verified:
    return "verified";
  case PairOutcome::findings:
    return "findings";
  case PairOutcome::failed:
    return "failed";
  case PairOutcome::not_run:
    return "not-run";
  }
  return "not-run";
}

std::string verified_count(const FleetProbeResult& r)
{
  return fmt::format("{} of {} pairs verified", r.count(PairOutcome::verified), r.pairs.size());
}

bool FleetProbeResult::all_verified() const
{
  return !pairs.empty() && count(PairOutcome::verified) == static_cast<int>(pairs.size());
}

int FleetProbeResult::count(PairOutcome o) const
{
  return static_cast<int>(std::count_if(pairs.begin(), pairs.end(), [o](const FleetProbePair& p) { return p.outcome == o; }));
}

nlohmann::ordered_json fleet_probe_to_json(const FleetProbeResult& r, int exit_code)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["tool"] = "pdcheck";
  j["version"] = PDCHECK_VERSION;
  j["verified"] = r.all_verified();
  j["exit_code"] = exit_code;
  j["plan"] = r.plan;
  j["launcher"] = r.launcher;
  j["coordinator"] = r.coordinator;
  j["transport"] = r.transport;
  j["memory"] = r.memory;
  j["pairing"] = r.pairing;
  j["rounds"] = r.rounds;
  j["seconds"] = r.seconds;
  j["notes"] = r.notes;
  j["counts"] = {{"pairs", r.pairs.size()},
                 {"verified", r.count(PairOutcome::verified)},
                 {"findings", r.count(PairOutcome::findings)},
                 {"failed", r.count(PairOutcome::failed)},
                 {"not_run", r.count(PairOutcome::not_run)}};
  j["ranks"] = nlohmann::ordered_json::array();
  for (const FleetProbeRank& x : r.ranks) {
    j["ranks"].push_back({{"rank", x.rank},
                          {"side", x.side},
                          {"joined", x.joined},
                          {"host", x.host},
                          {"port", x.port},
                          {"memory", x.memory},
                          {"left", x.left.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(x.left)}});
  }
  j["pairs"] = nlohmann::ordered_json::array();
  for (const FleetProbePair& p : r.pairs) {
    j["pairs"].push_back({{"prefill", p.prefill},
                          {"decode", p.decode},
                          {"round", p.round},
                          {"outcome", pair_outcome_key(p.outcome)},
                          {"phase", p.phase},
                          {"reason", p.reason},
                          {"bytes", p.bytes},
                          {"write_seconds", p.write_seconds},
                          {"gbytes_per_s", p.gbytes_per_s()},
                          {"wrong_bytes", p.wrong_bytes}});
  }
  return j;
}

std::string fleet_probe_to_text(const FleetProbeResult& r)
{
  std::string out = fmt::format("pdcheck probe fleet: {} · {} ranks ({}) · {} · {} memory\n", r.plan, r.ranks.size(),
                                r.launcher, r.transport, r.memory);
  out += fmt::format("pairs: {} · {} in {} round{} · {} verified", r.pairing, r.pairs.size(), r.rounds,
                     r.rounds == 1 ? "" : "s", r.count(PairOutcome::verified));
  for (PairOutcome o : {PairOutcome::findings, PairOutcome::failed, PairOutcome::not_run}) {
    if (const int n = r.count(o); n > 0) {
      out += fmt::format(" · {} {}", n, pair_outcome_key(o));
    }
  }
  out += fmt::format(" · {:.1f} s\n", r.seconds);
  for (const std::string& n : r.notes) {
    out += "note: " + n + "\n";
  }
  out += "\n";

  const Grid g = grid_of(r);
  std::vector<std::string> row_labels;
  std::size_t row_width = std::string_view("prefill \\ decode").size();
  for (int p : g.prefill) {
    row_labels.push_back(rank_label(r, p));
    row_width = std::max(row_width, row_labels.back().size());
  }
  std::vector<std::size_t> widths;
  out += fmt::format("{:<{}}", "prefill \\ decode", row_width);
  for (int d : g.decode) {
    const std::string label = rank_label(r, d);
    widths.push_back(std::max<std::size_t>(label.size(), 6));
    out += fmt::format("  {:>{}}", label, widths.back());
  }
  out += "\n";
  for (std::size_t i = 0; i < g.prefill.size(); ++i) {
    out += fmt::format("{:<{}}", row_labels[i], row_width);
    for (std::size_t c = 0; c < g.decode.size(); ++c) {
      const auto it = g.cells.find({g.prefill[i], g.decode[c]});
      out += fmt::format("  {:>{}}", cell_text(it == g.cells.end() ? nullptr : it->second), widths[c]);
    }
    out += "\n";
  }
  out += "(GB/s verified · WRONG bytes wrong or missing · FAIL stopped · n/a an end was missing · . not a pair)\n";

  bool heading = false;
  for (const FleetProbePair& p : r.pairs) {
    if (p.outcome == PairOutcome::verified) {
      continue;
    }
    if (!heading) {
      out += "\nnot verified:\n";
      heading = true;
    }
    out += fmt::format("  {} (round {}): {}{}{}\n", pair_name(p), p.round, pair_outcome_key(p.outcome),
                       p.phase.empty() ? "" : " in " + p.phase, p.reason.empty() ? "" : ": " + p.reason);
  }
  heading = false;
  for (const FleetProbeRank& x : r.ranks) {
    if (x.joined && x.left.empty()) {
      continue;
    }
    if (!heading) {
      out += "\nranks missing:\n";
      heading = true;
    }
    out += fmt::format("  rank {} ({}): {}\n", x.rank, x.side, x.joined ? "left: " + x.left : "never joined");
  }
  return out;
}

std::string fleet_probe_to_junit(const FleetProbeResult& r)
{
  std::string cases;
  int failures = 0;
  for (const FleetProbePair& p : r.pairs) {
    cases += fmt::format("    <testcase classname=\"pdcheck.probe.fleet\" name=\"{}\" time=\"{:.3f}\">\n",
                         xml_escape(pair_name(p)), p.write_seconds);
    if (p.outcome == PairOutcome::verified) {
      cases += fmt::format("      <system-out>{} bytes verified at {:.2f} GB/s</system-out>\n", p.bytes, p.gbytes_per_s());
    } else {
      ++failures;
      const std::string message = fmt::format("{}{}{}", pair_outcome_key(p.outcome), p.phase.empty() ? "" : " in " + p.phase,
                                              p.reason.empty() ? "" : ": " + p.reason);
      cases += fmt::format("      <failure type=\"{}\" message=\"{}\"/>\n", pair_outcome_key(p.outcome), xml_escape(message));
    }
    cases += "    </testcase>\n";
  }
  const std::string suite = fmt::format("  <testsuite name=\"probe fleet {}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
                                        "skipped=\"0\" time=\"{:.3f}\">\n{}  </testsuite>\n",
                                        xml_escape(r.plan), r.pairs.size(), failures, r.seconds, cases);
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pdcheck\" tests=\"{}\" "
                     "failures=\"{}\" errors=\"0\" skipped=\"0\">\n{}</testsuites>\n",
                     r.pairs.size(), failures, suite);
}

std::string fleet_probe_to_svg(const FleetProbeResult& r)
{
  const Grid g = grid_of(r);
  constexpr int cell = 18;
  constexpr int label_space = 110;
  constexpr int title_space = 24;
  constexpr int legend_space = 40;
  const int columns = static_cast<int>(g.decode.size());
  const int rows = static_cast<int>(g.prefill.size());
  const int width = std::max(label_space + columns * cell + 20, 520);
  const int height = title_space + label_space + rows * cell + legend_space;
  const int x0 = label_space;
  const int y0 = title_space + label_space;
  const double median = median_verified_rate(r);
  const std::string title = "pdcheck probe fleet: " + verified_count(r);
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                                "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"10\">\n",
                                width, height);
  out += fmt::format("  <title>{}</title>\n  <text x=\"4\" y=\"14\" font-size=\"12\">{}</text>\n", xml_escape(title),
                     xml_escape(title));
  out += fmt::format("  <text x=\"4\" y=\"{}\">prefill ↓ decode →</text>\n", y0 - 4);
  for (int i = 0; i < rows; ++i) {
    out += fmt::format("  <text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", x0 - 4,
                       y0 + i * cell + cell - 5, xml_escape(rank_label(r, g.prefill[static_cast<std::size_t>(i)])));
  }
  for (int c = 0; c < columns; ++c) {
    out += fmt::format("  <text class=\"column-label\" transform=\"translate({},{}) rotate(-60)\">{}</text>\n",
                       x0 + c * cell + cell - 5, y0 - 4, xml_escape(rank_label(r, g.decode[static_cast<std::size_t>(c)])));
  }
  for (int i = 0; i < rows; ++i) {
    for (int c = 0; c < columns; ++c) {
      const auto it = g.cells.find({g.prefill[static_cast<std::size_t>(i)], g.decode[static_cast<std::size_t>(c)]});
      if (it == g.cells.end()) {
        continue; // not a pair: the background shows through
      }
      const FleetProbePair& p = *it->second;
      std::string fill = "#9e9e9e";
      std::string tip = fmt::format("{}: {}", pair_name(p), pair_outcome_key(p.outcome));
      if (p.outcome == PairOutcome::verified) {
        // Slower than half the median: a lighter green, so a slow link stands out.
        fill = median > 0 && p.gbytes_per_s() < median / 2 ? "#a5d6a7" : "#2e7d32";
        tip += fmt::format(", {:.2f} GB/s", p.gbytes_per_s());
      } else if (p.outcome == PairOutcome::findings) {
        fill = "#c62828";
      } else if (p.outcome == PairOutcome::failed) {
        fill = "#ef6c00";
      }
      if (!p.reason.empty()) {
        tip += (p.phase.empty() ? ": " : " in " + p.phase + ": ") + p.reason;
      }
      out += fmt::format("  <rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\" "
                         "data-prefill=\"{}\" data-decode=\"{}\" data-outcome=\"{}\" data-gbps=\"{:.3f}\"><title>{}</title></rect>\n",
                         x0 + c * cell, y0 + i * cell, cell, cell, fill, p.prefill, p.decode, pair_outcome_key(p.outcome),
                         p.gbytes_per_s(), xml_escape(tip));
    }
  }
  int lx = 4;
  const int ly = y0 + rows * cell + 24;
  for (const auto& [fill, name] : {std::pair{"#2e7d32", "verified"}, std::pair{"#a5d6a7", "verified, < ½ median"},
                                   std::pair{"#c62828", "findings"}, std::pair{"#ef6c00", "failed"},
                                   std::pair{"#9e9e9e", "not run"}}) {
    out += fmt::format("  <rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{}</text>\n",
                       lx, ly - 9, fill, lx + 14, ly, xml_escape(name));
    lx += 100;
  }
  out += "</svg>\n";
  return out;
}

std::string fleet_probe_to_html(const FleetProbeResult& r)
{
  const std::string title = "pdcheck probe fleet: " + verified_count(r);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{}</title>\n", xml_escape(title));
  out += "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style>\n</head>\n<body>\n";
  out += fmt::format("<h1>{}</h1>\n<p>{} · {} ranks ({}) · {} · {} memory · pairs: {} in {} rounds · {:.1f} s</p>\n",
                     xml_escape(title), xml_escape(r.plan), r.ranks.size(), xml_escape(r.launcher),
                     xml_escape(r.transport), xml_escape(r.memory), xml_escape(r.pairing), r.rounds, r.seconds);
  for (const std::string& n : r.notes) {
    out += fmt::format("<p>note: {}</p>\n", xml_escape(n));
  }
  out += fleet_probe_to_svg(r);
  out += "<h2>Pairs not verified</h2>\n<table>\n<tr><th>pair</th><th>round</th><th>outcome</th><th>phase</th>"
         "<th>reason</th></tr>\n";
  for (const FleetProbePair& p : r.pairs) {
    if (p.outcome != PairOutcome::verified) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", xml_escape(pair_name(p)),
                         p.round, pair_outcome_key(p.outcome), xml_escape(p.phase), xml_escape(p.reason));
    }
  }
  out += "</table>\n<h2>Ranks</h2>\n<table>\n<tr><th>rank</th><th>side</th><th>host</th><th>memory</th>"
         "<th>state</th></tr>\n";
  for (const FleetProbeRank& x : r.ranks) {
    const std::string state = !x.joined ? "never joined" : x.left.empty() ? "took part" : "left: " + x.left;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", x.rank, x.side,
                       xml_escape(x.host), xml_escape(x.memory), xml_escape(state));
  }
  out += "</table>\n<p>Generated by pdcheck probe fleet; each cell is one pair's probe, every byte verified.</p>\n"
         "</body>\n</html>\n";
  return out;
}

} // namespace pdcheck::report
