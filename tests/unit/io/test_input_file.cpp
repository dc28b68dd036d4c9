// Hostile and unusual input files: devices, pipes, symlink loops, files over
// their kind's limit, logs without newlines, and memory that runs out. Every
// one is a one-line error naming the file (exit 2), or exit 3 for memory,
// never "internal error".

#include "io/capture_file.hpp"
#include "io/input_file.hpp"
#include "io/log_reader.hpp"
#include "io/model_loader.hpp"
#include "io/side_file.hpp"
#include "util/error.hpp"

#include "../../support/run_pdcheck.hpp"
#include "../../support/temp_dir.hpp"

#include "../../support/error_of.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <random>
#include <thread>
#include <unistd.h>

using namespace pdcheck;
namespace fs = std::filesystem;

using test::error_of;

namespace {


/// Every chunk read_log_chunks() hands on, in order.
struct LogRead
{
  std::vector<std::string> chunks;
  io::LogReadSummary summary;
  std::string text() const
  {
    std::string all;
    for (const std::string& c : chunks) {
      all += c;
    }
    return all;
  }
};

LogRead read_log(const std::string& path, std::size_t chunk_bytes, std::size_t max_line_bytes)
{
  LogRead r;
  r.summary = io::read_log_chunks(path, [&r](std::string_view c) { r.chunks.emplace_back(c); }, chunk_bytes,
                                  max_line_bytes);
  return r;
}

/// A sparse file of `size` zero bytes (no disk blocks), then `tail`.
std::string sparse_file(const test::TempDir& dir, const std::string& name, off_t size, const std::string& tail)
{
  const std::string path = (dir.path / name).string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, size) == 0);
  REQUIRE(::pwrite(fd, tail.data(), tail.size(), size) == static_cast<ssize_t>(tail.size()));
  ::close(fd);
  return path;
}

} // namespace

