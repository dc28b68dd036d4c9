#include "cli/check_outputs.hpp"
#include "cli/options.hpp"

#include "report/check_render.hpp"
#include "report/github.hpp"
#include "report/gitlab.hpp"
#include "report/markdown.hpp"
#include "report/junit.hpp"
#include "report/sarif.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

namespace pdcheck::cli {

namespace {

report::PathBase path_base(const std::string& sarif_root)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) {
    throw InputError("--sarif-root", "cannot read the current directory: " + ec.message());
  }
  const fs::path root = sarif_root.empty() ? cwd : fs::absolute(sarif_root, ec);
  if (ec) {
    throw InputError("--sarif-root", "cannot resolve '" + sarif_root + "': " + ec.message());
  }
  return report::PathBase{cwd.string(), root.lexically_normal().string()};
}

std::string pair_title(std::size_t i, std::size_t n, const report::CheckReport& rep)
{
  return fmt::format("pair {} of {}: prefill {} × decode {}", i + 1, n, rep.in.prefill.origin, rep.in.decode.origin);
}


} // namespace

const std::vector<std::string>& check_formats()
{
  static const std::vector<std::string> formats = {"text", "json", "sarif", "junit", "github", "gitlab", "markdown"};
  return formats;
}

CheckedPairs check_pairs(const std::vector<const check::CheckInput*>& inputs, const check::FindingPolicy& policy,
                         Severity fail_on)
{
  CheckedPairs out;
  // Reserved up front: the reports point into these vectors.
  out.results.reserve(inputs.size());
  out.triages.reserve(inputs.size());
  for (const check::CheckInput* in : inputs) {
    out.results.push_back(check::run_check(*in));
    out.triages.push_back(check::triage(out.results.back().findings, policy));
    out.reports.push_back(report::CheckReport{*in, out.results.back(), out.triages.back(), fail_on});
  }
  return out;
}

CheckedPairs check_pairs(const std::vector<check::CheckInput>& inputs, const check::FindingPolicy& policy,
                         Severity fail_on)
{
  std::vector<const check::CheckInput*> each;
  for (const check::CheckInput& in : inputs) {
    each.push_back(&in);
  }
  return check_pairs(each, policy, fail_on);
}

std::string render_check_report(const std::string& format, const report::CheckReport& rep,
                                const std::string& sarif_root, bool color)
{
  if (format == "json") {
    return report::check_to_json(rep).dump(2) + "\n";
  }
  if (format == "sarif") {
    report::SarifOptions o;
    o.paths = path_base(sarif_root);
    return report::check_to_sarif(rep, o).dump(2) + "\n";
  }
  if (format == "junit") {
    return report::check_to_junit(rep);
  }
  if (format == "github") {
    return report::check_to_github(rep, path_base(sarif_root));
  }
  if (format == "gitlab") {
    return report::check_to_gitlab(rep, path_base(sarif_root)).dump(2) + "\n";
  }
  if (format == "markdown") {
    return report::check_to_markdown(rep);
  }
  report::RenderOptions ro;
  ro.color = color;
  return report::check_to_text(rep, ro);
}


std::string render_check_reports(const std::string& format, const std::vector<report::CheckReport>& reps,
                                 const std::string& sarif_root, bool color)
{
  if (reps.size() == 1) {
    return render_check_report(format, reps.front(), sarif_root, color);
  }
  const std::size_t n = reps.size();
  std::string out;
  if (format == "json") {
    nlohmann::ordered_json j = {{"schema_version", 2}, {"pairs", nlohmann::ordered_json::array()}};
    for (const report::CheckReport& rep : reps) {
      j["pairs"].push_back(report::check_to_json(rep));
    }
    return j.dump(2) + "\n";
  }
  if (format == "sarif" || format == "gitlab") {
    // One SARIF log with a run per pair; one Code Quality array of every pair's issues.
    report::SarifOptions o;
    o.paths = path_base(sarif_root);
    nlohmann::ordered_json merged;
    for (const report::CheckReport& rep : reps) {
      nlohmann::ordered_json one = format == "sarif" ? report::check_to_sarif(rep, o) : report::check_to_gitlab(rep, o.paths);
      if (merged.is_null()) {
        merged = std::move(one);
        continue;
      }
      nlohmann::ordered_json& into = format == "sarif" ? merged["runs"] : merged;
      for (auto& item : format == "sarif" ? one["runs"] : one) {
        into.push_back(std::move(item));
      }
    }
    return merged.dump(2) + "\n";
  }
  if (format == "junit") {
    return report::check_to_junit(reps);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (format == "text") {
      out += fmt::format("{}== {}\n{}", i == 0 ? "" : "\n", pair_title(i, n, reps[i]),
                         render_check_report(format, reps[i], sarif_root, color));
    } else if (format == "markdown") {
      out += fmt::format("{}## {}\n\n{}", i == 0 ? "" : "\n", pair_title(i, n, reps[i]),
                         render_check_report(format, reps[i], sarif_root));
    } else {
      out += render_check_report(format, reps[i], sarif_root);
    }
  }
  return out;
}

void write_check_outputs(const std::vector<std::string>& requests, const std::vector<report::CheckReport>& reps,
                         const std::string& sarif_root, std::ostream& out)
{
  write_requested_outputs(
    requests, [&](const std::string& format) { return render_check_reports(format, reps, sarif_root); }, out);
}

} // namespace pdcheck::cli
