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
#include <optional>
#include <vector>
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

// An HF repo id: "Org/Name", one slash, neither part empty nor a path word.
bool looks_like_repo_id(const std::string& ref)
{
  const std::size_t slash = ref.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == ref.size() || ref.find('/', slash + 1) != std::string::npos) {
    return false;
  }
  const std::string org = ref.substr(0, slash);
  return org != "." && org != ".." && org != "~";
}

[[noreturn]] void no_such_model(const std::string& ref, const std::optional<fs::path>& cache_entry)
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
  if (cache_entry) {
    what += fmt::format("; not in the Hugging Face cache either ({})", cache_entry->string());
  }
  if (const auto guess = closest_match(ref, candidates)) {
    what += fmt::format("; did you mean '{}'?", *guess);
  }
  throw InputError(ref, what);
}

model::ModelSpec read_config_file(const fs::path& file, const std::string& name)
{
  const std::string where = file.string();
  const nlohmann::json config = parse_json(read_input_file(where, k_model_config), where);
  return model::read_model_config(config, name, where);
}

model::ModelSpec from_catalog(const model::CatalogEntry& entry)
{
  const std::string name(entry.name);
  const nlohmann::json config = parse_json(std::string(entry.config_json), "catalog:" + name);
  model::ModelSpec spec = model::read_model_config(config, name, name);
  spec.source = std::string(entry.source);
  return spec;
}

std::string trimmed(std::string text)
{
  const auto blank = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!text.empty() && blank(text.back())) {
    text.pop_back();
  }
  std::size_t start = 0;
  while (start < text.size() && blank(text[start])) {
    ++start;
  }
  return text.substr(start);
}

} // namespace

std::optional<fs::path> hub_cache_dir()
{
  // huggingface_hub's own order: HF_HUB_CACHE, the legacy
  // HUGGINGFACE_HUB_CACHE, HF_HOME/hub, then the XDG cache or ~/.cache.
  const auto set = [](const char* name) -> const char* {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
  };
  if (const char* dir = set("HF_HUB_CACHE")) {
    return fs::path(dir);
  }
  if (const char* dir = set("HUGGINGFACE_HUB_CACHE")) {
    return fs::path(dir);
  }
  if (const char* home = set("HF_HOME")) {
    return fs::path(home) / "hub";
  }
  if (const char* xdg = set("XDG_CACHE_HOME")) {
    return fs::path(xdg) / "huggingface" / "hub";
  }
  if (const char* home = set("HOME")) {
    return fs::path(home) / ".cache" / "huggingface" / "hub";
  }
  return std::nullopt;
}

fs::path hub_cache_entry(const fs::path& cache, const std::string& repo_id)
{
  std::string folder = "models--" + repo_id;
  for (std::size_t at = folder.find('/'); at != std::string::npos; at = folder.find('/', at + 2)) {
    folder.replace(at, 1, "--");
  }
  return cache / folder;
}

fs::path snapshot_config(const fs::path& repo_dir)
{
  const fs::path snapshots = repo_dir / "snapshots";
  std::error_code ec;
  // refs/main names the revision `from_pretrained` would load.
  const fs::path ref_file = repo_dir / "refs" / "main";
  if (fs::is_regular_file(ref_file, ec)) {
    const std::string revision = trimmed(read_input_file(ref_file.string(), k_hub_ref));
    const fs::path config = snapshots / revision / "config.json";
    if (!revision.empty() && revision.find('/') == std::string::npos && fs::exists(config, ec)) {
      return config;
    }
  }
  std::vector<fs::path> found;
  for (fs::directory_iterator it(snapshots, ec), end; !ec && it != end; it.increment(ec)) {
    if (fs::exists(it->path() / "config.json", ec)) {
      found.push_back(it->path() / "config.json");
    }
  }
  if (ec) {
    throw InputError(snapshots.string(), fmt::format("cannot read the Hugging Face cache: {}", ec.message()));
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    throw InputError(snapshots.string(), "no snapshot in this Hugging Face cache entry has a config.json");
  }
  if (found.size() > 1) {
    std::string names;
    for (const fs::path& config : found) {
      names += (names.empty() ? "" : ", ") + config.parent_path().filename().string();
    }
    throw InputError(snapshots.string(), fmt::format("{} snapshots have a config.json ({}) and refs/main names none of "
                                                     "them; give the snapshot directory to use",
                                                     found.size(), names));
  }
  return found.front();
}

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
  if (exists) {
    if (fs::is_directory(path, ec)) {
      // A cache entry (models--Org--Name) holds its configs under snapshots/.
      if (!fs::exists(path / "config.json", ec) && fs::is_directory(path / "snapshots", ec)) {
        return read_config_file(snapshot_config(path), ref);
      }
      return read_config_file(path / "config.json", ref);
    }
    return read_config_file(path, ref);
  }

  // An HF id: the operator's own download is the config the server reads, so
  // it goes before the built-in copy.
  std::optional<fs::path> cache_entry;
  if (looks_like_repo_id(ref)) {
    if (const std::optional<fs::path> cache = hub_cache_dir()) {
      cache_entry = hub_cache_entry(*cache, ref);
      if (fs::is_directory(*cache_entry / "snapshots", ec)) {
        return read_config_file(snapshot_config(*cache_entry), ref);
      }
    }
  }
  if (const model::CatalogEntry* entry = model::find_catalog_entry(ref)) {
    return from_catalog(*entry);
  }
  if (const std::optional<model::CatalogVariant> variant = model::find_catalog_variant(ref)) {
    model::ModelSpec spec = from_catalog(*variant->entry);
    spec.source = fmt::format("{} (read for {}: the '{}' suffix names a quantization, which leaves the recurrent "
                              "state's keys as they are; confidence medium)",
                              spec.source, ref, variant->suffix);
    return spec;
  }
  no_such_model(ref, cache_entry);
}

} // namespace pdcheck::io
