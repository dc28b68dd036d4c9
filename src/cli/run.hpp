#pragma once

#include "util/error.hpp"

namespace pdcheck::cli {

/// The whole program: parses the command line, runs one subcommand, maps every
/// outcome to a documented exit code. The only place that catches exceptions.
int run(int argc, char** argv);

/// The documented exit status of a verdict (man/pdcheck.1, EXIT STATUS): the
/// one table of exit numbers. Exit codes are an interface; never renumber.
int exit_status_for(Verdict v);

} // namespace pdcheck::cli
