// Output files appear whole or not at all: nothing at the path until commit,
// an old file untouched until then, no temporary left by an error or by SIGINT
// (which exits with the status given to exit_on_signal).
#include "io/output_file.hpp"

#include "../../support/error_of.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <stdexcept>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace pdcheck;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p)
{
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> names_in(const fs::path& dir)
{
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Runs `body` in a child process and returns its exit status (-1 when it did
/// not exit normally). The child never returns into Catch.
template <typename F>
int in_child(F&& body)
{
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      _exit(98);
    }
    _exit(99); // the body was meant to end the process
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

TEST_CASE("write_output_file: the whole file, and no temporary beside it", "[io]")
{
  test::TempDir dir;
  const fs::path out = dir.path / "report.sarif";
  io::write_output_file(out.string(), "{\"runs\": []}\n", "--output " + out.string());
  CHECK(read(out) == "{\"runs\": []}\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"report.sarif"});
}

TEST_CASE("OutputFile: nothing at the path until commit, then the new bytes", "[io]")
{
  test::TempDir dir;
  const fs::path out = dir.path / "capture.json";
  {
    io::OutputFile f(out.string(), out.string());
    f.write("{\"kind\": ");
    CHECK_FALSE(fs::exists(out));
    REQUIRE_FALSE(f.temporary_path().empty());
    CHECK(fs::path(f.temporary_path()).parent_path() == dir.path);
    // Hidden and not *.json: `check --decode-capture DIR` must never read one.
    CHECK(fs::path(f.temporary_path()).filename().string().front() == '.');
    CHECK(fs::path(f.temporary_path()).extension() == ".tmp");
    f.write("\"registration\"}\n");
    f.commit();
    CHECK(f.temporary_path().empty());
  }
  CHECK(read(out) == "{\"kind\": \"registration\"}\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"capture.json"});
}

TEST_CASE("OutputFile: dropped before commit, the old file stays and the temporary goes", "[io]")
{
  test::TempDir dir;
  const std::string out = dir.write("old.xml", "old contents\n");
  {
    io::OutputFile f(out, out);
    f.write("half of a new rep");
    CHECK(read(out) == "old contents\n");
  }
  CHECK(read(out) == "old contents\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"old.xml"});
}

TEST_CASE("OutputFile: a replaced file keeps its mode; through a symlink the link stays", "[io]")
{
  test::TempDir dir;
  const std::string target = dir.write("real.json", "old\n");
  REQUIRE(chmod(target.c_str(), 0640) == 0);
  const fs::path link = dir.path / "link.json";
  fs::create_symlink(target, link);

  io::write_output_file(link.string(), "new\n", link.string());
  CHECK(fs::is_symlink(link));
  CHECK(read(target) == "new\n");
  struct stat st{};
  REQUIRE(stat(target.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);
  CHECK(names_in(dir.path) == std::vector<std::string>{"link.json", "real.json"});
}

TEST_CASE("OutputFile: a path that is not a regular file is written in place", "[io]")
{
  // /dev/null: there is nothing to rename onto, and /dev must not get a temporary.
  io::OutputFile f("/dev/null", "--output /dev/null");
  CHECK(f.temporary_path().empty());
  f.write("discarded");
  f.commit();
}

TEST_CASE("OutputFile: errors name the file and the reason", "[io]")
{
  test::TempDir dir;
  const std::string missing = (dir.path / "no-such-dir" / "out.json").string();
  CHECK(test::error_of([&] { io::write_output_file(missing, "x", "--output " + missing); }) ==
        "--output " + missing + ": cannot write: No such file or directory");
  CHECK(test::error_of([&] { io::write_output_file(dir.path.string(), "x", dir.path.string()); }) ==
        dir.path.string() + ": cannot write: Is a directory");
  CHECK(names_in(dir.path).empty());
}

TEST_CASE("exit_on_signal: SIGINT mid-write exits with the status and leaves no file", "[io]")
{
  test::TempDir dir;
  const fs::path fresh = dir.path / "fresh.sarif";
  const std::string old = dir.write("old.sarif", "old contents\n");
  const int status = in_child([&] {
    io::exit_on_signal(SIGINT, 130);
    io::OutputFile a(fresh.string(), fresh.string());
    a.write("{\"runs\": [");
    io::OutputFile b(old, old);
    b.write("{\"runs\": [");
    std::raise(SIGINT);
  });
  CHECK(status == 130);
  CHECK_FALSE(fs::exists(fresh));
  CHECK(read(old) == "old contents\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"old.sarif"});
}

TEST_CASE("exit_on_signal: a committed file stays whole, later temporaries go", "[io]")
{
  test::TempDir dir;
  const fs::path done = dir.path / "0001-registration.json";
  const fs::path next = dir.path / "0002-registration.json";
  const int status = in_child([&] {
    io::exit_on_signal(SIGINT, 130);
    io::write_output_file(done.string(), "whole\n", done.string());
    io::OutputFile f(next.string(), next.string());
    f.write("par");
    std::raise(SIGINT);
  });
  CHECK(status == 130);
  CHECK(read(done) == "whole\n");
  CHECK(names_in(dir.path) == std::vector<std::string>{"0001-registration.json"});
}

TEST_CASE("exit_on_signal: SIGINT ignored at start stays ignored", "[io]")
{
  const int status = in_child([] {
    std::signal(SIGINT, SIG_IGN);
    io::exit_on_signal(SIGINT, 130);
    std::raise(SIGINT);
    _exit(7);
  });
  CHECK(status == 7);
}

TEST_CASE("exit_on_signal: SIGTERM mid-write exits with its own status and leaves no file", "[io]")
{
  test::TempDir dir;
  const fs::path fresh = dir.path / "report.xml";
  const int status = in_child([&] {
    io::exit_on_signal(SIGINT, 130);
    io::exit_on_signal(SIGTERM, 143);
    io::OutputFile f(fresh.string(), fresh.string());
    f.write("<testsuites>");
    std::raise(SIGTERM);
  });
  CHECK(status == 143);
  CHECK(names_in(dir.path).empty());
}

TEST_CASE("exit_on_signal: a signal number outside the table is a bug, not a silent no-op", "[io]")
{
  CHECK_THROWS_AS(io::exit_on_signal(0, 1), std::logic_error);
  CHECK_THROWS_AS(io::exit_on_signal(64, 1), std::logic_error);
}
