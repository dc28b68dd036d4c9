#include "plan/fleet_pairs.hpp"

#include "util/error.hpp"
#include "util/whole_number.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace pdcheck::plan {

namespace {

int parse_rank(std::string_view text, const std::string& where, const std::string& whole)
{
  const std::optional<int> value = whole_number(text);
  if (!value) {
    throw InputError(where, fmt::format("expected ranks such as \"0-3,8\" or \"rest\", got \"{}\"", whole));
  }
  return *value;
}

std::vector<int> ranks_of(const RankSpec& spec)
{
  std::vector<int> out;
  for (const auto& [first, last] : spec.ranges) {
    for (int r = first; r <= last; ++r) {
      out.push_back(r);
    }
  }
  return out;
}

void check_in_fleet(const RankSpec& spec, const char* side, int size)
{
  for (const auto& [first, last] : spec.ranges) {
    if (last >= size) {
      throw InputError(spec.where, fmt::format("{} rank {} is outside the fleet of {} ranks (0-{})", side, last,
                                               size, size - 1));
    }
  }
}

/// The ranks of one side that are not named by the other.
std::vector<int> the_rest(const std::vector<int>& other, int size)
{
  std::vector<int> out;
  for (int r = 0; r < size; ++r) {
    if (std::find(other.begin(), other.end(), r) == other.end()) {
      out.push_back(r);
    }
  }
  return out;
}

} // namespace

RankSpec parse_rank_spec(const std::string& text, const std::string& where)
{
  RankSpec spec;
  spec.where = where;
  if (text == "rest") {
    spec.rest = true;
    return spec;
  }
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t dash = item.find('-');
    const int first = parse_rank(item.substr(0, dash), where, text);
    const int last = dash == std::string_view::npos ? first : parse_rank(item.substr(dash + 1), where, text);
    if (last < first) {
      throw InputError(where, fmt::format("rank range {}-{} runs backwards", first, last));
    }
    spec.ranges.emplace_back(first, last);
    if (comma == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(comma + 1);
  }
  return spec;
}

FleetRoles resolve_roles(const FleetPlan& plan, int size)
{
  if (plan.prefill_ranks.rest && plan.decode_ranks.rest) {
    throw InputError(plan.decode_ranks.where, "only one side can take the \"rest\" of the ranks");
  }
  check_in_fleet(plan.prefill_ranks, "prefill", size);
  check_in_fleet(plan.decode_ranks, "decode", size);
  FleetRoles roles;
  roles.prefill = ranks_of(plan.prefill_ranks);
  roles.decode = ranks_of(plan.decode_ranks);
  if (plan.prefill_ranks.rest) {
    roles.prefill = the_rest(roles.decode, size);
  }
  if (plan.decode_ranks.rest) {
    roles.decode = the_rest(roles.prefill, size);
  }
  for (std::vector<int>* side : {&roles.prefill, &roles.decode}) {
    std::sort(side->begin(), side->end());
    const auto dup = std::adjacent_find(side->begin(), side->end());
    if (dup != side->end()) {
      const RankSpec& spec = side == &roles.prefill ? plan.prefill_ranks : plan.decode_ranks;
      throw InputError(spec.where, fmt::format("rank {} is named twice", *dup));
    }
  }
  for (int r : roles.prefill) {
    if (std::binary_search(roles.decode.begin(), roles.decode.end(), r)) {
      throw InputError(plan.decode_ranks.where, fmt::format("rank {} is named on both sides: one rank runs one end", r));
    }
  }
  if (roles.prefill.empty()) {
    throw InputError(plan.prefill_ranks.where, fmt::format("no prefill rank in a fleet of {} ranks", size));
  }
  if (roles.decode.empty()) {
    throw InputError(plan.decode_ranks.where, fmt::format("no decode rank in a fleet of {} ranks", size));
  }
  return roles;
}

std::vector<int> sglang_target_tp_ranks(int decode_tp_rank, int decode_attn_tp, int prefill_attn_tp)
{
  if (decode_attn_tp >= prefill_attn_tp) {
    return {decode_tp_rank / (decode_attn_tp / prefill_attn_tp)};
  }
  const int ratio = prefill_attn_tp / decode_attn_tp;
  std::vector<int> out;
  for (int r = decode_tp_rank * ratio; r < (decode_tp_rank + 1) * ratio; ++r) {
    out.push_back(r);
  }
  return out;
}

