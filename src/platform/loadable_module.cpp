// Finds and loads pdcheck's modules (see loadable_module.hpp).

#include "platform/loadable_module.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <utility>

namespace pdcheck::platform {

std::vector<std::string> module_candidates(const std::string& file_name, const std::string& module_dir,
                                           const std::string& executable_dir)
{
  if (!module_dir.empty()) {
    return {module_dir + "/" + file_name};
  }
  return {executable_dir + "/" + file_name, executable_dir + "/../lib/pdcheck/" + file_name};
}

std::string executable_directory()
{
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "" : self.parent_path().string();
}

LoadedModule load_module_from(const std::vector<std::string>& candidates, const char* entry_symbol, int abi_version)
{
  // A module stays loaded for the life of the process (neither OpenSSL nor
  // MPI supports being unloaded), so a path is opened at most once.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, const void*> loaded; // (path, entry) -> its table
  const std::lock_guard lock(mutex);
  std::string tried;
  for (const std::string& path : candidates) {
    tried += (tried.empty() ? "" : ", ") + path;
    if (::access(path.c_str(), F_OK) != 0) {
      continue;
    }
    LoadedModule m;
    const auto key = std::pair<std::string, std::string>(path, entry_symbol);
    auto it = loaded.find(key);
    if (it == loaded.end()) {
      void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (library == nullptr) {
        const char* why = ::dlerror();
        m.error = why != nullptr ? why : "cannot load " + path;
        return m; // not remembered: a library installed meanwhile is found next time
      }
      using Entry = const void* (*)();
      const auto entry = reinterpret_cast<Entry>(::dlsym(library, entry_symbol));
      it = loaded.emplace(key, entry != nullptr ? entry() : nullptr).first;
    }
    // Every table starts with its interface version.
    const int found = it->second != nullptr ? *static_cast<const int*>(it->second) : 0;
    if (found != abi_version) {
      m.error = fmt::format("{} is not this pdcheck's (interface {}, expected {}): install the one built with it", path,
                            found, abi_version);
      return m;
    }
    m.entry_points = it->second;
    return m;
  }
  LoadedModule m;
  m.missing = true;
  m.error = "looked for " + tried;
  return m;
}

LoadedModule load_module(const std::string& file_name, const char* entry_symbol, int abi_version)
{
  const char* dir = std::getenv(k_module_dir_variable);
  const std::string module_dir = dir != nullptr ? dir : "";
  const std::string executable_dir = executable_directory();
  if (module_dir.empty() && executable_dir.empty()) {
    // Not the working directory instead: a module is code pdcheck runs.
    LoadedModule m;
    m.missing = true;
    m.error = fmt::format("the executable's directory is unknown (/proc/self/exe cannot be read) and {} is not set",
                          k_module_dir_variable);
    return m;
  }
  return load_module_from(module_candidates(file_name, module_dir, executable_dir), entry_symbol, abi_version);
}

} // namespace pdcheck::platform
