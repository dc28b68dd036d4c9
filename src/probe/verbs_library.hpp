#pragma once

// libibverbs is loaded on the first verbs call (verbs_library.cpp), not linked.

#include <string>

namespace pdcheck::probe {

/// Why libibverbs.so.1 (or $PDCHECK_IBVERBS_LIBRARY) could not be loaded; ""
/// when it was. Loads it on the first call.
std::string verbs_library_error();

} // namespace pdcheck::probe
