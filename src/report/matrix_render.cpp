#include "report/matrix_render.hpp"

#include "report/junit.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace pdcheck::report {

namespace {

using check::Outcome;

constexpr Outcome k_outcomes[] = {Outcome::compatible, Outcome::runtime_error, Outcome::silent_corruption,
                                  Outcome::cannot_start};

/// One character per cell in the terminal table.
std::string_view glyph(Outcome o)
{
  switch (o) {
  case Outcome::compatible: return ".";
  case Outcome::runtime_error: return "E";
  case Outcome::silent_corruption: return "S";
  case Outcome::cannot_start: return "X";
  }
  return "?";
}

/// Heat-map colours: green works, amber fails loudly, red corrupts silently, grey never starts.
std::string_view colour(Outcome o)
{
  switch (o) {
  case Outcome::compatible: return "#2e7d32";
  case Outcome::runtime_error: return "#f9a825";
  case Outcome::silent_corruption: return "#c62828";
  case Outcome::cannot_start: return "#616161";
  }
  return "#000000";
}

std::string title_of(const check::Matrix& m)
{
  return fmt::format("{}: prefill {} × decode {} ({}{})", m.model, check::axis_name(m.axis), check::axis_name(m.axis),
                     m.fixed, m.launch.empty() ? "" : ", " + m.launch);
}

/// The distinct causes, each with its cell count and first cell, worst first.
struct CauseCount
{
  Outcome outcome;
  std::string rule;
  std::size_t cells = 0;
  std::size_t first = 0;
};

std::vector<CauseCount> cause_counts(const check::Matrix& m)
{
  std::map<std::pair<int, std::string>, CauseCount> by;
  for (std::size_t i = 0; i < m.cells.size(); ++i) {
    const check::PairOutcome& o = m.cells[i].outcome;
    auto [it, fresh] = by.try_emplace({static_cast<int>(o.outcome), o.rule}, CauseCount{o.outcome, o.rule, 0, i});
    it->second.cells += 1;
  }
  std::vector<CauseCount> out;
  for (auto& [key, c] : by) {
    out.push_back(c);
  }
  return out;
}

} // namespace

std::string matrix_to_text(const check::Matrix& m)
{
  const std::size_t n = m.labels.size();
  std::size_t width = 7; // "prefill"
  for (const std::string& l : m.labels) {
    width = std::max(width, l.size());
  }
  std::string out = title_of(m) + "\n";
  out += fmt::format("rows: prefill, columns: decode ({}, in the rows' order)\n\n", counted(static_cast<long long>(n), "value"));
  // Column numbers every fifth column, so a cell can be found in a wide grid.
  std::string ticks(n, ' ');
  for (std::size_t c = 0; c < n; c += 5) {
    const std::string num = std::to_string(c + 1);
    if (c + num.size() <= n) { // a number cut short would name another column
      ticks.replace(c, num.size(), num);
    }
  }
  out += fmt::format("{:<{}}  {}\n", "", width, ticks);
  for (std::size_t r = 0; r < n; ++r) {
    std::string row;
    for (std::size_t c = 0; c < n; ++c) {
      row += glyph(m.at(r, c).outcome.outcome);
    }
    out += fmt::format("{:<{}}  {}\n", m.labels[r], width, row);
  }
  out += "\n";
  for (Outcome o : k_outcomes) {
    out += fmt::format("  {} {}", glyph(o), check::outcome_name(o));
  }
  out += "\n\n";
  for (const CauseCount& c : cause_counts(m)) {
    const std::size_t r = c.first / n;
    const std::size_t d = c.first % n;
    out += fmt::format("{:>10}  {}{}  (first: prefill {} × decode {})\n", counted(static_cast<long long>(c.cells), "cell"),
                       check::outcome_name(c.outcome), c.rule.empty() ? "" : " [" + c.rule + "]", m.labels[r],
                       m.labels[d]);
  }
  return out;
}

