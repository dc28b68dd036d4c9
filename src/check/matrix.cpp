#include "check/matrix.hpp"

#include "sglang/launch_flags.hpp"

#include <fmt/format.h>

namespace pdcheck::check {

sglang::Side launched_side(sglang::Role role, const model::ModelSpec& model, const Profile& profile,
                           const std::vector<std::string>& words)
{
  sglang::Side side;
  side.role = role;
  side.sglang = profile.name;
  side.profile = profile;
  side.profile_confidence = profile.confidence;
  side.model = model;
  side.origin = fmt::format("{} {}", sglang::role_name(role), fmt::join(words, " "));
  side.args = sglang::parse_launch_args(words, side.origin, {}, nullptr, ".",
                                        sglang::flag_tables_for(profile.name).table);
  return side;
}

std::string_view axis_name(MatrixAxis a)
{
  return a == MatrixAxis::release ? "SGLang release" : "TP size";
}

namespace {

std::vector<std::string> words_for(sglang::Role role, int tp, const std::vector<std::string>& extra)
{
  std::vector<std::string> w = {"--disaggregation-mode", std::string(sglang::role_name(role)), "--tp-size",
                                std::to_string(tp)};
  w.insert(w.end(), extra.begin(), extra.end());
  return w;
}

} // namespace

Matrix build_matrix(const MatrixRequest& r)
{
  Matrix m;
  m.axis = r.axis;
  m.model = r.model.name;
  m.launch = fmt::format("{}", fmt::join(r.extra_words, " "));
  std::vector<sglang::Side> prefills;
  std::vector<sglang::Side> decodes;
  auto add = [&](const Profile& p, int tp) {
    prefills.push_back(launched_side(sglang::Role::prefill, r.model, p, words_for(sglang::Role::prefill, tp, r.extra_words)));
    decodes.push_back(launched_side(sglang::Role::decode, r.model, p, words_for(sglang::Role::decode, tp, r.extra_words)));
  };
  if (r.axis == MatrixAxis::release) {
    const int tp = r.tp_sizes.at(0);
    m.fixed = fmt::format("tp {}", tp);
    for (const Profile* p : r.releases) {
      m.labels.push_back(p->name);
      add(*p, tp);
    }
  } else {
    const Profile& p = *r.releases.at(0);
    m.fixed = "SGLang " + p.name;
    for (int tp : r.tp_sizes) {
      m.labels.push_back(std::to_string(tp));
      add(p, tp);
    }
  }
  m.cells.reserve(m.labels.size() * m.labels.size());
  for (const sglang::Side& p : prefills) {
    for (const sglang::Side& d : decodes) {
      CheckInput in;
      in.prefill = p;
      in.decode = d;
      const CheckResult result = run_check(in);
      m.cells.push_back(MatrixCell{outcome_of(triage(result.findings, FindingPolicy{}), r.fail_on)});
    }
  }
  return m;
}

} // namespace pdcheck::check
