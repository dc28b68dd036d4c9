// check::pair_plans: the copy plans the probe executes are the ones run_check
// builds for the same input, for every bundled example pair; and run_check
// reaches the same verdict whether it keeps the copy lists or drops them.

#include "check/checker.hpp"
#include "io/side_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace pdcheck;

namespace {

bool same_plan(const plan::PairPlan& a, const plan::PairPlan& b)
{
  if (a.copies.size() != b.copies.size() || a.path != b.path || a.skipped != b.skipped ||
      a.error.has_value() != b.error.has_value() || a.function != b.function) {
    return false;
  }
  if (a.error && (a.error->id != b.error->id || a.error->message != b.error->message)) {
    return false;
  }
  for (std::size_t i = 0; i < a.copies.size(); ++i) {
    const plan::Copy& x = a.copies[i];
    const plan::Copy& y = b.copies[i];
    if (x.src_entry != y.src_entry || x.dst_entry != y.dst_entry || x.src_offset != y.src_offset ||
        x.dst_offset != y.dst_offset || x.length != y.length) {
      return false;
    }
  }
  return true;
}

} // namespace

TEST_CASE("pair_plans: the probe's plans are run_check's, for every example pair and slot", "[checker]")
{
  namespace fs = std::filesystem;
  int pairs_with_plans = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(PDCHECK_SOURCE_DIR) / "examples" / "pairs")) {
    INFO(dir.path().filename().string());
    check::CheckInput in;
    in.prefill = io::load_side_file((dir.path() / "prefill.yaml").string());
    in.decode = io::load_side_file((dir.path() / "decode.yaml").string());
    in.src_slot = 2;
    in.dst_slot = 7;
    in.keep_pair_copies = true;
    const check::CheckResult full = check::run_check(in);
    const std::vector<check::PairResult> plans = check::pair_plans(in);
    REQUIRE(plans.size() == full.pairs.size());
    for (std::size_t i = 0; i < plans.size(); ++i) {
      CHECK(plans[i].prefill_rank == full.pairs[i].prefill_rank);
      CHECK(plans[i].prefill_pp_rank == full.pairs[i].prefill_pp_rank);
      CHECK(plans[i].decode_rank == full.pairs[i].decode_rank);
      CHECK(plans[i].decode_pp_rank == full.pairs[i].decode_pp_rank);
      CHECK(same_plan(plans[i].plan, full.pairs[i].plan));
    }
    pairs_with_plans += plans.empty() ? 0 : 1;
  }
  // Most examples reach the transfer; a refusal at startup or bootstrap plans nothing.
  CHECK(pairs_with_plans >= 10);
}

TEST_CASE("run_check: dropping the copy lists changes no finding, pair or simulated byte", "[checker]")
{
  namespace fs = std::filesystem;
  std::size_t copies_kept = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(PDCHECK_SOURCE_DIR) / "examples" / "pairs")) {
    INFO(dir.path().filename().string());
    check::CheckInput in;
    in.prefill = io::load_side_file((dir.path() / "prefill.yaml").string());
    in.decode = io::load_side_file((dir.path() / "decode.yaml").string());
    in.keep_pair_copies = true;
    const check::CheckResult kept = check::run_check(in);
    in.keep_pair_copies = false;
    const check::CheckResult dropped = check::run_check(in);
    CHECK(dropped.simulated_decode_ranks == kept.simulated_decode_ranks);
    CHECK(dropped.simulated_bytes == kept.simulated_bytes);
    REQUIRE(dropped.findings.size() == kept.findings.size());
    for (std::size_t i = 0; i < kept.findings.size(); ++i) {
      CHECK(dropped.findings[i].rule == kept.findings[i].rule);
      CHECK(dropped.findings[i].message == kept.findings[i].message);
      CHECK(dropped.findings[i].runtime_error == kept.findings[i].runtime_error);
      CHECK(dropped.findings[i].prefill_rank == kept.findings[i].prefill_rank);
      CHECK(dropped.findings[i].decode_rank == kept.findings[i].decode_rank);
    }
    REQUIRE(dropped.pairs.size() == kept.pairs.size());
    for (std::size_t i = 0; i < kept.pairs.size(); ++i) {
      CHECK(dropped.pairs[i].prefill_rank == kept.pairs[i].prefill_rank);
      CHECK(dropped.pairs[i].decode_rank == kept.pairs[i].decode_rank);
      CHECK(dropped.pairs[i].plan.path == kept.pairs[i].plan.path);
      CHECK(dropped.pairs[i].plan.error.has_value() == kept.pairs[i].plan.error.has_value());
      CHECK(dropped.pairs[i].plan.copies.empty());
      copies_kept += kept.pairs[i].plan.copies.size();
    }
  }
  CHECK(copies_kept > 0); // the kept lists are there to drop
}
