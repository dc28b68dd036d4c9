#pragma once

// A fresh directory under the system temp dir for tests that read files,
// removed (with everything in it) at scope exit.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace pdcheck::test {

class TempDir
{
public:
  explicit TempDir(const std::string& prefix = "pdcheck")
  {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir()
  {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// Writes `text` to `name` (parent folders created) and returns its path.
  std::string write(const std::string& name, const std::string& text) const
  {
    const std::filesystem::path file = path / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
    return file.string();
  }

  std::filesystem::path path;
};

} // namespace pdcheck::test
