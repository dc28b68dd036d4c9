#pragma once

namespace pdcheck::cli {

/// The whole program: parses the command line, runs one subcommand, maps every
/// outcome to a documented exit code. The only place that catches exceptions.
int run(int argc, char** argv);

} // namespace pdcheck::cli
