#include "deploy/shell_script.hpp"

#include "util/error.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace pdcheck;
using namespace pdcheck::deploy;

namespace {

VariableLookup from(std::map<std::string, std::string> vars)
{
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

std::vector<std::string> texts(const ShellCommand& c)
{
  std::vector<std::string> out;
  for (const ShellWord& w : c.words) {
    out.push_back(w.text);
  }
  return out;
}

} // namespace

TEST_CASE("parse_shell_script: the server is one command among several", "[deploy]")
{
  const std::string script = "ulimit -n 65536 && \\\n"
                             "  exec python3 -m sglang.launch_server --model-path \"$MODEL\" --tp ${TP} \\\n"
                             "  --disaggregation-mode prefill 2>&1 | tee /tmp/log";
  const ShellScript s = parse_shell_script(script, from({{"MODEL", "Qwen/Qwen3-Next-80B-A3B-Instruct"}, {"TP", "4"}}), "F");
  REQUIRE(s.commands.size() == 3);
  CHECK(texts(s.commands[0]) == std::vector<std::string>{"ulimit", "-n", "65536"});
  CHECK(texts(s.commands[1]) == std::vector<std::string>{"exec", "python3", "-m", "sglang.launch_server", "--model-path",
                                                         "Qwen/Qwen3-Next-80B-A3B-Instruct", "--tp", "4",
                                                         "--disaggregation-mode", "prefill"});
  CHECK(texts(s.commands[2]) == std::vector<std::string>{"tee", "/tmp/log"});
  CHECK(sglang_command_index(s.commands) == 1u);
  // Each word keeps the text it was written as, and where.
  const ShellWord& tp = s.commands[1].words[7];
  CHECK(tp.raw == "${TP}");
  CHECK(script.substr(tp.offset, tp.raw.size()) == "${TP}");
  CHECK(s.unresolved.empty());
}

TEST_CASE("parse_shell_script: unknown variables stay as written and are listed", "[deploy]")
{
  const ShellScript s = parse_shell_script("sglang serve --dist-init-addr $LWS_LEADER_ADDRESS:20000 --tp ${TP:-8} "
                                           "--nnodes $(echo 2)",
                                           from({}), "F");
  REQUIRE(s.commands.size() == 1);
  CHECK(texts(s.commands[0]) == std::vector<std::string>{"sglang", "serve", "--dist-init-addr",
                                                         "$LWS_LEADER_ADDRESS:20000", "--tp", "8", "--nnodes",
                                                         "$(echo 2)"});
  REQUIRE(s.unresolved.size() == 2);
  CHECK(s.unresolved[0].name == "LWS_LEADER_ADDRESS");
  CHECK(s.unresolved[0].reference == "$LWS_LEADER_ADDRESS");
  CHECK(s.unresolved[1].name == "echo 2");
}

TEST_CASE("parse_shell_script: unquoted expansions split into words, quoted ones do not", "[deploy]")
{
  const auto vars = from({{"ARGS", "--tp 4  --page-size 64"}, {"EMPTY", ""}});
  CHECK(texts(parse_shell_script("run $ARGS $EMPTY x", vars, "F").commands[0]) ==
        std::vector<std::string>{"run", "--tp", "4", "--page-size", "64", "x"});
  CHECK(texts(parse_shell_script("run \"$ARGS\" '$ARGS' \"$EMPTY\"", vars, "F").commands[0]) ==
        std::vector<std::string>{"run", "--tp 4  --page-size 64", "$ARGS", ""});
  // ';' and newlines end commands; '#' starts a comment only at a word's start.
  const ShellScript s = parse_shell_script("a b#c ; d\n# note\ne", vars, "F");
  REQUIRE(s.commands.size() == 3);
  CHECK(texts(s.commands[0]) == std::vector<std::string>{"a", "b#c"});
}

TEST_CASE("parse_shell_script: unterminated quotes are one-line errors", "[deploy]")
{
  auto error_of = [](const std::string& script) {
    try {
      parse_shell_script(script, {}, "m.yaml:3:5");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("python3 -m sglang.launch_server --x 'a") == "m.yaml:3:5: unterminated ' quote in the shell script");
  CHECK(error_of("run \"a") == "m.yaml:3:5: unterminated \" quote in the shell script");
  CHECK(error_of("run ${A") == "m.yaml:3:5: unterminated ${ in the shell script");
}

TEST_CASE("expand_kubernetes_references: $(VAR) from the container env, $$ escapes", "[deploy]")
{
  std::vector<UnresolvedReference> unresolved;
  CHECK(expand_kubernetes_references("--tp=$(TP) $$(TP) $(LWS_LEADER_ADDRESS):5000 $(not a name)",
                                     from({{"TP", "4"}}), unresolved) ==
        "--tp=4 $(TP) $(LWS_LEADER_ADDRESS):5000 $(not a name)");
  REQUIRE(unresolved.size() == 1);
  CHECK(unresolved[0].name == "LWS_LEADER_ADDRESS");
}

TEST_CASE("launches_sglang: SGLang's entry points, not the router", "[deploy]")
{
  CHECK(launches_sglang({"python3", "-m", "sglang.launch_server", "--tp", "2"}));
  CHECK(launches_sglang({"/usr/local/bin/sglang", "serve"}));
  CHECK(launches_sglang({"python3", "-m", "dynamo.sglang"}));
  CHECK_FALSE(launches_sglang({"python3", "-m", "sglang_router.launch_router", "--pd-disaggregation"}));
  CHECK_FALSE(launches_sglang({"sglang"}));
}
