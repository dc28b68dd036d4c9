#include "io/side_file.hpp"
#include "io/yaml_load.hpp"

#include "io/inline_ignores.hpp"

#include "sglang/launch_flags.hpp"

#include "io/input_file.hpp"
#include "io/model_loader.hpp"
#include "model/catalog.hpp"
#include "io/sglang_config.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"
#include "util/word_positions.hpp"

#include <fmt/format.h>

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

namespace pdcheck::io {

namespace {

using sglang::DisaggregationMode;
using sglang::Role;
using sglang::Side;
using sglang::SourceLocation;

const std::vector<std::string> k_fields = {"role", "sglang", "model", "args", "env", "extra_state_types"};

std::string join(const std::vector<std::string>& items)
{
  std::string out;
  for (const std::string& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

DisaggregationMode mode_of(Role role)
{
  return role == Role::prefill ? DisaggregationMode::prefill : DisaggregationMode::decode;
}

SourceLocation location_of(const std::string& file, const YAML::Mark& mark)
{
  SourceLocation loc;
  loc.file = file;
  if (mark.line >= 0 && mark.column >= 0) {
    loc.line = mark.line + 1;
    loc.column = mark.column + 1;
  }
  return loc;
}

std::string where_of(const SourceLocation& loc)
{
  if (loc.line == 0) {
    return loc.file;
  }
  return loc.file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column);
}

std::string where_of(const std::string& file, const YAML::Mark& mark)
{
  return where_of(location_of(file, mark));
}

std::string kind_name(const YAML::Node& node)
{
  switch (node.Type()) {
  case YAML::NodeType::Sequence: return "a sequence";
  case YAML::NodeType::Map: return "a mapping";
  case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
  case YAML::NodeType::Null:
  case YAML::NodeType::Undefined: return "nothing";
  }
  return "nothing";
}

/// What a side needs besides its arguments, wherever it came from; the `*_where`
/// strings place errors ("" when the input did not give that part).
struct SideInputs
{
  std::optional<Role> role;
  std::string role_where;
  std::string sglang;
  std::string sglang_where;
  std::string model;
  std::string model_where;
  /// Put before a model reference that resolves to nothing: the side file's
  /// field name, or nothing when `model_where` is the command-line flag itself.
  std::string model_label = "model: ";
  std::string args_where;
  std::string base_dir = ".";
  std::string origin; ///< side file path or a description such as "--prefill-args"
};

ProfileMatch side_profile(const SideInputs& in)
{
  if (in.sglang.empty()) {
    return ProfileMatch{&default_profile(), {}, {}};
  }
  if (ProfileMatch m = pdcheck::resolve_profile(in.sglang); m.profile != nullptr) {
    return m;
  }
  throw InputError(in.sglang_where, "sglang: " + unknown_profile_text(in.sglang));
}

/// The launch parser of the side's release: argparse resolves abbreviations
/// against the flags that release has.
const sglang::FlagTable* flag_table_of(const ProfileMatch& match)
{
  return sglang::flag_tables_for(match.profile->name).table;
}

std::string lower_basename(std::string_view path)
{
  while (!path.empty() && path.back() == '/') {
    path.remove_suffix(1);
  }
  if (const std::size_t slash = path.rfind('/'); slash != std::string_view::npos) {
    path.remove_prefix(slash + 1);
  }
  std::string out;
  for (char c : path) {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

/// Why model: and --model-path name different models ("" when they agree or
/// when pdcheck cannot tell). --model-path is read when pdcheck can read it (a
/// catalog name, HF repo id or local directory); a server-side path it cannot
/// read is compared by name with a catalog model: only.
std::string model_path_conflict(const model::ModelSpec& spec, const SideInputs& in, const std::string& model_path)
{
  if (model_path == in.model) {
    return "";
  }
  std::optional<model::ModelSpec> served;
  try {
    served = load_model(model_path, in.base_dir);
  } catch (const InputError&) {
    served.reset();
  }
  if (served) {
    if (served->architecture == spec.architecture && served->num_hidden_layers == spec.num_hidden_layers &&
        served->state_layer_ids == spec.state_layer_ids && served->intermediate_size == spec.intermediate_size &&
        served->num_heads == spec.num_heads && served->head_dim == spec.head_dim) {
      return "";
    }
    return "model: " + in.model + " (" + spec.architecture + ", " + std::to_string(spec.num_hidden_layers) +
           " layers) but --model-path " + model_path + " is " + served->name + " (" + served->architecture + ", " +
           std::to_string(served->num_hidden_layers) + " layers); pdcheck checks model:";
  }
  const model::CatalogEntry* entry = model::find_catalog_entry(in.model);
  if (entry == nullptr) {
    return ""; // two paths pdcheck cannot compare
  }
  const std::string served_name = lower_basename(model_path);
  if (served_name == lower_basename(entry->hf_repo) || served_name == lower_basename(entry->name)) {
    return "";
  }
  return "model: " + in.model + " (" + std::string(entry->hf_repo) + ") but --model-path " + model_path +
         " names another model; pdcheck checks model:";
}

/// Fills role, profile and model of a side whose arguments are parsed, checking
/// that the role and --disaggregation-mode agree.
/// `match` is side_profile(in), resolved once before the arguments are parsed.
void finish_side(Side& side, const SideInputs& in, const ProfileMatch& match)
{
  const auto mode_given = side.args.given.find("disaggregation_mode");
  if (in.role) {
    if (mode_given != side.args.given.end() && side.args.disaggregation_mode != mode_of(*in.role)) {
      throw InputError(in.role_where, "role is '" + std::string(sglang::role_name(*in.role)) + "' but args set " + mode_given->second.flag +
                                          " " + mode_given->second.value + " (" + mode_given->second.origin + ")");
    }
    // Without --disaggregation-mode the arguments keep SGLang's default (null):
    // whether that is a real misconfiguration is the checker's call (side-role).
    side.role = *in.role;
  } else if (mode_given != side.args.given.end() && side.args.disaggregation_mode != DisaggregationMode::null) {
    side.role = side.args.disaggregation_mode == DisaggregationMode::prefill ? Role::prefill : Role::decode;
  } else {
    throw InputError(in.origin, "missing field 'role' (prefill or decode), and args do not set --disaggregation-mode");
  }

  side.sglang = in.sglang;
  side.profile = *match.profile;
  side.profile_assumption = match.assumption;
  side.profile_confidence = std::string(mapping_confidence(match));

  std::string ref = in.model;
  std::string ref_where = in.model_where;
  std::string label = in.model_label;
  if (ref.empty() && side.args.model_path) {
    ref = *side.args.model_path;
    ref_where = in.args_where;
    label = "model: ";
  }
  if (ref.empty()) {
    throw InputError(in.origin, "missing field 'model', and args do not set --model-path");
  }
  try {
    side.model = load_model(ref, in.base_dir);
  } catch (const InputError& e) {
    // A failure inside a config.json already names that file; a reference that
    // resolves to nothing is better placed at the side-file line naming it.
    if (e.where().empty() || e.where() == ref) {
      throw InputError(ref_where, label + e.what());
    }
    throw;
  }
  if (!in.model.empty() && side.args.model_path) {
    side.model_path_conflict = model_path_conflict(side.model, in, *side.args.model_path);
  }
}

std::string read_text(const std::string& path)
{
  return read_input_file(path, k_side_file);
}

std::string scalar_field(const std::string& field, const YAML::Node& value, const std::string& where,
                         const std::string& expected)
{
  if (!value.IsScalar()) {
    throw InputError(where, field + ": expected " + expected + ", got " + kind_name(value));
  }
  return value.Scalar();
}

/// The launch words of `args:` with where each was written ("file:line:col",
/// or "" where the split changed a word so it cannot be found as written).
/// `text` is the file's text and `end` the offset where the next field starts.
struct PlacedWords
{
  std::vector<std::string> words;
  std::vector<std::string> places;
};

PlacedWords args_words(const std::string& file,
                       std::string_view text,
                       std::size_t end,
                       const YAML::Node& value,
                       const std::string& where)
{
  const std::string expected = "a string or a list of strings";
  if (value.IsScalar()) {
    PlacedWords out;
    out.words = sglang::split_command_line(value.Scalar(), where);
    const std::size_t begin = value.Mark().pos >= 0 ? static_cast<std::size_t>(value.Mark().pos) : end;
    for (const std::optional<TextPosition>& p : locate_words(text, begin, end, out.words)) {
      out.places.push_back(p ? fmt::format("{}:{}:{}", file, p->line, p->column) : "");
    }
    return out;
  }
  if (!value.IsSequence()) {
    throw InputError(where, "args: expected " + expected + ", got " + kind_name(value));
  }
  PlacedWords out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const YAML::Node item = value[i];
    const std::string item_where = where_of(file, item.Mark());
    const std::string label = "args[" + std::to_string(i) + "]";
    if (!item.IsScalar()) {
      throw InputError(item_where, label + ": expected a string, got " + kind_name(item));
    }
    const std::string& word = item.Scalar();
    // List items are argv words, as in a Kubernetes `args:` list. An item such
    // as "--tp 4" would reach SGLang as one unknown flag and silently leave tp
    // at 1, so it is refused here.
    const std::size_t blank = word.find_first_of(" \t");
    if (word.rfind("--", 0) == 0 && blank != std::string::npos && word.substr(0, blank).find('=') == std::string::npos) {
      const std::string flag = word.substr(0, blank);
      throw InputError(item_where, label + ": '" + word + "' holds a flag and its value in one item; list items are " +
                                       "single words (write '" + flag + "' and the value as two items, or '" + flag +
                                       "=...')");
    }
    out.words.push_back(word);
    out.places.push_back(item_where);
  }
  return out;
}

/// Where the field after `value` starts in the file: the nearest key of the
/// top-level mapping past the value's own position (`fallback` when none).
std::size_t field_end(const YAML::Node& root, const YAML::Node& value, std::size_t fallback)
{
  std::size_t end = fallback;
  const int from = value.Mark().pos;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const int at = it->first.Mark().pos;
    if (at > from && static_cast<std::size_t>(at) < end) {
      end = static_cast<std::size_t>(at);
    }
  }
  return end;
}

std::map<std::string, std::string> env_map(const std::string& file, const YAML::Node& value, const std::string& where)
{
  if (!value.IsMap()) {
    throw InputError(where, "env: expected a mapping of variable names to strings, got " + kind_name(value));
  }
  std::map<std::string, std::string> env;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string key_where = where_of(file, it->first.Mark());
    if (!it->first.IsScalar()) {
      throw InputError(key_where, "env: expected a variable name, got " + kind_name(it->first));
    }
    const std::string name = it->first.Scalar();
    const std::string value_where = where_of(file, it->second.Mark());
    if (!it->second.IsScalar()) {
      // A null value has no useful mark of its own; point at the name.
      throw InputError(it->second.IsNull() ? key_where : value_where,
                       "env." + name + ": expected a string, got " + kind_name(it->second));
    }
    // Parsing no arguments with just this variable validates it with the
    // parser's own message while the error points at this line.
    sglang::parse_launch_args({}, value_where, {{name, it->second.Scalar()}});
    env[name] = it->second.Scalar();
  }
  return env;
}

std::vector<sglang::ExtraStateType> extra_state_types(const std::string& file, const YAML::Node& value,
                                                     const std::string& where)
{
  const std::vector<std::string> names = sglang::extra_state_type_names();
  if (!value.IsSequence()) {
    throw InputError(where, "extra_state_types: expected a list of state types (" + join(names) + "), got " +
                                kind_name(value));
  }
  std::vector<sglang::ExtraStateType> out;
  for (const YAML::Node& item : value) {
    const std::string item_where = where_of(file, item.Mark());
    const std::optional<sglang::ExtraStateType> t =
      item.IsScalar() ? sglang::parse_extra_state_type(item.Scalar()) : std::nullopt;
    if (!t) {
      const std::string got = kind_name(item) + (item.IsScalar() ? did_you_mean(item.Scalar(), names) : "");
      throw InputError(item_where, "extra_state_types: expected one of " + join(names) + ", got " + got);
    }
    out.push_back(*t);
  }
  return out;
}

} // namespace

Side load_side_file(const std::string& file)
{
  // `-`: the side file comes on standard input (a generator's output piped in).
  const bool from_stdin = file == "-";
  const std::string path = from_stdin ? "<stdin>" : file;
  const std::string text = from_stdin ? read_standard_input(k_side_file) : read_text(file);
  YAML::Node root;
  try {
    root = load_yaml(text);
  } catch (const YAML::Exception& e) {
    throw InputError(where_of(path, e.mark), "YAML syntax error: " + e.msg);
  }
  const std::string expected_top = "a mapping with the fields " + join(k_fields);
  if (root.IsNull()) {
    throw InputError(path, "the side file is empty; expected " + expected_top);
  }
  if (!root.IsMap()) {
    throw InputError(where_of(path, root.Mark()), "expected " + expected_top + " at the top level, got " +
                                                      (root.IsScalar() ? "a scalar" : kind_name(root)));
  }

  Side side;
  side.origin = path;
  if (std::filesystem::path(path).extension() != ".json") {
    side.inline_ignores = read_inline_ignores(text, path);
  }
  SideInputs in;
  in.origin = path;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  in.base_dir = parent.empty() ? "." : parent.string();

  std::map<std::string, YAML::Node> values;
  std::map<std::string, std::string> value_where;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const SourceLocation key_loc = location_of(path, it->first.Mark());
    if (!it->first.IsScalar()) {
      throw InputError(where_of(key_loc), "expected a field name, got " + kind_name(it->first));
    }
    const std::string key = it->first.Scalar();
    if (std::find(k_fields.begin(), k_fields.end(), key) == k_fields.end()) {
      const std::optional<std::string> guess = closest_match(key, k_fields);
      throw InputError(where_of(key_loc), "unknown field '" + key + "' " +
                                              (guess ? "(did you mean '" + *guess + "'?)"
                                                     : "(allowed fields: " + join(k_fields) + ")"));
    }
    if (const auto seen = side.locations.find(key); seen != side.locations.end()) {
      throw InputError(where_of(key_loc), "duplicate field '" + key + "' (first given at line " +
                                              std::to_string(seen->second.line) + ")");
    }
    side.locations[key] = key_loc;
    values.emplace(key, it->second);
    // A null value has no mark of its own (yaml-cpp points past it); use the key.
    value_where[key] = it->second.IsNull() ? where_of(key_loc) : where_of(path, it->second.Mark());
  }

