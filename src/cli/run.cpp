#include "cli/run.hpp"

#include "cli/cmd_completion.hpp"
#include "cli/command.hpp"
#include "io/output_file.hpp"
#include "model/catalog.hpp"
#include "core/profile.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string_view>

namespace pdcheck::cli {

namespace {

using Installer = void (*)(CLI::App&, CommandContext&);

struct CommandEntry
{
  std::string_view name; // what the installer registers with add_subcommand
  Installer install;
};

// The subcommand table: one line per command, in the order `--help` lists them.
constexpr CommandEntry k_commands[] = {
  {"check", install_check},
  {"fleet", install_fleet},
  {"rollout", install_rollout},
  {"matrix", install_matrix},
  {"bootstrap", install_bootstrap},
  {"layout", install_layout},
  {"models", install_models},
  {"profiles", install_profiles},
  {"rules", install_rules},
  {"explain", install_explain},
  {"decode", install_decode},
  {"encode", install_encode},
  {"capture", install_capture},
  {"probe", install_probe},
  {"devices", install_devices},
  {"completion", install_completion}, // hidden; it needs every other command installed
};

/// Installs what this run needs. Building every command's options costs more
/// than the rest of a short run (issue 21 item 6), so a run that names its
/// command builds only that one; `--version` alone builds none; help, the
/// completion scripts, an unknown command and a bare `pdcheck` build all,
/// since they list or search every command.
void install_commands(CLI::App& app, CommandContext& ctx, int argc, char** argv)
{
  const std::string_view first = argc >= 2 ? std::string_view(argv[1]) : std::string_view();
  if (argc == 2 && first == "--version") {
    return;
  }
  for (const CommandEntry& entry : k_commands) {
    if (entry.name == first && entry.name != "completion") {
      entry.install(app, ctx);
      // The table and the installer must agree, or this run would parse an
      // unknown command; every test that runs a command checks it.
      const std::vector<CLI::App*> installed = app.get_subcommands({});
      if (installed.size() != 1 || installed.front()->get_name() != entry.name) {
        throw std::logic_error(fmt::format("command table names '{}' but its installer registered another name", entry.name));
      }
      return;
    }
  }
  for (const CommandEntry& entry : k_commands) {
    entry.install(app, ctx);
  }
}

std::vector<std::string> subcommand_names(const CLI::App& app)
{
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!sub->get_group().empty()) { // hidden commands (completion) have no group
      names.push_back(sub->get_name());
    }
  }
  return names;
}

/// What CLI11 would say too late or not at all, said first and as the user
/// typed it: an unknown command with a did-you-mean, `help [CMD]` as
/// `[CMD] --help`, and an unknown long option of a command with the closest
/// one. Returns the words to parse.
std::vector<std::string> preflight(const CLI::App& app, std::vector<std::string> words)
{
  if (words.size() < 2 || words[1].empty() || words[1][0] == '-') {
    return words;
  }
  const std::vector<std::string> commands = subcommand_names(app);
  std::vector<std::string> every; // hidden ones too (completion)
  for (const CLI::App* sub : app.get_subcommands({})) {
    every.push_back(sub->get_name());
  }
  auto known = [&](const std::string& name) { return std::find(every.begin(), every.end(), name) != every.end(); };
  if (words[1] == "help") {
    if (words.size() == 2) {
      return {words[0], "--help"};
    }
    if (!known(words[2])) {
      throw InputError("help", fmt::format("unknown command '{}'{}; commands: {}", words[2],
                                           did_you_mean(words[2], commands), fmt::join(commands, ", ")));
    }
    return {words[0], words[2], "--help"};
  }
  if (!known(words[1])) {
    throw InputError("", fmt::format("unknown command '{}'{}; pdcheck --help lists them", words[1],
                                     did_you_mean(words[1], commands)));
  }
  const CLI::App* cmd = app.get_subcommand_ptr(words[1]).get();
  std::vector<std::string> options;
  std::vector<std::string> takes_value;
  for (const CLI::Option* opt : cmd->get_options()) {
    for (const std::string& name : opt->get_lnames()) {
      options.push_back("--" + name);
      if (opt->get_type_size_max() > 0) {
        takes_value.push_back("--" + name);
      }
    }
  }
  options.emplace_back("--help");
  for (std::size_t i = 2; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--") {
      break; // the rest is positional
    }
    if (w.rfind("--", 0) != 0 || w.size() == 2) {
      continue;
    }
    const std::string name = w.substr(0, w.find('='));
    if (std::find(options.begin(), options.end(), name) == options.end()) {
      if (cmd->get_name() == "probe") {
        return words; // probe's own subcommands hold its options: CLI11 says the rest
      }
      throw InputError(name, fmt::format("unknown option of pdcheck {}{}", words[1], did_you_mean(name, options)));
    }
    if (name == w && std::find(takes_value.begin(), takes_value.end(), name) != takes_value.end()) {
      ++i; // its value may start with "--" (--prefill-args "--tp 2")
    }
  }
  return words;
}

