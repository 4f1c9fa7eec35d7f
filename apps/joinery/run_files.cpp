#include "run_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli.hpp"
#include "joinery/core/errors.hpp"

namespace joinery::cli {

namespace fs = std::filesystem;

namespace {

bool writesInPlace(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symbolic links
  return !ec && fs::exists(st) && !fs::is_regular_file(st);
}

/// The file a rename must replace: `path` itself, or, when `path` is a symbolic link (a chain
/// of them), the file it finally points to, so that the link stays a link.
std::string renameTarget(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  for (int hop = 0; hop < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hop) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

volatile std::sig_atomic_t gSignal = 0;
volatile std::sig_atomic_t gSignalCount = 0;

/// The first signals (GNU timeout sends SIGTERM twice: to the process, then to its group) set
/// the flag the run reads; the third ends the process at once, for a run that stops reading it.
extern "C" void onInterrupt(int sig) {
  if (gSignal == 0) gSignal = sig;
  gSignalCount = gSignalCount + 1;  // (++ on a volatile is deprecated)
  if (gSignalCount >= 3) {
    static const char msg[] = "joinery: a third interrupt: ending at once (outputs left as .partial files)\n";
    (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(128 + sig);
  }
}

/// The same file (device and inode)?
bool sameFile(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

/// The normalized absolute spelling of `path`, following the links of its existing part; for
/// comparing files that may not exist yet.
fs::path spelling(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (writesInPlace(path_)) {
    target_ = writePath_ = path_;
  } else {
    target_ = renameTarget(path_);
    // a unique name made with O_CREAT|O_EXCL (mkstemp): a link planted at the name is never
    // followed, and two runs with the same output never share their temporary file
    std::string name = target_ + ".partial.XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) {
      const int err = errno;
      throw InputError(std::string("cannot open the output file for writing (its temporary file ") + name + "): " +
                           std::strerror(err),
                       path_);
    }
    const mode_t mask = ::umask(0);
    ::umask(mask);
    (void)::fchmod(fd_, 0666 & ~mask);  // mkstemp makes 0600; an output gets the mode a new file would
    struct stat st {};
    if (::fstat(fd_, &st) == 0) dev_ = st.st_dev, ino_ = st.st_ino;
    writePath_ = std::move(name);
  }
}

OutputFile::~OutputFile() { discard(); }

bool OutputFile::stillOurs() const noexcept {
  struct stat st {};
  return ::lstat(writePath_.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev_ && st.st_ino == ino_;
}

void OutputFile::commit() {
  if (done_) return;
  done_ = true;
  if (writePath_ == target_) return;
  if (fd_ >= 0) ::close(fd_), fd_ = -1;
  if (!stillOurs())
    throw InputError("the temporary file " + writePath_ + " was replaced by another file during the run; " +
                         "the output was not renamed into place",
                     path_);
  std::error_code ec;
  fs::rename(writePath_, target_, ec);
  if (ec) throw InputError("cannot rename " + writePath_ + " to the output file: " + ec.message(), path_);
}

void OutputFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  if (writePath_ == target_) return;
  if (fd_ >= 0) ::close(fd_), fd_ = -1;
  if (stillOurs()) ::unlink(writePath_.c_str());  // only the file this run made
}

namespace {
/// Whether `a` and `b` name one file: the same inode when both exist (hard links too), else
/// the same spelling once normalized and the links of its existing part followed.
bool sameOutputFile(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty() || a == "-" || b == "-") return false;
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sameFile(sa, sb);
  return spelling(a) == spelling(b);
}
}  // namespace

void refuseOutputOverInput(const std::string& output, const std::string& option,
                           const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  struct stat so {};
  if (::stat(output.c_str(), &so) == 0 && !S_ISREG(so.st_mode)) return;  // /dev/null, /dev/full, a pipe
  for (const std::string& in : inputs) {
    if (sameOutputFile(output, in))
      throw UsageError{option + " '" + output + "' is the input file '" + in +
                       "': refusing to overwrite an input (nothing was written)"};
  }
}

void refuseSharedOutputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    struct stat so {};
    if (::stat(outputs[i].second.c_str(), &so) == 0 && !S_ISREG(so.st_mode)) continue;  // a device or a pipe
    for (std::size_t k = 0; k < i; ++k)
      if (sameOutputFile(outputs[i].second, outputs[k].second))
        throw UsageError{outputs[i].first + " '" + outputs[i].second + "' is also the file of " + outputs[k].first +
                         " ('" + outputs[k].second + "'): refusing to write two outputs to one file (nothing was written)"};
  }
}

void writeFileAtomically(const std::string& path, const std::string& text, const char* what) {
  OutputFile file(path);
  {
    std::ofstream f(file.writePath(), std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(std::string("cannot open the ") + what + " for writing: " + std::strerror(errno), path);
    errno = 0;
    f << text;
    f.close();
    if (!f) {
      const int err = errno;
      throw InputError(std::string("could not write the ") + what + (err ? std::string(": ") + std::strerror(err) : ""),
                       path);
    }
  }
  file.commit();
}

void installInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = onInterrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // the handler stays: a repeated signal is counted, not fatal (onInterrupt)
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // the terminal closed: stop as for SIGTERM
  ignoreFileSizeSignal();
}

void ignoreFileSizeSignal() noexcept {
  // past a file size limit (ulimit -f) a write then fails with EFBIG, reported as a full disk is
  // (exit 5, whole rows kept), instead of SIGXFSZ killing the process mid-row
  std::signal(SIGXFSZ, SIG_IGN);
}

const volatile std::sig_atomic_t* interruptFlag() noexcept { return &gSignal; }

int interruptSignal() noexcept { return static_cast<int>(gSignal); }

std::string signalName(int sig) {
  if (sig == SIGTERM) return "SIGTERM";
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGHUP) return "SIGHUP";
  return "signal " + std::to_string(sig);
}

}  // namespace joinery::cli