  if (values.count("role")) {
    in.role_where = value_where["role"];
    const YAML::Node& role = values["role"];
    if (role.IsScalar() && role.Scalar() == "prefill") {
      in.role = Role::prefill;
    } else if (role.IsScalar() && role.Scalar() == "decode") {
      in.role = Role::decode;
    } else {
      throw InputError(in.role_where, "role: expected prefill or decode, got " + kind_name(role) +
                                          (role.IsScalar() ? did_you_mean(role.Scalar(), {"prefill", "decode"}) : ""));
    }
  }
  if (values.count("sglang")) {
    in.sglang_where = value_where["sglang"];
    in.sglang = scalar_field("sglang", values["sglang"], in.sglang_where, "a profile name or an SGLang version");
  }
  if (values.count("model")) {
    in.model_where = value_where["model"];
    in.model = scalar_field("model", values["model"], in.model_where, "a catalog name or a path");
  }

  std::map<std::string, std::string> env;
  if (values.count("env")) {
    env = env_map(path, values["env"], value_where["env"]);
  }
  PlacedWords args;
  in.args_where = path;
  if (values.count("args")) {
    in.args_where = value_where["args"];
    args = args_words(path, text, field_end(root, values["args"], text.size()), values["args"], in.args_where);
  }
  const ProfileMatch match = side_profile(in);
  side.args = sglang::parse_launch_args(args.words, in.args_where, env, &read_sglang_config, in.base_dir,
                                        flag_table_of(match), args.places);
  if (values.count("extra_state_types")) {
    side.extra_state_types = extra_state_types(path, values["extra_state_types"], value_where["extra_state_types"]);
  }
  finish_side(side, in, match);
  return side;
}

