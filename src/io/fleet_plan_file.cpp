#include "io/fleet_plan_file.hpp"

#include "io/input_file.hpp"
#include "io/yaml_load.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace pdcheck::io {

namespace {

namespace fs = std::filesystem;

/// A fleet plan is a screenful of YAML, like a side file.
constexpr InputKind k_fleet_plan{"fleet plan", 16 * k_mib};

const std::vector<std::string> k_top_keys = {"prefill", "decode", "pairs", "coordinator"};
const std::vector<std::string> k_side_keys = {"side", "ranks"};

std::string where_of(const std::string& file, const YAML::Mark& mark)
{
  if (mark.line < 0 || mark.column < 0) {
    return file;
  }
  return fmt::format("{}:{}:{}", file, mark.line + 1, mark.column + 1);
}

[[noreturn]] void unknown_key(const std::string& file, const YAML::Node& key, const std::string& name,
                              const std::vector<std::string>& keys)
{
  const auto near = closest_match(name, keys);
  throw InputError(where_of(file, key.Mark()), fmt::format("unknown key '{}'{} (keys: {})", name,
                                                           near ? fmt::format(", did you mean '{}'?", *near) : "",
                                                           fmt::join(keys, ", ")));
}

std::string scalar(const YAML::Node& node, const std::string& file, const std::string& field, const char* expected)
{
  if (!node.IsScalar()) {
    throw InputError(where_of(file, node.Mark()), fmt::format("{}: expected {}", field, expected));
  }
  return node.Scalar();
}

int rank_number(const YAML::Node& node, const std::string& file, const std::string& field)
{
  const std::string text = scalar(node, file, field, "a rank number");
  // parse_rank_spec's error for a single rank is the one a list item needs too.
  const plan::RankSpec one = plan::parse_rank_spec(text, where_of(file, node.Mark()));
  if (one.rest || one.ranges.size() != 1 || one.ranges[0].first != one.ranges[0].second) {
    throw InputError(where_of(file, node.Mark()), fmt::format("{}: expected a rank number, got \"{}\"", field, text));
  }
  return one.ranges[0].first;
}

plan::RankSpec rank_spec(const YAML::Node& node, const std::string& file, const std::string& field)
{
  const std::string where = where_of(file, node.Mark());
  if (node.IsSequence()) {
    plan::RankSpec spec;
    spec.where = where;
    for (const YAML::Node& item : node) {
      const int r = rank_number(item, file, field);
      spec.ranges.emplace_back(r, r);
    }
    if (spec.ranges.empty()) {
      throw InputError(where, fmt::format("{}: expected at least one rank", field));
    }
    return spec;
  }
  return plan::parse_rank_spec(scalar(node, file, field, "ranks such as \"0-3,8\", a list of ranks or rest"), where);
}

void read_side(const YAML::Node& node, const std::string& file, const std::string& name, std::string& side_path,
               plan::RankSpec& ranks)
{
  if (!node.IsMap()) {
    throw InputError(where_of(file, node.Mark()), fmt::format("{}: expected a mapping with side: and ranks:", name));
  }
  bool have_side = false;
  bool have_ranks = false;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node key_node = it->first;
    const YAML::Node value = it->second;
    const std::string key = scalar(key_node, file, name, "a key");
    if (key == "side") {
      const fs::path p = scalar(value, file, name + ".side", "a side file path");
      side_path = (p.is_relative() ? fs::path(file).parent_path() / p : p).lexically_normal().string();
      have_side = true;
    } else if (key == "ranks") {
      ranks = rank_spec(value, file, name + ".ranks");
      have_ranks = true;
    } else {
      unknown_key(file, key_node, key, k_side_keys);
    }
  }
  if (!have_side || !have_ranks) {
    throw InputError(where_of(file, node.Mark()), fmt::format("{}: missing {}", name, have_side ? "ranks:" : "side:"));
  }
}

void read_pairs(const YAML::Node& node, const std::string& file, plan::FleetPlan& plan)
{
  plan.pairs_where = where_of(file, node.Mark());
  if (node.IsScalar()) {
    const std::string choice = node.Scalar();
    if (choice == "all") {
      plan.pairs = plan::PairChoice::all;
    } else if (choice == "sglang") {
      plan.pairs = plan::PairChoice::sglang;
    } else {
      throw InputError(plan.pairs_where, fmt::format("pairs: expected all, sglang or a list of [prefill, decode] "
                                                     "rank pairs, got '{}'", choice));
    }
    return;
  }
  if (!node.IsSequence() || node.size() == 0) {
    throw InputError(plan.pairs_where, "pairs: expected all, sglang or a list of [prefill, decode] rank pairs");
  }
  plan.pairs = plan::PairChoice::listed;
  for (const YAML::Node& item : node) {
    if (!item.IsSequence() || item.size() != 2) {
      throw InputError(where_of(file, item.Mark()), "pairs: expected [prefill rank, decode rank]");
    }
    plan.listed.emplace_back(rank_number(item[0], file, "pairs"), rank_number(item[1], file, "pairs"));
  }
}

} // namespace

plan::FleetPlan load_fleet_plan(const std::string& path)
{
  const std::string text = read_input_file(path, k_fleet_plan);
  YAML::Node root;
  try {
    root = load_yaml(text);
  } catch (const YAML::Exception& e) {
    throw InputError(where_of(path, e.mark), "YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) {
    throw InputError(where_of(path, root.Mark()),
                     fmt::format("expected a fleet plan: a mapping with the keys {}", fmt::join(k_top_keys, ", ")));
  }
  plan::FleetPlan plan;
  plan.origin = path;
  plan.pairs_where = path;
  bool have_prefill = false;
  bool have_decode = false;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const YAML::Node key_node = it->first;
    const YAML::Node value = it->second;
    const std::string key = scalar(key_node, path, "key", "a key");
    if (key == "prefill") {
      read_side(value, path, key, plan.prefill_side, plan.prefill_ranks);
      have_prefill = true;
    } else if (key == "decode") {
      read_side(value, path, key, plan.decode_side, plan.decode_ranks);
      have_decode = true;
    } else if (key == "pairs") {
      read_pairs(value, path, plan);
    } else if (key == "coordinator") {
      plan.coordinator = scalar(value, path, key, "HOST:PORT");
    } else {
      unknown_key(path, key_node, key, k_top_keys);
    }
  }
  if (!have_prefill || !have_decode) {
    throw InputError(path, fmt::format("missing {}: (a mapping with side: and ranks:)", have_prefill ? "decode" : "prefill"));
  }
  return plan;
}

} // namespace pdcheck::io
