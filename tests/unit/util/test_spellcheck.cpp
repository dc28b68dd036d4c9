// The "did you mean" hints every reader and the command line end errors with.
#include "util/spellcheck.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

TEST_CASE("spellcheck: the hint for a near miss, the fallback, or nothing", "[util]")
{
  const std::vector<std::string> keys{"prefill", "decode"};
  CHECK(did_you_mean("prefil", keys) == " (did you mean 'prefill'?)");
  CHECK(did_you_mean("Decdoe", keys) == " (did you mean 'decode'?)"); // case ignored, one swap
  CHECK(did_you_mean("router", keys).empty());
  CHECK(did_you_mean("router", keys, "keys: prefill, decode") == " (keys: prefill, decode)");
  CHECK(did_you_mean("decode", keys, "keys: prefill, decode") == " (keys: prefill, decode)"); // valid: no guess
}
