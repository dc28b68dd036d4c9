#pragma once

#include "model/model_spec.hpp"
#include "core/profile.hpp"
#include "sglang/server_args.hpp"
#include "sglang/state_type.hpp"

#include <map>
#include <string>
#include <vector>

namespace pdcheck::sglang {

enum class Role { prefill, decode };
std::string_view role_name(Role r);

/// A position in an input file, for error messages and SARIF locations.
struct SourceLocation
{
  std::string file;
  int line = 0;   ///< 1-based, 0 when unknown
  int column = 0; ///< 1-based, 0 when unknown
};

/// One server of a PD pair: what it runs and how it is launched.
struct Side
{
  Role role = Role::prefill;
  std::string origin;    ///< side file path, or a description such as "--prefill-args"
  std::string sglang;    ///< the `sglang:` value as written
  Profile profile;
  /// Set when `sglang` names no known release and a neighbour's profile is used
  /// (resolve_profile): the checker reports it as a warning.
  std::string profile_assumption;
  std::string profile_confidence; ///< of the mapping used: the row's, or "low" when assumed
  /// Set when the side file's model: and --model-path name different models.
  std::string model_path_conflict;
  model::ModelSpec model;
  ServerArgs args;
  /// State components registered after the Mamba one (side field extra_state_types).
  std::vector<ExtraStateType> extra_state_types;
  /// Where each top-level key of the side file was written ("role", "model", "args", ...).
  std::map<std::string, SourceLocation> locations;
  /// Launch arguments as given on pdcheck's command line (--prefill-args), for
  /// reports that point into them; empty for side files.
  std::string command_line;
  /// What the input leaves open that pdcheck does not read, one line each (a
  /// manifest's variable set when the pod starts, in a flag no check uses).
  std::vector<std::string> notes;
  /// Rules silenced by `# pdcheck: ignore=RULE` comments in the side file, with
  /// where each was named.
  std::map<std::string, SourceLocation> inline_ignores;
};

} // namespace pdcheck::sglang