nlohmann::ordered_json matrix_to_json(const check::Matrix& m)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["model"] = m.model;
  j["axis"] = m.axis == check::MatrixAxis::release ? "release" : "tp";
  j["fixed"] = m.fixed;
  j["launch"] = m.launch;
  j["labels"] = m.labels;
  auto cells = nlohmann::ordered_json::array();
  const std::size_t n = m.labels.size();
  for (std::size_t i = 0; i < m.cells.size(); ++i) {
    const check::PairOutcome& o = m.cells[i].outcome;
    nlohmann::ordered_json c;
    c["prefill"] = m.labels[i / n];
    c["decode"] = m.labels[i % n];
    c["outcome"] = check::outcome_key(o.outcome);
    c["rule"] = o.rule.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.rule);
    c["message"] = o.rule.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.message);
    cells.push_back(std::move(c));
  }
  j["cells"] = std::move(cells);
  nlohmann::ordered_json counts = nlohmann::ordered_json::object();
  for (Outcome o : k_outcomes) {
    counts[std::string(check::outcome_key(o))] =
      std::count_if(m.cells.begin(), m.cells.end(), [o](const check::MatrixCell& c) { return c.outcome.outcome == o; });
  }
  j["counts"] = std::move(counts);
  return j;
}

std::string matrix_to_svg(const check::Matrix& m)
{
  const std::size_t n = m.labels.size();
  constexpr int cell = 14;
  constexpr int label_space = 90; // row labels on the left, column labels (rotated) on top
  constexpr int title_space = 24;
  constexpr int legend_space = 40;
  const int side = static_cast<int>(n) * cell;
  const int width = label_space + side + 20;
  const int height = title_space + label_space + side + legend_space;
  const int x0 = label_space;
  const int y0 = title_space + label_space;
  std::string out = fmt::format(
    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
    "font-family=\"sans-serif\" font-size=\"10\">\n",
    std::max(width, 420), height, std::max(width, 420), height);
  out += fmt::format("  <title>{}</title>\n", xml_escape(title_of(m)));
  out += fmt::format("  <text x=\"4\" y=\"14\" font-size=\"12\">{}</text>\n", xml_escape(title_of(m)));
  out += fmt::format("  <text x=\"4\" y=\"{}\">prefill ↓ decode →</text>\n", y0 - 4);
  for (std::size_t i = 0; i < n; ++i) {
    const int pos = static_cast<int>(i) * cell;
    out += fmt::format("  <text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", x0 - 4,
                       y0 + pos + cell - 3, xml_escape(m.labels[i]));
    out += fmt::format("  <text class=\"column-label\" transform=\"translate({},{}) rotate(-60)\">{}</text>\n",
                       x0 + pos + cell - 3, y0 - 4, xml_escape(m.labels[i]));
  }
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      const check::PairOutcome& o = m.at(r, c).outcome;
      const std::string tip = fmt::format("prefill {} × decode {}: {}{}", m.labels[r], m.labels[c],
                                          check::outcome_name(o.outcome), o.rule.empty() ? "" : " [" + o.rule + "]");
      out += fmt::format("  <rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" "
                         "stroke=\"#ffffff\" data-prefill=\"{}\" data-decode=\"{}\" data-outcome=\"{}\" "
                         "data-rule=\"{}\"><title>{}</title></rect>\n",
                         x0 + static_cast<int>(c) * cell, y0 + static_cast<int>(r) * cell, cell, cell,
                         colour(o.outcome), xml_escape(m.labels[r]), xml_escape(m.labels[c]),
                         check::outcome_key(o.outcome), xml_escape(o.rule), xml_escape(tip));
    }
  }
  int lx = 4;
  const int ly = y0 + side + 20;
  for (Outcome o : k_outcomes) {
    out += fmt::format("  <rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"10\" height=\"10\" fill=\"{}\"/>"
                       "<text x=\"{}\" y=\"{}\">{}</text>\n",
                       lx, ly - 9, colour(o), lx + 14, ly, check::outcome_name(o));
    lx += 100;
  }
  out += "</svg>\n";
  return out;
}

std::string matrix_to_html(const check::Matrix& m)
{
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{}</title>\n", xml_escape(title_of(m)));
  out += "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}</style>\n</head>\n<body>\n";
  out += fmt::format("<h1>{}</h1>\n", xml_escape(title_of(m)));
  out += matrix_to_svg(m);
  out += "<table>\n<tr><th>cells</th><th>outcome</th><th>rule</th><th>first pair</th></tr>\n";
  const std::size_t n = m.labels.size();
  for (const CauseCount& c : cause_counts(m)) {
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>prefill {} × decode {}</td></tr>\n", c.cells,
                       check::outcome_name(c.outcome), xml_escape(c.rule), xml_escape(m.labels[c.first / n]),
                       xml_escape(m.labels[c.first % n]));
  }
  out += "</table>\n<p>Generated by pdcheck matrix; each cell is the whole check of that pair.</p>\n</body>\n</html>\n";
  return out;
}

} // namespace pdcheck::report
