#pragma once

// Sides built in memory from launch arguments, run through the checker, and the
// findings of one rule: what the checker tests have in common.

#include "check/checker.hpp"
#include "io/side_file.hpp"

#include <map>
#include <string>
#include <vector>

namespace pdcheck::test {

inline sglang::Side side(sglang::Role role, const std::string& args, const std::string& version,
                         const std::string& model = "qwen3-next-80b-a3b", std::map<std::string, std::string> env = {})
{
  const std::string mode = role == sglang::Role::prefill ? " --disaggregation-mode prefill" : " --disaggregation-mode decode";
  return io::side_from_args(role, args + mode, model, version, env, "test");
}

inline check::CheckResult check_pair(const sglang::Side& p, const sglang::Side& d, bool keep_pair_copies = false)
{
  check::CheckInput in;
  in.prefill = p;
  in.decode = d;
  in.keep_pair_copies = keep_pair_copies;
  return check::run_check(in);
}

inline std::vector<const Finding*> with_rule(const check::CheckResult& r, const std::string& rule)
{
  std::vector<const Finding*> out;
  for (const Finding& f : r.findings) {
    if (f.rule == rule) {
      out.push_back(&f);
    }
  }
  return out;
}

} // namespace pdcheck::test
