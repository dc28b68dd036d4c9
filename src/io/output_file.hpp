#pragma once

// Every file pdcheck writes (check --output, encode --out, capture --out) goes
// through here, so that an interrupted or failed run never leaves a partial
// file for a CI job to read as a report: the bytes go to a hidden temporary
// file next to the target, which rename(2) then puts in place in one step. A
// SIGINT or SIGTERM on the way removes the temporary file (exit_on_signal).

#include <string>
#include <string_view>

namespace pdcheck::io {

/// One output file being written. Nothing is visible at `path` until commit();
/// a file already there keeps its old contents until then (and its mode after).
/// Destroyed uncommitted (an exception on the way), the temporary file is
/// removed. A path that exists and is not a regular file (a FIFO, /dev/stdout, a
/// terminal) is written in place: there is nothing to rename onto, and nothing
/// partial is left behind in a file system.
class OutputFile
{
public:
  /// Throws InputError(`where`, "cannot write: <reason>") when the file (or its
  /// temporary) cannot be created.
  OutputFile(std::string path, std::string where);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Throws InputError(`where`, ...) on a write error (a full disk, EIO).
  void write(std::string_view bytes);
  /// Puts the file in place. Throws InputError(`where`, ...) when it cannot.
  void commit();

  /// The temporary file being written ("" when written in place or committed).
  const std::string& temporary_path() const { return m_temp; }

private:
  void discard() noexcept;

  std::string m_path;  ///< where the file ends up (symlinks resolved)
  std::string m_where; ///< names the file in errors: "--output PATH", the path
  std::string m_temp;
  int m_fd = -1;
  int m_slot = -1; ///< index in the interrupt registry while m_temp exists
};

/// The whole file at once: OutputFile, write, commit.
void write_output_file(const std::string& path, std::string_view bytes, const std::string& where);

/// Installs a handler for `signo` (SIGINT, SIGTERM) that removes every
/// temporary file being written and ends the process with `exit_status` (the
/// handler calls only unlink(2) and _exit(2), both async-signal-safe). Every
/// wait (a probe's accept, a bootstrap server that never answers) ends with it.
/// A signal that was ignored when pdcheck started (SIGINT for a background job
/// of a script) stays ignored.
void exit_on_signal(int signo, int exit_status);

} // namespace pdcheck::io
