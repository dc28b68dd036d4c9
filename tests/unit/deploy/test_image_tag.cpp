#include "deploy/image_tag.hpp"

#include <catch2/catch.hpp>

using pdcheck::deploy::release_from_image;

TEST_CASE("release_from_image: the SGLang release in an image tag", "[deploy]")
{
  CHECK(release_from_image("lmsysorg/sglang:v0.5.21-cu129").version == "0.5.21");
  CHECK(release_from_image("lmsysorg/sglang:v0.5.3.post3-cu126").version == "0.5.3.post3");
  CHECK(release_from_image("registry.local:5000/lmsysorg/sglang:0.5.6rc1").version == "0.5.6rc1");
  CHECK(release_from_image("lmsysorg/sglang:v0.5.5@sha256:abcd").version == "0.5.5");

  const auto latest = release_from_image("lmsysorg/sglang:latest");
  CHECK_FALSE(latest.version);
  CHECK(latest.why_unknown == "the tag 'latest' names no release");
  // A registry port is not a tag.
  CHECK(release_from_image("registry.local:5000/sglang").why_unknown ==
        "the image has no tag, so it runs 'latest', which names no release");
  CHECK(release_from_image("lmsysorg/sglang@sha256:abcd").why_unknown ==
        "the image is pinned by digest only, which names no release");
  CHECK_FALSE(release_from_image("lmsysorg/sglang:dev-cu13").version);
  // A Dynamo runtime's tag is Dynamo's version.
  CHECK(release_from_image("nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.7.1").why_unknown ==
        "the image is not SGLang's own (lmsysorg/sglang), so its tag '0.7.1' is not an SGLang release");
}
