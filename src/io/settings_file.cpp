#include "io/settings_file.hpp"
#include "io/yaml_load.hpp"

#include "core/rules.hpp"
#include "io/input_file.hpp"
#include "util/error.hpp"
#include "util/json_limits.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <filesystem>

namespace pdcheck::io {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> k_keys = {"fail-on", "format", "ignore", "select", "severity", "show-advice", "baseline"};
const std::vector<std::string> k_severities = {"error", "warning", "info"};

std::string where_of(const std::string& file, const YAML::Mark& mark)
{
  if (mark.line < 0 || mark.column < 0) {
    return file;
  }
  return fmt::format("{}:{}:{}", file, mark.line + 1, mark.column + 1);
}

std::vector<std::string> rule_ids()
{
  std::vector<std::string> ids;
  for (const Rule& r : rules()) {
    ids.emplace_back(r.id);
  }
  return ids;
}

std::string scalar(const YAML::Node& node, const std::string& file, const std::string& key, std::string_view expected)
{
  if (!node.IsScalar()) {
    throw InputError(where_of(file, node.Mark()), fmt::format("{}: expected {}", key, expected));
  }
  return node.Scalar();
}

std::string rule_id(const YAML::Node& node, const std::string& file, const std::string& key)
{
  const std::string id = scalar(node, file, key, "a rule id");
  if (find_rule(id) == nullptr) {
    throw InputError(where_of(file, node.Mark()), fmt::format("{}: unknown rule '{}'{}", key, id,
                                                              did_you_mean(id, rule_ids(), "pdcheck rules lists them")));
  }
  return id;
}

Severity severity_value(const YAML::Node& node, const std::string& file, const std::string& key)
{
  const std::string s = scalar(node, file, key, "error, warning or info");
  if (s == "error") {
    return Severity::error;
  }
  if (s == "warning") {
    return Severity::warning;
  }
  if (s == "info") {
    return Severity::info;
  }
  throw InputError(where_of(file, node.Mark()),
                   fmt::format("{}: expected error, warning or info, got '{}'", key, s));
}

std::vector<std::string> rule_list(const YAML::Node& node, const std::string& file, const std::string& key)
{
  std::vector<std::string> out;
  if (node.IsScalar()) {
    out.push_back(rule_id(node, file, key)); // one rule needs no list
    return out;
  }
  if (!node.IsSequence()) {
    throw InputError(where_of(file, node.Mark()), key + ": expected a list of rule ids");
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    out.push_back(rule_id(item, file, key));
  }
  return out;
}

} // namespace

std::optional<std::string> find_settings_file(const std::string& start_dir)
{
  std::error_code ec;
  fs::path dir = fs::absolute(start_dir, ec);
  if (ec) {
    return std::nullopt;
  }
  dir = dir.lexically_normal();
  while (true) {
    const fs::path candidate = dir / k_settings_file_name;
    if (fs::exists(candidate, ec)) {
      return candidate.string();
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) {
      return std::nullopt;
    }
    dir = dir.parent_path();
  }
}

CheckSettings load_settings(const std::string& path)
{
  const std::string text = read_input_file(path, k_settings_file);
  YAML::Node root;
  try {
    root = load_yaml(text);
  } catch (const YAML::Exception& e) {
    throw InputError(where_of(path, e.mark), "YAML syntax error: " + e.msg);
  }
  CheckSettings s;
  s.path = path;
  if (root.IsNull()) {
    return s; // an empty file changes nothing
  }
  if (!root.IsMap()) {
    throw InputError(where_of(path, root.Mark()),
                     fmt::format("expected a mapping with the keys {}", fmt::join(k_keys, ", ")));
  }
  for (auto it = root.begin(); it != root.end(); ++it) {
    const YAML::Node key_node = it->first;
    const std::string key = scalar(key_node, path, "key", "a key");
    const YAML::Node value = it->second;
    if (key == "fail-on") {
      s.fail_on = std::string(severity_name(severity_value(value, path, key)));
    } else if (key == "format") {
      s.format = scalar(value, path, key, "a format name");
      s.format_where = where_of(path, value.Mark());
    } else if (key == "ignore") {
      s.ignore = rule_list(value, path, key);
    } else if (key == "select") {
      s.select = rule_list(value, path, key);
    } else if (key == "severity") {
      if (!value.IsMap()) {
        throw InputError(where_of(path, value.Mark()), "severity: expected a mapping RULE: error|warning|info");
      }
      for (auto r = value.begin(); r != value.end(); ++r) {
        const YAML::Node rule_key = r->first;
        const YAML::Node level = r->second;
        const std::string id = rule_id(rule_key, path, "severity");
        s.severity[id] = severity_value(level, path, "severity." + id);
      }
    } else if (key == "show-advice") {
      const std::string b = scalar(value, path, key, "true or false");
      if (b != "true" && b != "false") {
        throw InputError(where_of(path, value.Mark()), fmt::format("show-advice: expected true or false, got '{}'", b));
      }
      s.show_advice = b == "true";
    } else if (key == "baseline") {
      const fs::path p = scalar(value, path, key, "a file path");
      s.baseline = (p.is_relative() ? fs::path(path).parent_path() / p : p).lexically_normal().string();
    } else {
      throw InputError(where_of(path, key_node.Mark()),
                       fmt::format("unknown key '{}'{}", key,
                                   did_you_mean(key, k_keys, fmt::format("keys: {}", fmt::join(k_keys, ", ")))));
    }
  }
  return s;
}

std::vector<check::BaselineEntry> load_baseline(const std::string& path)
{
  const std::string text = read_input_file(path, k_baseline_file);
  refuse_unmeasurable_json(text, path, "baseline file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = json_line_column(text, e.byte);
    throw InputError(fmt::format("{}:{}:{}", path, line, column),
                     "invalid JSON; expected a baseline written by pdcheck check --write-baseline");
  } catch (const nlohmann::json::exception&) {
    throw InputError(path, "invalid JSON; expected a baseline written by pdcheck check --write-baseline");
  }
  const std::string expected = "a baseline written by pdcheck check --write-baseline (schemas/baseline.schema.json)";
  if (!doc.is_object() || doc.value("tool", "") != "pdcheck" || !doc.contains("causes") || !doc["causes"].is_array()) {
    throw InputError(path, "expected " + expected);
  }
  std::vector<check::BaselineEntry> out;
  for (std::size_t i = 0; i < doc["causes"].size(); ++i) {
    const nlohmann::json& c = doc["causes"][i];
    auto text_field = [&](const char* name) {
      if (!c.is_object() || !c.contains(name) || !c[name].is_string()) {
        throw InputError(fmt::format("{}: causes[{}].{}", path, i, name), "expected a string");
      }
      return c[name].get<std::string>();
    };
    out.push_back({text_field("rule"), text_field("side"), text_field("fingerprint"), text_field("message")});
  }
  return out;
}

std::string baseline_to_text(const std::vector<check::BaselineEntry>& entries)
{
  nlohmann::ordered_json doc;
  doc["tool"] = "pdcheck";
  doc["schema_version"] = 1;
  auto causes = nlohmann::ordered_json::array();
  for (const check::BaselineEntry& e : entries) {
    causes.push_back({{"rule", e.rule}, {"side", e.side}, {"fingerprint", e.fingerprint}, {"message", e.message}});
  }
  doc["causes"] = std::move(causes);
  return doc.dump(2) + "\n";
}

} // namespace pdcheck::io
