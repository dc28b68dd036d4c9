#include "io/model_loader.hpp"

#include "io/input_file.hpp"
#include "model/catalog.hpp"
#include "util/error.hpp"
#include "util/json_limits.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <new>
#include <utility>

namespace pdcheck::io {

namespace {

namespace fs = std::filesystem;


// "[json.exception.parse_error.101] parse error at line 1, column 7: syntax
// error ..." -> "syntax error ...": the position is already in `where`.
std::string without_prefix(const std::string& message)
{
  const std::size_t parse_error = message.find("parse error");
  if (parse_error != std::string::npos) {
    const std::size_t colon = message.find(": ", parse_error);
    if (colon != std::string::npos) {
      return message.substr(colon + 2);
    }
  }
  const std::size_t bracket = message.find("] ");
  return bracket == std::string::npos ? message : message.substr(bracket + 2);
}

nlohmann::json parse_json(const std::string& text, const std::string& where)
{
  refuse_unmeasurable_json(text, where, "model config");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = json_line_column(text, e.byte);
    throw InputError(fmt::format("{}:{}:{}", where, line, column), "invalid JSON: " + without_prefix(e.what()));
  } catch (const nlohmann::json::out_of_range& e) {
    throw InputError(where, "invalid JSON: " + without_prefix(e.what()));
  } catch (const std::bad_alloc&) {
    throw CannotRun(fmt::format("{}: out of memory parsing the model config ({} bytes)", where, text.size()));
  }
}

[[noreturn]] void no_such_model(const std::string& ref)
{
  std::vector<std::string> names;
  std::vector<std::string> candidates;
  for (const model::CatalogEntry& entry : model::catalog()) {
    names.emplace_back(entry.name);
    candidates.emplace_back(entry.name);
  }
  for (const model::CatalogEntry& entry : model::catalog()) {
    candidates.emplace_back(entry.hf_repo);
  }
  std::string what = "no such model directory, config.json or catalog entry; catalog has: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    what += (i == 0 ? "" : ", ") + names[i];
  }
  if (const auto guess = closest_match(ref, candidates)) {
    what += fmt::format("; did you mean '{}'?", *guess);
  }
  throw InputError(ref, what);
}

} // namespace

model::ModelSpec load_model(const std::string& ref, const std::string& base_dir)
{
  if (ref.empty()) {
    throw InputError("model", "empty model reference: give a catalog name, a model directory or a config.json");
  }
  fs::path path(ref);
  // Keep paths as the user wrote them when they are relative to the working
  // directory, so error messages quote what was typed.
  if (path.is_relative() && !base_dir.empty() && base_dir != ".") {
    path = fs::path(base_dir) / path;
  }

  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (ec) {
    // A symlink loop or a directory without search permission: the path is
    // there but cannot be followed.
    throw InputError(path.string(), fmt::format("cannot read model config: {}", ec.message()));
  }
  if (!exists) {
    // A file of the same name wins over a catalog entry: an HF repo id such as
    // "Qwen/Qwen3.5-27B" may also be a local checkout.
    if (const model::CatalogEntry* entry = model::find_catalog_entry(ref)) {
      const std::string name(entry->name);
      const nlohmann::json config = parse_json(std::string(entry->config_json), "catalog:" + name);
      model::ModelSpec spec = model::read_model_config(config, name, name);
      spec.source = std::string(entry->source);
      return spec;
    }
    no_such_model(ref);
  }

  const fs::path file = fs::is_directory(path, ec) ? path / "config.json" : path;
  const std::string where = file.string();
  const nlohmann::json config = parse_json(read_input_file(file.string(), k_model_config), where);
  return model::read_model_config(config, ref, where);
}

} // namespace pdcheck::io
