// Fleet plans (`pdcheck probe fleet PLAN`): any text becomes a plan or one
// InputError naming the file; a plan that loads is then resolved for fleets of
// 1 to 64 ranks and at attention TPs 1 to 8 (each an InputError, or roles and
// pairs that hold together), and its pairs scheduled into rounds in which no
// rank is in two pairs.

#include "fuzz_common.hpp"
#include "io/fleet_plan_file.hpp"
#include "plan/fleet_pairs.hpp"
#include "util/error.hpp"

#include <algorithm>
#include <set>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  if (size == 0) {
    return 0;
  }
  const std::string path = fuzz::input_file(data + 1, size - 1, "-plan.yaml");
  plan::FleetPlan p;
  try {
    p = io::load_fleet_plan(path);
  } catch (const InputError&) {
    return 0;
  }
  const int fleet = 1 + data[0] % 64;
  const int prefill_tp = 1 << (data[0] / 64 % 4);
  const int decode_tp = 1 << (data[0] / 16 % 4);
  try {
    const plan::FleetRoles roles = plan::resolve_roles(p, fleet);
    const std::vector<plan::FleetPair> pairs = plan::fleet_pairs(p, roles, prefill_tp, decode_tp);
    for (const plan::FleetPair& pair : pairs) {
      if (!std::binary_search(roles.prefill.begin(), roles.prefill.end(), pair.prefill) ||
          !std::binary_search(roles.decode.begin(), roles.decode.end(), pair.decode)) {
        fuzz::invariant_broken("a pair names a rank that is not on its side");
      }
    }
    std::size_t scheduled = 0;
    for (const auto& round : plan::schedule_rounds(pairs)) {
      std::set<int> busy;
      for (std::size_t i : round) {
        if (!busy.insert(pairs.at(i).prefill).second || !busy.insert(pairs.at(i).decode).second) {
          fuzz::invariant_broken("a rank is in two pairs of one round");
        }
      }
      scheduled += round.size();
    }
    if (scheduled != pairs.size()) {
      fuzz::invariant_broken("a pair was scheduled twice or not at all");
    }
  } catch (const InputError&) {
  }
  return 0;
}
