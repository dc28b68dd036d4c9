// SGLang version strings as pdcheck reads them (`sglang:` values, flag-table
// names): PEP 440 parts, and an order by release and post number only.
#include "core/version.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

TEST_CASE("parse_version: releases, post releases, release candidates and nightlies", "[core]")
{
  const auto v = parse_version("0.5.3.post3");
  REQUIRE(v);
  CHECK(v->release == std::array<long, 3>{0, 5, 3});
  CHECK(v->post == 3);
  CHECK_FALSE(v->pre_release());
  const auto rc = parse_version("0.5.19rc1");
  REQUIRE(rc);
  CHECK(rc->rc == 1);
  CHECK(rc->pre_release());
  const auto dev = parse_version("0.5.22.dev20261009");
  REQUIRE(dev);
  CHECK(dev->dev == 20261009);
  for (const char* bad : {"", "0.5", "v0.5.20", "0.5.x", "0.5.20-cu129", "0.5.20.post", "main"}) {
    INFO(bad);
    CHECK_FALSE(parse_version(bad));
  }
}

TEST_CASE("normalise_version: lower case, a leading v before a digit dropped", "[core]")
{
  CHECK(normalise_version("V0.5.20") == "0.5.20");
  CHECK(normalise_version("v0.5.20") == "0.5.20");
  CHECK(normalise_version("Components") == "components");
  CHECK(normalise_version("v") == "v");
}

TEST_CASE("release_before: by release then post; a pre-release sorts with its release", "[core]")
{
  auto v = [](const char* t) { return *parse_version(t); };
  CHECK(release_before(v("0.5.4"), v("0.5.10")));
  CHECK(release_before(v("0.5.3"), v("0.5.3.post3")));
  CHECK(release_before(v("0.5.3.post3"), v("0.5.4")));
  CHECK_FALSE(release_before(v("0.5.10"), v("0.5.9")));
  CHECK_FALSE(release_before(v("0.5.19rc1"), v("0.5.19")));
  CHECK(same_release(v("0.5.19rc1"), v("0.5.19")));
  CHECK_FALSE(same_release(v("0.5.19"), v("0.5.19.post1")));
}
