// Markdown (step summaries, merge-request comments) and GitLab Code Quality,
// on the page-size example pair.
#include "io/side_file.hpp"
#include "report/gitlab.hpp"
#include "report/compact_text.hpp"
#include "report/markdown.hpp"
#include "util/units.hpp"

#include "../../support/report_pairs.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

const std::string k_root = PDCHECK_SOURCE_DIR;

test::CheckedPair page_size_pair()
{
  return test::checked_pair("page-size-mismatch");
}

} // namespace

TEST_CASE("markdown: the verdict, both sides, a row per cause and its details", "[report][markdown]")
{
  const auto p = page_size_pair();
  const std::string md = report::check_to_markdown(p.report());
  CHECK(md.rfind("## pdcheck: ❌ incompatible\n\n| side | file |", 0) == 0);
  CHECK(md.find("| decode | `" + k_root + "/examples/pairs/page-size-mismatch/decode.yaml` | falcon-h1-1.5b |") !=
        std::string::npos);
  CHECK(md.find("**1 error, 0 warnings, 0 info** (fails on error)") != std::string::npos);
  CHECK(md.find("| error | `bootstrap-page-size` | bootstrap | decode |  | prefill page size 64 != decode page size "
                "16 |\n") != std::string::npos);
  CHECK(md.find("<details><summary>error `bootstrap-page-size`: prefill page size 64 != decode page size "
                "16</summary>") != std::string::npos);
  CHECK(md.find("```\nRuntimeError: Page size mismatch") != std::string::npos);
  CHECK(report::markdown_cell("a|b\n<c>") == "a\\|b<br>&lt;c&gt;");
}

TEST_CASE("gitlab: one Code Quality issue per cause, at the side file's line", "[report][gitlab]")
{
  const auto p = page_size_pair();
  const auto issues = report::check_to_gitlab(p.report(), {k_root, k_root});
  REQUIRE(issues.size() == 1);
  const auto& i = issues[0];
  CHECK(i["check_name"] == "bootstrap-page-size");
  CHECK(i["severity"] == "critical");
  CHECK(i["location"]["path"] == "examples/pairs/page-size-mismatch/decode.yaml");
  CHECK(i["location"]["lines"]["begin"] == 4);
  CHECK(i["fingerprint"].get<std::string>().size() == 16);
  const std::string d = i["description"];
  CHECK(d.rfind("[bootstrap-page-size] prefill page size 64 != decode page size 16. SGLang: RuntimeError: ", 0) == 0);
  CHECK(d.find("value. Change: the prefill runs --page-size 64 (") != std::string::npos);
  CHECK(d.find("use one value on both sides. Fix: Use the same --page-size") != std::string::npos);
}

TEST_CASE("compact_int_lists: runs of three or more equal integers, other lists as written", "[report]")
{
  CHECK(report::compact_int_lists("(src item_lens=[24576, 24576, 24576, 1048576, 1048576], dst item_lens=[38633472])") ==
        "(src item_lens=[24576 ×3, 1048576, 1048576], dst item_lens=[38633472])");
  CHECK(report::compact_int_lists("[1, 1, 1, 2, 2, 2, 2, 3]") == "[1 ×3, 2 ×4, 3]");
  CHECK(report::compact_int_lists("[a, a, a] and [-1, -1, -1] and [] and [1, 1") == "[a, a, a] and [-1 ×3] and [] and [1, 1");
}

TEST_CASE("bytes_text: binary units with one decimal", "[report]")
{
  CHECK(bytes_text(0) == "0 bytes");
  CHECK(bytes_text(1023) == "1023 bytes");
  CHECK(bytes_text(24576) == "24.0 KiB");
  CHECK(bytes_text(72769536) == "69.4 MiB"); // 72769536 / 2^20 = 69.398...
  CHECK(bytes_text(std::uint64_t{3} << 30) == "3.0 GiB");
}
