#pragma once

// Launch commands as deployments write them: a container's argv list, or a
// `sh -c` script in which the server is one command among several
// ("ulimit -n 65536 && exec python3 -m sglang.launch_server ... --tp ${TP}").
// Pure: variables come from a lookup the caller builds from the manifest.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::deploy {

/// The value of a variable, or nullopt when the input does not say (a Secret
/// reference, a variable set by the platform at run time).
using VariableLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// One word of a shell command after expansion, with the text it was written as.
struct ShellWord
{
  std::string text;      ///< after quote removal and variable expansion
  std::string raw;       ///< as written in the script (quotes and references included)
  std::size_t offset = 0; ///< of `raw` in the script
};

struct ShellCommand
{
  std::vector<ShellWord> words;
};

/// A variable reference whose value is unknown, left in the word as written
/// (`${TP}`, `$(LWS_LEADER_ADDRESS)`), as Kubernetes leaves `$(VAR)` it cannot resolve.
struct UnresolvedReference
{
  std::string name;      ///< the variable, or the command of a `$(...)` substitution
  std::string reference; ///< the text left in the word
};

struct ShellScript
{
  std::vector<ShellCommand> commands;
  std::vector<UnresolvedReference> unresolved;
};

/// Splits a POSIX shell script into simple commands at `;`, `&`, `&&`, `||`,
/// `|` and newlines (outside quotes), expanding `$NAME`, `${NAME}` and
/// `${NAME:-default}` / `${NAME-default}` outside single quotes. A reference
/// the lookup cannot resolve stays as written and is listed. Throws InputError
/// (where = `origin`) on an unterminated quote or `${`.
ShellScript parse_shell_script(std::string_view script, const VariableLookup& lookup, const std::string& origin);

/// Kubernetes' expansion of `$(NAME)` in a container's command and args:
/// defined names are replaced, `$$` is a literal `$`, anything else is kept
/// as written (and the unknown names listed in `unresolved`).
std::string expand_kubernetes_references(std::string_view text, const VariableLookup& lookup,
                                         std::vector<UnresolvedReference>& unresolved);

/// The command that starts the SGLang server: the first whose words run
/// `sglang.launch_server` (python -m, or the module path), `sglang serve`,
/// or Dynamo's `dynamo.sglang`, after leading `exec`/`env`/assignments.
/// nullopt when no command does.
std::optional<std::size_t> sglang_command_index(const std::vector<ShellCommand>& commands);

/// Whether argv words start an SGLang server (see sglang_command_index).
bool launches_sglang(const std::vector<std::string>& words);

} // namespace pdcheck::deploy