Side side_from_launch(const LaunchedServer& server)
{
  Side side;
  side.origin = server.origin;
  side.locations = server.locations;
  SideInputs in;
  in.origin = server.where;
  in.role = server.role;
  in.role_where = server.where;
  in.sglang = server.sglang;
  in.sglang_where = server.locations.count("sglang") ? where_of(server.locations.at("sglang")) : server.where;
  in.model = server.model_ref;
  in.model_where = server.model_ref.empty() ? server.where : "--model";
  in.args_where = server.locations.count("args") ? where_of(server.locations.at("args")) : server.where;
  const ProfileMatch match = side_profile(in);
  const sglang::ConfigFileReader reader =
    server.config_reader ? server.config_reader : sglang::ConfigFileReader(&read_sglang_config);
  side.args = sglang::parse_launch_args(server.words, in.args_where, server.env, reader, ".", flag_table_of(match),
                                        server.places);
  finish_side(side, in, match);
  if (server.sglang.empty() && !server.sglang_assumption.empty()) {
    side.sglang = server.image;
    side.profile_assumption = server.sglang_assumption + "; checked as SGLang " + side.profile.name;
    side.profile_confidence = "low";
  }
  return side;
}

Side side_from_args(Role role,
                    const std::string& args_text,
                    const std::string& model_ref,
                    const std::string& sglang_version,
                    const std::map<std::string, std::string>& env,
                    const std::string& origin)
{
  Side side;
  side.origin = origin;
  side.command_line = args_text;
  SideInputs in;
  in.origin = origin;
  in.role = role;
  in.role_where = origin;
  in.sglang = sglang_version;
  in.sglang_where = origin;
  in.model = model_ref;
  // The reference comes from the command's --model: name that, not the args.
  in.model_where = "--model";
  in.model_label.clear();
  in.args_where = origin;
  const ProfileMatch match = side_profile(in);
  side.args = sglang::parse_launch_args(sglang::split_command_line(args_text, origin), origin, env, &read_sglang_config,
                                        ".", flag_table_of(match));
  finish_side(side, in, match);
  return side;
}

} // namespace pdcheck::io
