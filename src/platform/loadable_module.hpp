#pragma once

// pdcheck's own modules: shared objects built with pdcheck and loaded with
// dlopen by the commands that need them (pdcheck-http.so for URLs,
// pdcheck-mpi.so for `probe fleet --mpi`), so that no other command pays for
// loading their libraries (OpenSSL through the HTTP library, libmpi). Each
// module exports one C function returning a table of entry points whose first
// member is its interface version (an int).

#include <string>
#include <vector>

namespace pdcheck::platform {

/// The environment variable naming the directory to look in first.
inline constexpr const char* k_module_dir_variable = "PDCHECK_MODULE_DIR";

/// Where `file_name` is looked for, in order: `module_dir` (from
/// PDCHECK_MODULE_DIR; when given, no other place, so that a wrong one is not
/// hidden), else beside the executable, then ../lib/pdcheck/ from it (an
/// installed tree). Pure.
std::vector<std::string> module_candidates(const std::string& file_name, const std::string& module_dir,
                                           const std::string& executable_dir);

/// The running executable's directory ("" when /proc does not say).
std::string executable_directory();

/// A module's table of entry points, or why there is none.
struct LoadedModule
{
  const void* entry_points = nullptr; ///< the table the entry function returned
  bool missing = false;               ///< no candidate file exists
  /// One line: "looked for A, B" (missing), the loader's error (a library
  /// the module needs is not installed), or an interface version mismatch.
  std::string error;
};

/// Loads `file_name` (once per process; later calls return the same table)
/// and calls its `entry_symbol`; the table's interface must be `abi_version`.
LoadedModule load_module(const std::string& file_name, const char* entry_symbol, int abi_version);

/// load_module from explicit candidates (the first that exists is loaded).
LoadedModule load_module_from(const std::vector<std::string>& candidates, const char* entry_symbol, int abi_version);

} // namespace pdcheck::platform
