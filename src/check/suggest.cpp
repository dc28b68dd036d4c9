#include "check/suggest.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::check {

namespace {

bool passes_with(const CheckInput& in, sglang::Role role, const Relaunch& change, const FindingPolicy& policy,
                 Severity fail_on)
{
  CheckInput tried = in;
  sglang::Side& side = role == sglang::Role::prefill ? tried.prefill : tried.decode;
  try {
    side = relaunched(side, change);
  } catch (const InputError&) {
    return false; // a launch SGLang's parser refuses is no suggestion
  }
  return triage(run_check(tried).findings, policy).passes(fail_on);
}

/// "2", "2 or 4", "1, 2 or 4".
std::string either(const std::vector<std::string>& v)
{
  if (v.size() == 1) {
    return v.front();
  }
  return fmt::format("{} or {}", fmt::join(v.begin(), v.end() - 1, ", "), v.back());
}

} // namespace

std::string release_ranges(const std::vector<std::string>& works, const std::vector<std::string>& all)
{
  std::vector<std::string> parts;
  std::size_t i = 0;
  while (i < all.size()) {
    if (std::find(works.begin(), works.end(), all[i]) == works.end()) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < all.size() && std::find(works.begin(), works.end(), all[j + 1]) != works.end()) {
      ++j;
    }
    if (j + 1 == all.size() && j > i) {
      parts.push_back(all[i] + " or later");
    } else if (j > i) {
      parts.push_back(all[i] + " to " + all[j]);
    } else {
      parts.push_back(all[i]);
    }
    i = j + 1;
  }
  if (parts.size() <= 1) {
    return parts.empty() ? "" : parts.front();
  }
  return fmt::format("{} and {}", fmt::join(parts.begin(), parts.end() - 1, ", "), parts.back());
}

std::vector<Suggestion> suggestions(const CheckInput& in, const FindingPolicy& policy, Severity fail_on)
{
  std::vector<Suggestion> out;
  std::vector<std::string> releases;
  for (const Profile* p : release_profiles()) {
    releases.push_back(p->name);
  }
  for (const sglang::Role role : {sglang::Role::decode, sglang::Role::prefill}) {
    const sglang::Side& side = role == sglang::Role::prefill ? in.prefill : in.decode;
    const std::string name(sglang::role_name(role));
    Suggestion tp{name, "tp_size", {}, ""};
    for (int size = 1; size <= 64; size *= 2) {
      if (size != side.args.tp_size && passes_with(in, role, Relaunch{{}, {"--tp-size", std::to_string(size)}, {}, {}, {}}, policy, fail_on)) {
        tp.values.push_back(std::to_string(size));
      }
    }
    if (!tp.values.empty()) {
      tp.text = fmt::format("{} at TP {} works", name, either(tp.values));
      out.push_back(std::move(tp));
    }
    Suggestion release{name, "sglang", {}, ""};
    for (const std::string& r : releases) {
      if (r != side.profile.name && passes_with(in, role, Relaunch{r, {}, {}, {}, {}}, policy, fail_on)) {
        release.values.push_back(r);
      }
    }
    if (!release.values.empty()) {
      release.text = fmt::format("{} on SGLang {} works", name, release_ranges(release.values, releases));
      out.push_back(std::move(release));
    }
  }
  return out;
}

} // namespace pdcheck::check
