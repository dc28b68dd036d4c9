#pragma once

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

namespace pdcheck::test {

/// The whole of tests/data/REL (a recorded answer, a fixture); the test fails when it is missing.
inline std::string test_data(const std::string& rel)
{
  std::ifstream in(std::string(PDCHECK_SOURCE_DIR) + "/tests/data/" + rel, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The model the probe's tests move: Falcon-H1's two state tensors (conv and
/// temporal, tests/data/models/falcon-h1-probe) at 270 KiB per request instead
/// of the 1.5B model's 72 MiB. The tests run each loopback several times, and
/// under ThreadSanitizer first-touching that much memory alone outlasted their
/// handshake timeouts on a 2-core CI host.
inline std::string probe_model()
{
  return std::string(PDCHECK_SOURCE_DIR) + "/tests/data/models/falcon-h1-probe";
}

} // namespace pdcheck::test