std::vector<FleetPair> fleet_pairs(const FleetPlan& plan, const FleetRoles& roles, int prefill_attn_tp,
                                   int decode_attn_tp)
{
  std::vector<FleetPair> pairs;
  switch (plan.pairs) {
  case PairChoice::all:
    for (int p : roles.prefill) {
      for (int d : roles.decode) {
        pairs.push_back({p, d});
      }
    }
    break;
  case PairChoice::listed: {
    std::set<std::pair<int, int>> seen;
    for (const auto& [p, d] : plan.listed) {
      if (!std::binary_search(roles.prefill.begin(), roles.prefill.end(), p)) {
        throw InputError(plan.pairs_where, fmt::format("pair [{}, {}]: rank {} is not a prefill rank", p, d, p));
      }
      if (!std::binary_search(roles.decode.begin(), roles.decode.end(), d)) {
        throw InputError(plan.pairs_where, fmt::format("pair [{}, {}]: rank {} is not a decode rank", p, d, d));
      }
      if (seen.insert({p, d}).second) {
        pairs.push_back({p, d});
      }
    }
    break;
  }
  case PairChoice::sglang: {
    if (prefill_attn_tp < 1 || decode_attn_tp < 1) {
      throw InputError(plan.pairs_where, fmt::format("sglang pairs: attention TP {} (prefill) and {} (decode): a side "
                                                     "SGLang cannot start has no rank mapping",
                                                     prefill_attn_tp, decode_attn_tp));
    }
    const auto whole = [&](const std::vector<int>& side, int tp, const char* name) {
      if (side.size() % static_cast<std::size_t>(tp) != 0) {
        throw InputError(plan.pairs_where,
                         fmt::format("sglang pairs need whole {} instances: {} {} ranks at attention TP {}", name,
                                     side.size(), name, tp));
      }
    };
    if (std::max(prefill_attn_tp, decode_attn_tp) % std::min(prefill_attn_tp, decode_attn_tp) != 0) {
      throw InputError(plan.pairs_where,
                       fmt::format("sglang pairs: attention TP {} (prefill) and {} (decode) do not divide one "
                                   "another, so SGLang has no rank mapping for them",
                                   prefill_attn_tp, decode_attn_tp));
    }
    whole(roles.prefill, prefill_attn_tp, "prefill");
    whole(roles.decode, decode_attn_tp, "decode");
    const std::size_t prefill_instances = roles.prefill.size() / static_cast<std::size_t>(prefill_attn_tp);
    const std::size_t decode_instances = roles.decode.size() / static_cast<std::size_t>(decode_attn_tp);
    for (std::size_t pi = 0; pi < prefill_instances; ++pi) {
      for (std::size_t di = 0; di < decode_instances; ++di) {
        for (int dr = 0; dr < decode_attn_tp; ++dr) {
          const int d = roles.decode[di * static_cast<std::size_t>(decode_attn_tp) + static_cast<std::size_t>(dr)];
          for (int pr : sglang_target_tp_ranks(dr, decode_attn_tp, prefill_attn_tp)) {
            pairs.push_back({roles.prefill[pi * static_cast<std::size_t>(prefill_attn_tp) + static_cast<std::size_t>(pr)], d});
          }
        }
      }
    }
    break;
  }
  }
  std::sort(pairs.begin(), pairs.end(),
            [](const FleetPair& a, const FleetPair& b) { return std::pair(a.prefill, a.decode) < std::pair(b.prefill, b.decode); });
  return pairs;
}

std::vector<std::vector<std::size_t>> schedule_rounds(const std::vector<FleetPair>& pairs)
{
  std::vector<std::vector<std::size_t>> rounds;
  std::vector<std::set<int>> busy;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r].count(pairs[i].prefill) != 0 || busy[r].count(pairs[i].decode) != 0)) {
      ++r;
    }
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].push_back(i);
    busy[r].insert(pairs[i].prefill);
    busy[r].insert(pairs[i].decode);
  }
  return rounds;
}

} // namespace pdcheck::plan
