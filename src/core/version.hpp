#pragma once

// SGLang's version strings, PEP 440 style as its releases spell them:
// X.Y.Z[.postN][rcN][.devN], with an optional leading "v".

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace pdcheck {

struct Version
{
  std::array<long, 3> release{};
  long post = -1; ///< -1: no .post
  long rc = -1;   ///< -1: no rc
  long dev = -1;  ///< -1: no .dev
  bool pre_release() const { return rc >= 0 || dev >= 0; }
};

/// "0.5.4", "0.5.3.post3", "0.5.19rc1", "0.5.22.dev20261009" (no leading "v";
/// see normalise_version). nullopt for anything else.
std::optional<Version> parse_version(std::string_view text);

/// Lower case, without a leading "v" before a digit: "V0.5.20" -> "0.5.20".
std::string normalise_version(std::string_view text);

/// Orders by release and post number only: a pre-release of X sorts with X,
/// which is how pdcheck maps it (to X's row when it has one).
bool release_before(const Version& a, const Version& b);
bool same_release(const Version& a, const Version& b);

} // namespace pdcheck
