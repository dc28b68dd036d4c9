// startup-unified-memory: handle_unified_memory_pool's assertions when
// --enable-unified-memory meets PD (arg_groups/kv_cache_hook.py), each finding
// carrying SGLang's AssertionError text rendered from the message catalog.
#include "check/checker.hpp"

#include "../../support/catalog_text.hpp"
#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

using test::check_pair;
using test::side;
using test::with_rule;

namespace {

/// The decode side's startup-unified-memory findings (pointers into `r`, which
/// must outlive them).
std::vector<const Finding*> decode_findings(const check::CheckResult& r)
{
  std::vector<const Finding*> out;
  for (const Finding* f : with_rule(r, "startup-unified-memory")) {
    if (f->side == "decode") {
      out.push_back(f);
    }
  }
  return out;
}

} // namespace

TEST_CASE("startup-unified-memory: a backend other than mooncake and pp 2 are both refused", "[check][unified]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 1 --enable-unified-memory", "0.5.19"),
                            side(sglang::Role::decode,
                                 "--tp 1 --pp-size 2 --enable-unified-memory --disaggregation-transfer-backend nixl",
                                 "0.5.19"));
  const auto found = decode_findings(r);
  REQUIRE(found.size() == 2);
  CHECK(found[0]->message == "--enable-unified-memory with PD needs the mooncake backend, not nixl");
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::unified_backend, {{"backend", "'nixl'"}}));
  CHECK(*found[0]->runtime_error ==
        "AssertionError: --enable-unified-memory with PD disaggregation supports only the mooncake transfer backend; "
        "got 'nixl'.");
  CHECK(found[1]->message == "--enable-unified-memory with PD needs pp 1, not 2");
  CHECK(*found[1]->runtime_error == render_delivered(MessageId::unified_pipeline, {}));
  CHECK(found[1]->where == "decode startup: handle_unified_memory_pool (arg_groups/kv_cache_hook.py)");
}

TEST_CASE("startup-unified-memory: SGLANG_DISABLE_LAZY_COMPACTION counts only as SGLang's EnvBool reads it",
          "[check][unified]")
{
  const auto prefill = side(sglang::Role::prefill, "--tp 1 --enable-unified-memory", "0.5.19");
  for (const char* on : {"1", "True", "yes", "Y"}) {
    const auto r = check_pair(prefill, side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.19",
                                            "qwen3-next-80b-a3b", {{"SGLANG_DISABLE_LAZY_COMPACTION", on}}));
    const auto found = decode_findings(r);
    REQUIRE(found.size() == 1);
    CHECK(found[0]->message ==
          "--enable-unified-memory with PD needs lazy compaction, but SGLANG_DISABLE_LAZY_COMPACTION is set");
    CHECK(*found[0]->runtime_error == render_delivered(MessageId::unified_lazy_compaction, {}));
  }
  // "False" and "no" are false; "off" is no EnvBool word, so SGLang keeps the default (False).
  for (const char* off : {"0", "False", "no", "off"}) {
    const auto r = check_pair(prefill, side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.19",
                                            "qwen3-next-80b-a3b", {{"SGLANG_DISABLE_LAZY_COMPACTION", off}}));
    CHECK(decode_findings(r).empty());
  }
}
