#include "deploy/image_tag.hpp"

#include <regex>

namespace pdcheck::deploy {

ImageRelease release_from_image(std::string_view image)
{
  std::string ref(image);
  const std::size_t digest = ref.find('@');
  const bool pinned = digest != std::string::npos;
  if (pinned) {
    ref.resize(digest);
  }
  const std::size_t slash = ref.rfind('/');
  const std::size_t colon = ref.rfind(':');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) {
    return {std::nullopt, pinned ? "the image is pinned by digest only, which names no release"
                                 : "the image has no tag, so it runs 'latest', which names no release"};
  }
  const std::string tag = ref.substr(colon + 1);
  // Only SGLang's own images are tagged with its release; another image's tag
  // (a Dynamo runtime, a company build) is that product's version.
  const std::string repository = ref.substr(0, colon);
  const std::string last = repository.substr(repository.rfind('/') == std::string::npos ? 0 : repository.rfind('/') + 1);
  if (last != "sglang" && repository.find("lmsysorg/") == std::string::npos) {
    return {std::nullopt, "the image is not SGLang's own (lmsysorg/sglang), so its tag '" + tag +
                            "' is not an SGLang release"};
  }
  // v0.5.21, v0.5.21-cu129, 0.5.3.post3-cu126-amd64, v0.5.6rc1
  static const std::regex k_release(R"(^v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?:[-_+].*)?$)");
  std::smatch m;
  if (std::regex_match(tag, m, k_release)) {
    return {m[1].str(), ""};
  }
  return {std::nullopt, "the tag '" + tag + "' names no release"};
}

} // namespace pdcheck::deploy
