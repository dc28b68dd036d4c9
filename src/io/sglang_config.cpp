#include "io/sglang_config.hpp"
#include "io/yaml_load.hpp"

#include "io/input_file.hpp"
#include "util/error.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>

// Conversion rules follow SGLang's ConfigArgumentMerger
// (python/sglang/srt/server_args_config_parser.py, sgl-project/sglang @
// 03bd2f167a3bc5a040d9cbb8343ac77adb3db53f and later copies): the file must be
// .yaml/.yml and hold a mapping; `--{key}` per entry; booleans of store_true
// switches give the bare flag when true and nothing when false; lists give the
// flag followed by each item; other scalars give the flag and the value text.

namespace pdcheck::io {

namespace {

std::string resolve(const std::string& path, const std::string& base_dir)
{
  std::filesystem::path p(path);
  if (p.is_relative() && !base_dir.empty() && base_dir != ".") {
    p = std::filesystem::path(base_dir) / p;
  }
  return p.lexically_normal().string();
}

/// Where a config file's text starts in the file that holds it: 0, 0 for a
/// file of its own; the first content line of a ConfigMap's block scalar.
struct TextStart
{
  int line = 0;   ///< lines before the text
  int column = 0; ///< columns before each line's text
};

std::string where_of(const std::string& file, const YAML::Mark& mark, TextStart start = {})
{
  if (mark.line < 0 || mark.column < 0) {
    return file;
  }
  return file + ":" + std::to_string(start.line + mark.line + 1) + ":" + std::to_string(start.column + mark.column + 1);
}

std::string_view kind_name(const YAML::Node& node)
{
  switch (node.Type()) {
  case YAML::NodeType::Sequence: return "a sequence";
  case YAML::NodeType::Map: return "a mapping";
  case YAML::NodeType::Scalar: return "a scalar";
  case YAML::NodeType::Null: return "nothing";
  case YAML::NodeType::Undefined: return "nothing";
  }
  return "nothing";
}

// PyYAML (yaml.safe_load, YAML 1.1) resolves these plain scalars to booleans;
// quoted scalars stay strings. yaml-cpp tags plain scalars "?" and quoted "!".
std::optional<bool> yaml11_bool(const YAML::Node& node)
{
  if (!node.IsScalar() || node.Tag() != "?") {
    return std::nullopt;
  }
  static const std::vector<std::string> yes = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const std::vector<std::string> no = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  const std::string& s = node.Scalar();
  if (std::find(yes.begin(), yes.end(), s) != yes.end()) {
    return true;
  }
  if (std::find(no.begin(), no.end(), s) != no.end()) {
    return false;
  }
  return std::nullopt;
}

// Nested mappings and sequences inside a value are passed on as one word of
// flow-style text, which SGLang's JSON-typed options read.
std::string value_text(const YAML::Node& node)
{
  if (node.IsScalar()) {
    return node.Scalar();
  }
  YAML::Emitter out;
  out << YAML::Flow << YAML::DoubleQuoted << node;
  return out.c_str();
}

} // namespace

void require_yaml_extension(const std::string& file)
{
  const std::string extension = std::filesystem::path(file).extension().string();
  std::string lower = extension;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower != ".yaml" && lower != ".yml") {
    // SGLang refuses other extensions before reading the file.
    throw InputError(file, "SGLang reads only .yaml or .yml config files, got '" + extension + "'");
  }
}

std::vector<sglang::ConfigWord> read_sglang_config(const std::string& path, const std::string& base_dir)
{
  const std::string file = resolve(path, base_dir);
  require_yaml_extension(file);

  return sglang_config_words(read_input_file(file, k_sglang_config), file, 0, 0);
}

std::vector<sglang::ConfigWord> sglang_config_words(const std::string& text, const std::string& file, int first_line,
                                                    int indent)
{
  const TextStart start{first_line, indent};
  YAML::Node root;
  try {
    root = load_yaml(text);
  } catch (const YAML::Exception& e) {
    throw InputError(where_of(file, e.mark, start), "YAML syntax error: " + e.msg);
  }
  if (root.IsNull()) {
    return {}; // an empty file configures nothing, as in SGLang
  }
  if (!root.IsMap()) {
    throw InputError(where_of(file, root.Mark(), start), "an SGLang config file must be a mapping of argument names to values, got " +
                                                      std::string(kind_name(root)));
  }

  std::vector<sglang::ConfigWord> words;
  for (auto it = root.begin(); it != root.end(); ++it) {
    // Copies: yaml-cpp's iterator hands out a temporary proxy, so references to
    // it->first would dangle.
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    if (!key.IsScalar()) {
      throw InputError(where_of(file, key.Mark(), start), "expected an argument name, got " + std::string(kind_name(key)));
    }
    // SGLang's flags are dashed; keys written with underscores (the dest
    // spelling) are read as the same flag.
    std::string name = key.Scalar();
    std::replace(name.begin(), name.end(), '_', '-');
    while (!name.empty() && name.front() == '-') {
      name.erase(name.begin());
    }
    const sglang::ConfigWord flag{"--" + name, where_of(file, key.Mark(), start)};

    if (value.IsNull()) {
      continue;
    }
    if (const std::optional<bool> b = yaml11_bool(value)) {
      if (*b) {
        words.push_back(flag);
      }
      continue;
    }
    if (value.IsSequence()) {
      if (value.size() == 0) {
        continue;
      }
      words.push_back(flag);
      for (const YAML::Node& item : value) {
        words.push_back(sglang::ConfigWord{value_text(item), where_of(file, item.Mark(), start)});
      }
      continue;
    }
    words.push_back(flag);
    words.push_back(sglang::ConfigWord{value_text(value), where_of(file, value.Mark(), start)});
  }
  return words;
}

} // namespace pdcheck::io
