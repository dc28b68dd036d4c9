// `sh -c` scripts and Kubernetes $(VAR) references in manifests: any text
// splits into commands (or raises InputError on an unterminated quote or ${),
// and expansion never loops or reads past the text.

#include "deploy/shell_script.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Some names are set (one to a value holding references itself), the rest unknown.
  const deploy::VariableLookup lookup = [](const std::string& name) -> std::optional<std::string> {
    if (name == "TP") {
      return "4";
    }
    if (name == "ARGS") {
      return "--tp $(TP) ${TP} $$ \"x y\"";
    }
    if (name == "EMPTY") {
      return "";
    }
    return std::nullopt;
  };
  std::vector<deploy::UnresolvedReference> unresolved;
  const std::string expanded = deploy::expand_kubernetes_references(text, lookup, unresolved);
  try {
    const deploy::ShellScript script = deploy::parse_shell_script(expanded, lookup, "fuzz");
    if (const auto i = deploy::sglang_command_index(script.commands); i && *i >= script.commands.size()) {
      fuzz::invariant_broken("sglang_command_index points past the commands");
    }
  } catch (const InputError&) {
  }
  return 0;
}
