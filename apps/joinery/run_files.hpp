#pragma once
// Safe outputs and clean interruption of the runs of the joinery program
// (docs/outputs.md "When a run fails or is interrupted"):
//  - an output file is written under a temporary name in its own folder (OUT.partial) and
//    renamed over OUT when the run has written something; devices and pipes are written
//    directly;
//  - an output that is one of the inputs (any spelling, symbolic or hard link) is refused
//    before anything is written;
//  - SIGTERM and SIGINT set a flag the run reads after every step (RunOptions::interrupt):
//    the run stops there, closes its outputs and exits with 128 + the signal's number.
#include <sys/types.h>

#include <csignal>
#include <string>
#include <utility>
#include <vector>

namespace joinery::cli {

/// One output file: writePath() is where to write; commit() moves it into place, discard()
/// removes it (the destructor discards what was neither committed nor discarded).
class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  const std::string& path() const noexcept { return path_; }
  /// `path() + ".partial.XXXXXX"` for a regular file (or a new one): a new file of a unique
  /// name made by the constructor (O_CREAT|O_EXCL, never a planted link, never another run's);
  /// path() itself for a device, a pipe or another special file, which cannot be replaced by a
  /// rename. When path() is a symbolic link, the file it points to (plus the suffix): the
  /// rename replaces that file and the link stays a link.
  /// @throws InputError (from the constructor) when the temporary file cannot be made.
  const std::string& writePath() const noexcept { return writePath_; }
  /// Renames writePath() over path(). @throws InputError naming both when it cannot, or when
  /// writePath() is no longer the file the constructor made (replaced during the run).
  void commit();
  /// Removes writePath() (nothing when it is path() itself, or no longer the file made for it);
  /// an existing path() is untouched.
  void discard() noexcept;

 private:
  bool stillOurs() const noexcept;
  std::string path_, target_, writePath_;
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  bool done_ = false;
};

/// @throws UsageError when `output` (given to `option`) is the same file as one of `inputs`
/// (compared as files: other spellings, symbolic and hard links are caught).
void refuseOutputOverInput(const std::string& output, const std::string& option,
                           const std::vector<std::string>& inputs);

/// @throws UsageError when two of `outputs` (option, file) are one file (a device or pipe may
/// be given to several).
void refuseSharedOutputs(const std::vector<std::pair<std::string, std::string>>& outputs);

/// Writes `text` to `path` under a temporary name and renames it into place.
/// @throws InputError when the file cannot be written (the message says why).
void writeFileAtomically(const std::string& path, const std::string& text, const char* what);

/// Installs the SIGTERM, SIGINT and SIGHUP handlers: the first signals set the flag the run
/// reads (a repeated one, as GNU timeout sends, is not fatal); a third ends the process at once.
/// Also ignores SIGXFSZ (ignoreFileSizeSignal).
void installInterruptHandlers();
/// SIGXFSZ ignored: a write past the file size limit fails (EFBIG) and is reported.
void ignoreFileSizeSignal() noexcept;
/// The flag for RunOptions::interrupt: 0, or the number of the signal received.
const volatile std::sig_atomic_t* interruptFlag() noexcept;
/// The signal received (0: none).
int interruptSignal() noexcept;
/// "SIGTERM", "SIGINT" or "signal N".
std::string signalName(int sig);

}  // namespace joinery::cli