TEST_CASE("io::read_input_file: only regular files are read", "[io][input]")
{
  const test::TempDir dir;
  const std::string yaml = dir.write("side.yaml", "role: prefill\n");
  CHECK(io::read_input_file(yaml, io::k_side_file) == "role: prefill\n");

  CHECK(error_of([] { io::read_input_file("/dev/zero", io::k_side_file); }) ==
        "/dev/zero: expected a side file, got a character device");
  CHECK(error_of([] { io::read_input_file("/dev/null", io::k_capture_file); }) ==
        "/dev/null: expected a capture file, got a character device");
  CHECK(error_of([&] { io::read_input_file(dir.path.string(), io::k_model_config); }) ==
        dir.path.string() + ": cannot read model config: Is a directory");

  // A FIFO is refused at once, not waited on for a writer that never comes.
  const std::string fifo = (dir.path / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(error_of([&] { io::read_input_file(fifo, io::k_sglang_config); }) ==
        fifo + ": expected a SGLang config file, got a pipe");

  // Symlinks are followed: to the device they name, or round in a loop.
  const std::string to_zero = (dir.path / "zero.yaml").string();
  fs::create_symlink("/dev/zero", to_zero);
  CHECK(error_of([&] { io::read_input_file(to_zero, io::k_side_file); }) ==
        to_zero + ": expected a side file, got a character device");
  const std::string loop = (dir.path / "loop.yaml").string();
  fs::create_symlink(loop, loop);
  CHECK(error_of([&] { io::read_input_file(loop, io::k_side_file); }) ==
        loop + ": cannot read side file: Too many levels of symbolic links");
}

TEST_CASE("io::read_input_file: a file over its kind's limit is refused before it is read", "[io][input]")
{
  const test::TempDir dir;
  constexpr io::InputKind small{"test input", io::k_mib};
  const std::string exact = dir.write("exact", std::string(io::k_mib, 'a'));
  CHECK(io::read_input_file(exact, small).size() == io::k_mib);
  const std::string over = dir.write("over", std::string(io::k_mib + 1, 'a'));
  CHECK(error_of([&] { io::read_input_file(over, small); }) ==
        over + ": expected a test input of at most 1 MiB, got 1048577 bytes");
  // The real limits, on sparse files that take no disk space.
  const std::string side = sparse_file(dir, "big.yaml", 16 * io::k_mib, "x");
  CHECK(error_of([&] { io::read_input_file(side, io::k_side_file); }) ==
        side + ": expected a side file of at most 16 MiB, got 16777217 bytes");
  const std::string capture = sparse_file(dir, "big.json", 256 * io::k_mib, "x");
  CHECK(error_of([&] { io::load_capture(capture); }) ==
        capture + ": expected a capture file of at most 256 MiB, got 268435457 bytes");
}

TEST_CASE("io: every reader of whole files goes through the checks", "[io][input]")
{
  const test::TempDir dir;
  // A model directory whose config.json is a symlink to /dev/zero.
  fs::create_directories(dir.path / "model");
  fs::create_symlink("/dev/zero", dir.path / "model" / "config.json");
  const std::string config = (dir.path / "model" / "config.json").string();
  CHECK(error_of([&] { io::load_model("model", dir.path.string()); }) ==
        config + ": expected a model config, got a character device");
  const std::string side = dir.write("side.yaml", "role: prefill\nmodel: model\nargs: \"--tp 1\"\n");
  CHECK(error_of([&] { io::load_side_file(side); }) == config + ": expected a model config, got a character device");
  // A model reference that is a symlink loop says so, not "no such model".
  fs::create_symlink(dir.path / "looped", dir.path / "looped");
  CHECK(error_of([&] { io::load_model("looped", dir.path.string()); }) ==
        (dir.path / "looped").string() + ": cannot read model config: Too many levels of symbolic links");
  // --config files of SGLang's launch arguments.
  fs::create_symlink("/dev/zero", dir.path / "launch.yaml");
  const std::string with_config = dir.write("with-config.yaml", "role: prefill\nmodel: falcon-h1-1.5b\nargs: \"--config launch.yaml\"\n");
  CHECK(error_of([&] { io::load_side_file(with_config); }) ==
        (dir.path / "launch.yaml").string() + ": expected a SGLang config file, got a character device");
}

TEST_CASE("io: JSON inputs nested deeper than 64 levels are refused before they are parsed", "[io][input]")
{
  const test::TempDir dir;
  const std::string capture = dir.write("deep.json", "{\"frames_base64\":\n " + std::string(io::k_mib, '[') + "\n}");
  CHECK(error_of([&] { io::load_capture(capture); }) ==
        capture + ":2:65: JSON nested deeper than the limit of 64 levels");
  fs::create_directories(dir.path / "deep");
  dir.write("deep/config.json", std::string(100, '[') + std::string(100, ']'));
  CHECK(error_of([&] { io::load_model("deep", dir.path.string()); }) ==
        (dir.path / "deep" / "config.json").string() + ":1:65: JSON nested deeper than the limit of 64 levels");
}

TEST_CASE("io::read_log_chunks: a line over the limit is cut, and the lines after it are still read", "[io][input][explain]")
{
  const test::TempDir dir;
  const std::string long_line(100, 'L');
  const std::string text = "first\n" + long_line + "\nafter\n" + std::string(30, 'T') + "\nlast";
  const std::string path = dir.write("cut.log", text);
  const std::string expected = "first\n" + std::string(16, 'L') + "\nafter\n" + std::string(16, 'T') + "\nlast";
  // The same lines whatever the chunk size: the cut never depends on where a
  // read happened to end.
  for (const std::size_t chunk : {std::size_t{17}, std::size_t{20}, std::size_t{33}, std::size_t{64}, std::size_t{4096}}) {
    INFO("chunk " << chunk);
    const LogRead r = read_log(path, chunk, 16);
    CHECK(r.text() == expected);
    CHECK(r.summary.cut_lines == 2);
    CHECK(r.summary.first_cut_line == 2);
    for (std::size_t i = 0; i + 1 < r.chunks.size(); ++i) {
      CHECK(r.chunks[i].back() == '\n');
    }
  }
  // A line exactly at the limit is whole.
  const LogRead at_limit = read_log(dir.write("limit.log", std::string(16, 'x') + "\nok\n"), 20, 16);
  CHECK(at_limit.text() == std::string(16, 'x') + "\nok\n");
  CHECK(at_limit.summary.cut_lines == 0);
  CHECK(at_limit.summary.first_cut_line == 0);
}

TEST_CASE("io::read_log_chunks: random lines read as the line-by-line rule says, whatever the chunk size",
          "[io][input][explain]")
{
  // The reader skips through each window of max_line_bytes + 1 bytes at once;
  // the rule it must keep is per line: a line longer than the limit becomes
  // its first max_line_bytes bytes and a newline, the rest is read as is.
  const test::TempDir dir;
  std::mt19937 rng(1204);
  for (int round = 0; round < 300; ++round) {
    const std::size_t limit = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    std::string text;
    const int lines = std::uniform_int_distribution<int>(0, 30)(rng);
    for (int l = 0; l < lines; ++l) {
      text += std::string(std::uniform_int_distribution<std::size_t>(0, 2 * limit + 3)(rng), 'a' + l % 26);
      if (l + 1 < lines || rng() % 2 == 0) {
        text += '\n';
      }
    }
    std::string expected;
    std::int64_t cut = 0;
    std::int64_t first_cut = 0;
    std::int64_t number = 0;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t nl = std::min(text.find('\n', at), text.size());
      number += 1;
      if (nl - at > limit) {
        expected += text.substr(at, limit) + "\n";
        cut += 1;
        first_cut = first_cut == 0 ? number : first_cut;
      } else {
        expected += text.substr(at, nl + 1 - at);
      }
      at = nl + 1;
    }
    const std::string path = dir.write("random.log", text.empty() ? std::string("\n") : text);
    if (text.empty()) {
      continue; // an empty file is refused as not text elsewhere; nothing to compare
    }
    const std::size_t chunk = std::uniform_int_distribution<std::size_t>(limit + 1, 4 * limit + 8)(rng);
    INFO("limit " << limit << " chunk " << chunk << " text '" << text << "'");
    const LogRead r = read_log(path, chunk, limit);
    CHECK(r.text() == expected);
    CHECK(r.summary.cut_lines == cut);
    CHECK(r.summary.first_cut_line == first_cut);
  }
}

