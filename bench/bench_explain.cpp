// `pdcheck explain LOG` throughput: generates a realistic SGLang server log
// (timestamps, batch lines, HTTP access lines, a PD failure with traceback every
// ~20k lines) in a temporary file, scans it through the same reader and matcher
// the CLI uses, and prints MB/s. Anchor, on the same file in the same run:
// `grep -E -c -f PATTERNS` with one extended regex per SGLang text that explain
// knows (its literal pieces, placeholders as .*); goal: explain >= 2x grep.
// Second anchor: grep with the words explain's own filter searches for (the
// error and PD words that make a line worth matching, short ones included).
//   bench_explain [MEGABYTES=1024]
#include "check/log_explain.hpp"
#include "io/log_reader.hpp"
#include "core/sglang_messages.hpp"

#include "bench_child.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

/// One ERE per SGLang text: literal pieces escaped, placeholders as ".*".
std::string patterns_file()
{
  const std::string path = "/tmp/pdcheck-bench-explain-patterns-" + std::to_string(getpid());
  std::ofstream out(path);
  for (const pdcheck::SglangMessage& m : pdcheck::sglang_messages()) {
    std::string re;
    for (const pdcheck::TemplatePiece& piece : pdcheck::message_pieces(m.handle)) {
      if (piece.type != pdcheck::TemplatePiece::Type::literal) {
        re += ".*";
        continue;
      }
      for (char c : piece.literal) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) {
          re += '\\';
        }
        re += c;
      }
    }
    out << re << '\n';
  }
  return path;
}

/// The words of explain's filter, one fixed string a line.
std::string trigger_words_file()
{
  const std::string path = "/tmp/pdcheck-bench-explain-words-" + std::to_string(getpid());
  std::ofstream out(path);
  for (std::string_view w : pdcheck::check::explain_trigger_words()) {
    out << w << '\n';
  }
  return path;
}

} // namespace

int main(int argc, char** argv)
{
  const std::int64_t megabytes = argc > 1 ? std::atoll(argv[1]) : 1024;
  const std::int64_t target = megabytes << 20;
  char path[] = "/tmp/pdcheck-bench-explain-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    std::perror("mkstemp");
    return 1;
  }
  FILE* f = fdopen(fd, "w");

  std::string items;
  for (int i = 0; i < 72; ++i) {
    items += (i ? ", " : "") + std::to_string(i < 36 ? 49152 : 2097152);
  }
  const std::string failure =
    "[2025-11-03 09:15:12 TP0] Exception in transfer worker:\nTraceback (most recent call last):\n"
    "  File \"/sglang/srt/disaggregation/mooncake/conn.py\", line 871, in maybe_send_extra\n    raise RuntimeError(\n"
    "RuntimeError: Mamba state layouts differ between prefill and decode (src item_lens=[" + items +
    "], dst item_lens=[77266944]) and no per-tensor dim metadata is available to reslice. With "
    "--enable-unified-memory, prefill and decode must both enable it and use equal attention TP sizes.\n";
  std::int64_t written = 0;
  std::int64_t lines = 0;
  std::int64_t failures = 0;
  std::string block;
  while (written < target) {
    block.clear();
    for (int i = 0; i < 1000; ++i, ++lines) {
      const int s = static_cast<int>(lines % 60);
      switch (lines % 4) {
      case 0:
        block += fmt::format("[2025-11-03 09:{:02}:{:02} TP{}] Prefill batch. #new-seq: 1, #new-token: {}, #cached-token: "
                             "{}, token usage: 0.{:02}, #running-req: {}, #queue-req: 0\n",
                             s, (s * 7) % 60, lines % 8, 512 + lines % 997, lines % 128, lines % 100, lines % 16);
        break;
      case 1:
        block += fmt::format("[2025-11-03 09:{:02}:{:02} TP{}] Decode batch. #running-req: {}, #token: {}, token usage: "
                             "0.{:02}, cuda graph: True, gen throughput (token/s): {}.{:02}, #queue-req: 0\n",
                             s, (s * 3) % 60, lines % 8, lines % 64, 4096 + lines % 4001, lines % 100, 700 + lines % 300,
                             lines % 100);
        break;
      case 2:
        block += fmt::format("[2025-11-03 09:{:02}:{:02}] INFO:     10.0.{}.{}:{} - \"POST /generate HTTP/1.1\" 200 OK\n",
                             s, (s * 11) % 60, lines % 255, lines % 253, 40000 + lines % 20000);
        break;
      default:
        block += fmt::format("[2025-11-03 09:{:02}:{:02} TP{}] KV transfer of request {} to decode 10.0.1.{}:8998 done "
                             "in {} ms ({} bytes of state)\n",
                             s, (s * 13) % 60, lines % 8, lines, lines % 250, lines % 37, 77266944);
      }
    }
    if (lines % 20000 == 0) {
      block += failure;
      ++failures;
    }
    std::fwrite(block.data(), 1, block.size(), f);
    written += static_cast<std::int64_t>(block.size());
  }
  std::fclose(f);

  // Drop what the generator left in the page cache as far as we can: the figure
  // is for a log that was just written (warm cache), which is also the usual case.
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  pdcheck::check::LogScanner scanner(path);
  pdcheck::io::read_log_chunks(path, [&](std::string_view chunk) { scanner.feed(chunk); });
  pdcheck::check::LogExplanation result;
  scanner.finish(result);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // CPU seconds too: on a shared machine the wall-clock figure measures the neighbours.
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  const std::string patterns = patterns_file();
  const auto grep = pdcheck::bench::run_child({"grep", "-E", "-c", "-f", patterns, path});
  const std::string words = trigger_words_file();
  const auto grep_words = pdcheck::bench::run_child({"grep", "-F", "-c", "-f", words, path});
  std::filesystem::remove(patterns);
  std::filesystem::remove(words);
  std::filesystem::remove(path);

  const double mb = static_cast<double>(written) / (1 << 20);
  const std::int64_t found = result.matches.empty() ? 0 : result.matches.front().count;
  fmt::print("explain: scanned {:.0f} MB ({} lines) in {:.2f} s wall, {:.2f} s CPU: {:.0f} MB/s wall, {:.0f} MB/s CPU; "
             "{} match group(s), {} occurrence(s) of {} planted, {} unrecognised\n",
             mb, lines, seconds, cpu_seconds, mb / seconds, mb / cpu_seconds, result.matches.size(), found, failures,
             result.unrecognised.size());
  if (grep) {
    fmt::print("explain: {:.0f} MB/s CPU; anchor: grep -E -c -f with {} patterns {:.0f} MB/s CPU; ratio {:.2f} "
               "(goal >= 2)\n",
               mb / cpu_seconds, pdcheck::sglang_messages().size(), mb / grep->cpu, grep->cpu / cpu_seconds);
  }
  if (grep_words) {
    fmt::print("explain: {:.0f} MB/s CPU; anchor: grep -F -c -f with the {} words of explain's filter {:.0f} MB/s CPU; "
               "ratio {:.2f}\n",
               mb / cpu_seconds, pdcheck::check::explain_trigger_words().size(), mb / grep_words->cpu,
               grep_words->cpu / cpu_seconds);
  }
  return found == failures && result.unrecognised.empty() ? 0 : 1;
}
