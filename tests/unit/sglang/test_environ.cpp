// Boolean SGLANG_* variables as SGLang's EnvBool reads them (environ.py @ 21ff4b08).
#include "sglang/environ.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck::sglang;

TEST_CASE("read_env_bool: SGLang's true and false words, in any case", "[sglang][env]")
{
  for (const char* word : {"true", "True", "TRUE", "1", "yes", "Yes", "y", "Y"}) {
    const EnvBoolReading r = read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", false);
    CHECK(r.value);
    CHECK_FALSE(r.refused);
  }
  for (const char* word : {"false", "False", "0", "no", "NO", "n"}) {
    const EnvBoolReading r = read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", true);
    CHECK_FALSE(r.value);
    CHECK_FALSE(r.refused);
  }
}

TEST_CASE("read_env_bool: unset keeps the default; any other word is refused and keeps it too", "[sglang][env]")
{
  CHECK(read_env_bool({}, "SGLANG_X", true).value);
  CHECK_FALSE(read_env_bool({{"SGLANG_Y", "1"}}, "SGLANG_X", false).value);
  // "on", "2" and the empty string are not EnvBool words: EnvField.get warns and
  // returns the default, whichever it is.
  for (const char* word : {"on", "2", "", " 1", "enabled"}) {
    const EnvBoolReading off = read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", false);
    CHECK_FALSE(off.value);
    REQUIRE(off.refused);
    CHECK(*off.refused == word);
    CHECK(read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", true).value);
  }
}