TEST_CASE("io::read_log_chunks: pipes are logs, devices and directories are not", "[io][input][explain]")
{
  const test::TempDir dir;
  CHECK(error_of([] { io::read_log_chunks("/dev/zero", [](std::string_view) {}); }) ==
        "/dev/zero: expected a log file or a pipe, got a character device");
  CHECK(error_of([&] { io::read_log_chunks(dir.path.string(), [](std::string_view) {}); }) ==
        dir.path.string() + ": cannot read log: Is a directory");
  const std::string fifo = (dir.path / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread writer([&] {
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    const std::string line = "from a pipe\n";
    CHECK(::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()));
    ::close(fd);
  });
  const LogRead r = read_log(fifo, 4096, 1024);
  writer.join();
  CHECK(r.text() == "from a pipe\n");
}

TEST_CASE("pdcheck layout, decode and explain refuse devices in one line", "[io][input][layout][decode][explain]")
{
  const auto layout = test::run_pdcheck("layout /dev/zero");
  CHECK(layout.code == 2);
  CHECK(layout.out == "pdcheck: error: /dev/zero: expected a side file, got a character device\n");
  const auto decode = test::run_pdcheck("decode /dev/zero");
  CHECK(decode.code == 2);
  CHECK(decode.out == "pdcheck: error: /dev/zero: expected a capture file, got a character device\n");
  const auto explain = test::run_pdcheck("explain /dev/zero");
  CHECK(explain.code == 2);
  CHECK(explain.out == "pdcheck: error: /dev/zero: expected a log file or a pipe, got a character device\n");

  const test::TempDir dir;
  fs::create_directories(dir.path / "model");
  fs::create_symlink("/dev/zero", dir.path / "model" / "config.json");
  const auto model = test::run_pdcheck(fmt::format("layout --model {} --tp 1", (dir.path / "model").string()));
  CHECK(model.code == 2);
  CHECK(model.out == fmt::format("pdcheck: error: {}: expected a model config, got a character device\n",
                                 (dir.path / "model" / "config.json").string()));
}

TEST_CASE("pdcheck explain: a symlink loop named like a rule id is a file that cannot be read", "[io][input][explain]")
{
  const test::TempDir dir;
  fs::create_symlink("loop", dir.path / "loop");
  // From inside the directory: "loop" has neither '/' nor '.', the shape of a rule id.
  const auto r = test::run_command(fmt::format("cd {} && {} explain loop", dir.path.string(), PDCHECK_BINARY));
  CHECK(r.code == 2);
  CHECK(r.out == "pdcheck: error: loop: cannot open log: Too many levels of symbolic links\n");
}

