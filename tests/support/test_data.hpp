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

} // namespace pdcheck::test
