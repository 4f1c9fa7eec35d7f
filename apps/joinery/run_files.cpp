#include "run_files.hpp"

#include <cerrno>
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

extern "C" void onInterrupt(int sig) { gSignal = sig; }

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (writesInPlace(path_)) {
    target_ = writePath_ = path_;
  } else {
    target_ = renameTarget(path_);
    writePath_ = target_ + ".partial";
  }
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::commit() {
  if (done_) return;
  done_ = true;
  if (writePath_ == target_) return;
  std::error_code ec;
  fs::rename(writePath_, target_, ec);
  if (ec) throw InputError("cannot rename " + writePath_ + " to the output file: " + ec.message(), path_);
}

void OutputFile::discard() noexcept {
  if (done_) return;
  done_ = true;
  if (writePath_ == target_) return;
  std::error_code ec;
  fs::remove(writePath_, ec);
}

void refuseOutputOverInput(const std::string& output, const std::string& option,
                           const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::equivalent(output, in, ec) && !ec)
      throw UsageError{option + " '" + output + "' is the input file '" + in +
                       "': refusing to overwrite an input (nothing was written)"};
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
  sa.sa_flags = SA_RESETHAND;  // the second signal has its default effect: the process ends
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

const volatile std::sig_atomic_t* interruptFlag() noexcept { return &gSignal; }

int interruptSignal() noexcept { return static_cast<int>(gSignal); }

std::string signalName(int sig) {
  if (sig == SIGTERM) return "SIGTERM";
  if (sig == SIGINT) return "SIGINT";
  return "signal " + std::to_string(sig);
}

}  // namespace joinery::cli