TEST_CASE("pdcheck explain: 2 GiB without a newline is cut to 1 MiB and the failure after it is found", "[io][input][explain]")
{
  const test::TempDir dir;
  const std::string log = sparse_file(dir, "no-newline.log", off_t{2} << 30,
                                      "\nE Transfer submission failed: PD state transfer failed: mamba requires single "
                                      "state index, got src=1, dst=2\n");
  // Text first (a file of zeros is binary, refused by the test below): the hole after
  // it only lengthens the first line.
  const std::string head(8192, 'x');
  {
    const int fd = ::open(log.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()));
    ::close(fd);
  }
  const auto r = test::run_pdcheck(fmt::format("explain {} --format json", log));
  CHECK(r.code == 1);
  CHECK(r.out.rfind(fmt::format("pdcheck: note: {}:1: line longer than 1 MiB; only its first 1 MiB was scanned\n", log),
                    0) == 0);
  CHECK(r.out.find("\"rule\": \"mori-single-state-index\"") != std::string::npos);
  CHECK(r.out.find("\"line\": 2") != std::string::npos);
}

TEST_CASE("io::read_log_chunks: input whose first bytes are not text is refused before any is handed on",
          "[io][input][explain]")
{
  const test::TempDir dir;
  const std::string zeros = sparse_file(dir, "zeros.log", off_t{1} << 20, "\nlast\n");
  std::size_t handed_on = 0;
  CHECK(error_of([&] { io::read_log_chunks(zeros, [&](std::string_view c) { handed_on += c.size(); }); }) ==
        zeros + ": expected a text log (plain or JSON lines), got binary data (a NUL byte at offset 0)");
  CHECK(handed_on == 0);
  // A NUL past the first 4 KiB is not looked for: the line is read as it is.
  const std::string late = dir.write("late.log", std::string(4096, 'a') + "\n" + std::string(1, '\0') + "\n");
  CHECK(read_log(late, 4096, 8192).text() == std::string(4096, 'a') + "\n" + std::string(1, '\0') + "\n");
  // A short text log is read whole, cut as usual.
  CHECK(read_log(dir.write("short.log", "one\n" + std::string(20, 'L') + "\nthree"), 17, 16).text() ==
        "one\n" + std::string(16, 'L') + "\nthree");
}

TEST_CASE("io: JSON with more values than its kind holds is refused before it is parsed", "[io][input][decode]")
{
  // 2 bytes of text per node of 16: 64 MiB of "0," would be a 512 MiB tree.
  const test::TempDir dir;
  std::string text = "{\"frames_base64\": [";
  text.reserve((2u << 20) + 64);
  for (std::size_t i = 0; i < io::k_mib; ++i) {
    text += "0,";
  }
  text += "0]}";
  const std::string capture = dir.write("many.json", text);
  CHECK(error_of([&] { io::load_capture(capture); }) ==
        capture + ": expected a capture file of at most 1048576 JSON values, got 1048579");
  text.replace(0, std::string_view("{\"frames_base64\"").size(), "{\"layer_types\"");
  const std::string config = dir.write("many/config.json", text);
  CHECK(error_of([&] { io::load_model("many", dir.path.string()); }) ==
        config + ": expected a model config of at most 1048576 JSON values, got 1048579");
}

TEST_CASE("pdcheck decode: memory that runs out while reading is exit 3 naming the file, not an internal error",
          "[io][input][decode]")
{
#if defined(__SANITIZE_ADDRESS__)
  WARN("skipped: AddressSanitizer reserves more address space than the ulimit this test sets");
#else
  const test::TempDir dir;
  // 200 MiB, within the capture limit, in a process allowed 150 MiB of address space.
  const std::string capture = sparse_file(dir, "big.json", 200 * io::k_mib - 1, "}");
  const auto r = test::run_command(fmt::format("ulimit -v 153600 && {} decode {}", PDCHECK_BINARY, capture));
  CHECK(r.code == 3);
  CHECK(r.out == fmt::format("pdcheck: cannot run: {}: out of memory reading the capture file (209715200 bytes)\n",
                             capture));
#endif
}