/// The process's outcome: what the command (or the exception that ended it)
/// concluded, with the one line said on stderr.
Verdict run_command(CLI::App& app, int argc, char** argv, CommandContext& ctx)
{
  try {
    std::vector<std::string> words = preflight(app, std::vector<std::string>(argv, argv + argc));
    std::vector<char*> args;
    for (std::string& w : words) {
      args.push_back(w.data());
    }
    app.parse(static_cast<int>(args.size()), args.data());
    return ctx.verdict;
  } catch (const CLI::Success& e) {
    app.exit(e); // prints --help or --version
    return Verdict::ok;
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (100..127) are not ours: every usage problem is 2.
    std::cerr << "pdcheck: error: " << e.what() << "\n";
    return Verdict::usage;
  } catch (const InputError& e) {
    std::cerr << "pdcheck: error: " << e.what() << "\n";
    return Verdict::usage;
  } catch (const CannotRun& e) {
    std::cerr << "pdcheck: cannot run: " << e.what() << "\n";
    return Verdict::cannot_run;
  } catch (const std::bad_alloc&) {
    // Not a bug: inputs within their limits can still need more memory than
    // the machine (or ulimit -v) gives. Readers name the file when they can.
    std::cerr << "pdcheck: cannot run: out of memory\n";
    return Verdict::cannot_run;
  } catch (const std::exception& e) {
    std::cerr << "pdcheck: internal error: " << e.what() << "\n";
    return Verdict::internal_error;
  }
}

} // namespace

int exit_status_for(Verdict v)
{
  switch (v) {
  case Verdict::ok: return 0;
  case Verdict::findings: return 1;
  case Verdict::usage: return 2;
  case Verdict::cannot_run: return 3;
  case Verdict::internal_error: return 70; // EX_SOFTWARE of sysexits.h
  case Verdict::interrupted: return 130;   // 128 + SIGINT, what shells report
  case Verdict::terminated: return 143;    // 128 + SIGTERM
  }
  return exit_status_for(Verdict::internal_error); // not reached: every verdict is listed above
}

int run(int argc, char** argv)
{
  // Before anything can open an output file; the handlers never return.
  io::exit_on_signal(SIGINT, exit_status_for(Verdict::interrupted));
  io::exit_on_signal(SIGTERM, exit_status_for(Verdict::terminated));
  CommandContext ctx;
  ctx.out = &std::cout;
  ctx.err = &std::cerr;

  CLI::App app{"pdcheck: diagnostic and compatibility checker for SGLang PD disaggregation of "
               "hybrid Mamba / linear-attention models",
               "pdcheck"};
  app.require_subcommand(1);
  // What a bug report needs: which SGLang behaviours and models this build knows.
  app.set_version_flag("--version", [] {
    return fmt::format("pdcheck {}\nprofiles: {}\ncatalog revision: {}", PDCHECK_VERSION, fmt::join(profile_names(), ", "),
                       model::catalog_revision());
  });

  try {
    install_commands(app, ctx, argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "pdcheck: internal error: " << e.what() << "\n";
    return exit_status_for(Verdict::internal_error);
  }
  return exit_status_for(run_command(app, argc, argv, ctx));
}

} // namespace pdcheck::cli
