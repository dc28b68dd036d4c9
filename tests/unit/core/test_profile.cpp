// The release table and how a side's `sglang:` value finds its row: the
// expected features are those docs/profiles.md gives for each release (the PR
// each one rests on is named next to it), the assumptions those of its
// "Releases without a row".
#include "core/profile.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace pdcheck;

namespace {

const Profile& row(const char* name)
{
  const Profile* p = find_profile(name);
  REQUIRE(p != nullptr);
  return *p;
}

} // namespace

TEST_CASE("profiles: the named generations come first and define themselves", "[profile]")
{
  const auto& table = profiles();
  REQUIRE(table.size() > 4);
  CHECK(table[0].name == "pre-dims");
  CHECK(table[1].name == "flat");
  CHECK(table[2].name == "components");
  CHECK(table[3].name == "v0.5.20");
  for (int i = 0; i < 4; ++i) {
    CHECK(table[static_cast<std::size_t>(i)].released.empty());
    CHECK(table[static_cast<std::size_t>(i)].confidence == "definition");
  }
  CHECK(table[0].mooncake_format == RegistrationFormat::no_state_lens);
  CHECK(table[1].mooncake_format == RegistrationFormat::flat);
  CHECK(table[2].mooncake_format == RegistrationFormat::components);
  CHECK(table[3].dim_rule == DimRule::slice_axis);
  CHECK(default_profile().name == "v0.5.20");
}

TEST_CASE("profiles: release rows before the components era", "[profile]")
{
  // 0.5.3.post2 and before: no hybrid state transfer (PR #10912 first in 0.5.3.post3).
  CHECK_FALSE(row("0.5.3.post2").state_transfer);
  CHECK(row("0.5.3.post3").state_transfer);
  CHECK(row("0.5.3.post3").base == "pre-dims");
  CHECK(row("0.5.8.post1").mooncake_format == RegistrationFormat::no_state_lens);
  // get_pp_indices: the last stage takes the remainder until PR #13977 (0.5.6).
  CHECK(row("0.5.5.post3").pp_split == PpSplit::last_takes_remainder);
  CHECK(row("0.5.6").pp_split == PpSplit::last_stages_one_extra);
  // Environment dtypes from PR #18532 (flat era).
  CHECK_FALSE(row("0.5.8.post1").mamba_dtype_env);
  CHECK(row("0.5.9").mamba_dtype_env);

  const Profile& v059 = row("0.5.9");
  CHECK(v059.mooncake_format == RegistrationFormat::flat);
  CHECK(v059.confidence == "medium");
  CHECK_FALSE(v059.aggregation_writer_fix); // #20655 after the tag
  CHECK_FALSE(v059.nixl_dims);              // #22240
  CHECK_FALSE(v059.mori_state);             // #22665
  CHECK(row("0.5.10").aggregation_writer_fix);
  CHECK_FALSE(row("0.5.10").nixl_dims);
  CHECK(row("0.5.11").nixl_dims);
  CHECK(row("0.5.11").mori_state);
}

TEST_CASE("profiles: release rows of the components era", "[profile]")
{
  const Profile& v0512 = row("0.5.12");
  CHECK(v0512.mooncake_format == RegistrationFormat::components);
  CHECK(v0512.mori_broken_pack);
  CHECK(row("0.5.12.post1").mori_broken_pack);
  CHECK_FALSE(row("0.5.13").mori_broken_pack);
  CHECK_FALSE(row("0.5.15.post1").conv_subgroup_slicing);
  CHECK(row("0.5.16").conv_subgroup_slicing); // #30997
  CHECK_FALSE(row("0.5.16").state_layer_ids);
  CHECK(row("0.5.17").state_layer_ids); // #32270
  CHECK_FALSE(row("0.5.17").unified_memory);
  CHECK(row("0.5.18").unified_memory); // #33362
  CHECK(row("0.5.18").mooncake_layout_check);
  CHECK_FALSE(row("0.5.18").mooncake_slot_size_check);
  CHECK(row("0.5.19").mooncake_slot_size_check);
  CHECK(row("0.5.19").dim_rule == DimRule::first_axis);
  CHECK(row("0.5.19").confidence == "low");

  const Profile& v0520 = row("0.5.20");
  CHECK(v0520.base == "v0.5.20");
  CHECK(v0520.dim_rule == DimRule::slice_axis);
  CHECK(v0520.drop_zero_size_entries);
  CHECK(v0520.kda_single_conv);
  CHECK_FALSE(v0520.unified_unequal_tp);
  for (const char* later : {"0.5.21", "0.5.22", "0.5.23"}) {
    INFO(later);
    CHECK(row(later).unified_unequal_tp); // PR #40500
    CHECK(row(later).base == "v0.5.20");
    CHECK(row(later).confidence == "low");
  }
}

TEST_CASE("find_profile: names, releases with or without v, any case; nothing else", "[profile]")
{
  CHECK(row("components").name == "components");
  CHECK(row("v0.5.15").name == "0.5.15");
  CHECK(row("V0.5.15").name == "0.5.15");
  CHECK(row("0.5.15.POST1").name == "0.5.15.post1");
  // The release row and the named profile both normalise to 0.5.20: the name as
  // written decides, so the release row (its own confidence and evidence) is reachable.
  CHECK(row("0.5.20").name == "0.5.20");
  CHECK(row("0.5.20").base == "v0.5.20");
  CHECK(row("v0.5.20").name == "v0.5.20");
  CHECK(row("V0.5.20").name == "v0.5.20");
  CHECK(find_profile("0.5.24") == nullptr);
  CHECK(find_profile("0.5.19rc1") == nullptr);
  CHECK(find_profile("latest") == nullptr);
  CHECK(find_profile("") == nullptr);
}

