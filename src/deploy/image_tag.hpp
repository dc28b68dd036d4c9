#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::deploy {

/// The SGLang release an image runs, read from its tag.
struct ImageRelease
{
  std::optional<std::string> version; ///< "0.5.21", "0.5.3.post3"; nullopt when the tag does not say
  std::string why_unknown;            ///< when version is nullopt: "the tag 'latest' names no release", ...
};

/// lmsysorg/sglang:v0.5.21-cu129 -> 0.5.21; v0.5.3.post3-cu126 -> 0.5.3.post3;
/// 0.5.6rc1 -> 0.5.6rc1. "latest", "dev", "nightly-...", no tag, a digest
/// alone, or an image other than SGLang's own (repository .../sglang or
/// lmsysorg/...) say nothing about the release.
ImageRelease release_from_image(std::string_view image);

} // namespace pdcheck::deploy
