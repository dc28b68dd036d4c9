// SGLANG_* variables as SGLang's environ.py reads them (@ 21ff4b08): EnvBool's
// words, and the legacy SGL_* spelling copied over SGLANG_* at import.
#include "sglang/environ.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck::sglang;

TEST_CASE("read_env_bool: SGLang's true and false words, in any case", "[sglang][env]")
{
  for (const char* word : {"true", "True", "TRUE", "1", "yes", "Yes", "y", "Y"}) {
    const EnvBoolReading r = read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", false);
    CHECK(r.value);
    CHECK_FALSE(r.unparsed);
  }
  for (const char* word : {"false", "False", "0", "no", "NO", "n"}) {
    const EnvBoolReading r = read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", true);
    CHECK_FALSE(r.value);
    CHECK_FALSE(r.unparsed);
  }
}

TEST_CASE("read_env_bool: unset keeps the default; any other word is unparsed and keeps it too", "[sglang][env]")
{
  const EnvBoolReading unset = read_env_bool({}, "SGLANG_X", true);
  CHECK(unset.value);
  CHECK_FALSE(unset.unparsed);
  CHECK_FALSE(read_env_bool({{"SGLANG_Y", "1"}}, "SGLANG_X", false).value);
  // "on", "2", " 1" and the empty string are not EnvBool words: EnvField.get
  // warns and returns the default, whichever it is.
  for (const char* word : {"on", "2", "", " 1", "enabled"}) {
    const EnvBoolReading off = read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", false);
    CHECK_FALSE(off.value);
    REQUIRE(off.unparsed);
    CHECK(off.unparsed->name == "SGLANG_X");
    CHECK(off.unparsed->value == word);
    CHECK(read_env_bool({{"SGLANG_X", word}}, "SGLANG_X", true).value);
  }
}

TEST_CASE("find_env: the legacy SGL_ spelling wins over SGLANG_", "[sglang][env]")
{
  CHECK_FALSE(find_env({}, "SGLANG_X"));
  const auto plain = find_env({{"SGLANG_X", "a"}}, "SGLANG_X");
  REQUIRE(plain);
  CHECK(plain->name == "SGLANG_X");
  CHECK(plain->value == "a");
  // _convert_SGL_to_SGLANG copies SGL_X over SGLANG_X at import.
  const auto legacy = find_env({{"SGLANG_X", "a"}, {"SGL_X", "b"}}, "SGLANG_X");
  REQUIRE(legacy);
  CHECK(legacy->name == "SGL_X");
  CHECK(legacy->value == "b");
  CHECK(read_env_bool({{"SGLANG_X", "1"}, {"SGL_X", "0"}}, "SGLANG_X", false).value == false);
  CHECK(read_env_bool({{"SGL_X", "yes"}}, "SGLANG_X", false).value);
}