TEST_CASE("resolve_profile: the three kinds of value without a row", "[profile]")
{
  SECTION("0.5.24: newer than the table, checked as the newest row")
  {
    const ProfileMatch m = resolve_profile("0.5.24");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.23");
    CHECK(m.assumption == "SGLang 0.5.24 is newer than every release pdcheck knows; checked as 0.5.23, the nearest "
                          "earlier release (v0.5.20 profile)");
    CHECK(m.read_as.empty());
    CHECK(mapping_confidence(m) == "low");
  }
  SECTION("0.5.19rc1: a release candidate is its release")
  {
    const ProfileMatch m = resolve_profile("0.5.19rc1");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.19");
    CHECK(m.assumption ==
          "SGLang 0.5.19rc1 is a pre-release pdcheck has no row for; checked as 0.5.19 (components profile)");
    CHECK(m.read_as.empty());
    CHECK(mapping_confidence(m) == "low");
  }
  SECTION("lmsysorg/sglang:v0.5.21-cu129: an image of a known release assumes nothing")
  {
    const ProfileMatch m = resolve_profile("lmsysorg/sglang:v0.5.21-cu129");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.21");
    CHECK(m.assumption.empty());
    CHECK(m.read_as == "0.5.21");
    CHECK(mapping_confidence(m) == "low"); // 0.5.21's own confidence
    // A high-confidence row keeps its confidence through an image tag.
    const ProfileMatch high = resolve_profile("lmsysorg/sglang:v0.5.13-rocm700");
    REQUIRE(high.profile != nullptr);
    CHECK(high.profile->name == "0.5.13");
    CHECK(high.read_as == "0.5.13");
    CHECK(mapping_confidence(high) == "high");
  }
}

TEST_CASE("resolve_profile: more neighbours", "[profile]")
{
  SECTION("an image of an unknown release names the value as written")
  {
    const ProfileMatch m = resolve_profile("lmsysorg/sglang:v0.5.24-cu129");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.23");
    CHECK(m.read_as == "0.5.24");
    CHECK(m.assumption == "SGLang lmsysorg/sglang:v0.5.24-cu129 is newer than every release pdcheck knows; checked "
                          "as 0.5.23, the nearest earlier release (v0.5.20 profile)");
  }
  SECTION("a post release between rows takes the nearest earlier one")
  {
    const ProfileMatch m = resolve_profile("0.5.12.post2");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.12.post1");
    CHECK(m.assumption == "SGLang 0.5.12.post2 is not a release pdcheck knows; checked as 0.5.12.post1, the nearest "
                          "earlier release (components profile)");
  }
  SECTION("a release candidate of an unknown release is checked as the nearest earlier one")
  {
    const ProfileMatch m = resolve_profile("0.5.25rc1");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.23");
    CHECK(m.assumption.find("newer than every release") != std::string::npos);
  }
  SECTION("a nightly of a known release")
  {
    const ProfileMatch m = resolve_profile("0.5.22.dev20261009");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.22");
    CHECK(m.assumption ==
          "SGLang 0.5.22.dev20261009 is a pre-release pdcheck has no row for; checked as 0.5.22 (v0.5.20 profile)");
  }
  SECTION("a named profile or an exact release: no assumption, the row's confidence")
  {
    const ProfileMatch named = resolve_profile("components");
    REQUIRE(named.profile != nullptr);
    CHECK(named.assumption.empty());
    CHECK(mapping_confidence(named) == "definition");
    const ProfileMatch exact = resolve_profile("v0.5.10");
    REQUIRE(exact.profile != nullptr);
    CHECK(exact.profile->name == "0.5.10");
    CHECK(exact.read_as.empty());
    CHECK(mapping_confidence(exact) == "high");
  }
  SECTION("older than the table, or not a version")
  {
    const ProfileMatch old = resolve_profile("lmsysorg/sglang:v0.4.9-cu126");
    CHECK(old.profile == nullptr);
    CHECK(old.read_as.empty());
    CHECK(mapping_confidence(old) == "none");
    CHECK(resolve_profile("0.5.0").profile == nullptr);
    CHECK(resolve_profile("nightly").profile == nullptr);
  }
}

TEST_CASE("profile_names: every row, in table order", "[profile]")
{
  const std::vector<std::string> names = profile_names();
  REQUIRE(names.size() == profiles().size());
  CHECK(names.front() == "pre-dims");
  CHECK(names.back() == "0.5.23");
  CHECK(std::find(names.begin(), names.end(), "0.5.15.post1") != names.end());
  CHECK(std::find(names.begin(), names.end(), "0.5.24") == names.end());
  for (std::size_t i = 0; i < names.size(); ++i) {
    CHECK(names[i] == profiles()[i].name);
  }
}

TEST_CASE("profiles: an unknown sglang value says what is accepted in one line, not the 45 releases", "[profile]")
{
  // The oldest and newest rows of the release table bound the range; hand-written here.
  REQUIRE(profiles()[4].name == "0.5.1");
  REQUIRE(profiles().back().name == "0.5.23");
  CHECK(unknown_profile_text("componets") ==
        "unknown profile or version 'componets' (did you mean 'components'?); expected an SGLang release from 0.5.1 on "
        "(releases after 0.5.23 are checked as 0.5.23, with a warning), an image tag such as "
        "lmsysorg/sglang:v0.5.23-cu129, or a profile: pre-dims, flat, components, v0.5.20 (pdcheck profiles lists them)");
  // Release numbers are not typos of each other: no suggestion for them.
  CHECK(unknown_profile_text("0.4.0").rfind("unknown profile or version '0.4.0'; expected an SGLang release", 0) == 0);
}
