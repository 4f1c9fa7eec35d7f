// Pre-forked worker processes (docs/studies.md, "Isolation"): each worker runs many cases
// in its own process and reports a row per case through a pipe, so a case that crashes takes
// down only its worker and a case that hangs is killed at the time limit; either way the
// worker is replaced and the case becomes a failed row.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <string>

#include "joinery/study/exit_codes.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/study/study.hpp"

namespace joinery::study {

using Clock = std::chrono::steady_clock;

struct WorkerPool::Worker {
  pid_t pid = -1;
  int toFd = -1, fromFd = -1;
  std::string buffer;
  std::deque<Case> queue;         ///< sent, not answered; the front one is running (copies:
                                  ///< cases are made on demand, Cases)
  Clock::time_point started;      ///< when the front case started
};

namespace {
/// Cases sent ahead to each worker: the next case is waiting in the pipe when a row is
/// written, so the worker never idles while the parent is being scheduled.
constexpr std::size_t kDepth = 2;
}  // namespace

namespace {

bool writeAll(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// The worker process: reads case numbers, one a line, writes a row a line; exits at EOF.
[[noreturn]] void workerMain(const Study& study, const CaseOptions& options, int in, int out) {
  std::FILE* f = ::fdopen(in, "r");
  char* line = nullptr;
  std::size_t cap = 0;
  while (f && ::getline(&line, &cap, f) > 0) {
    const long index = std::strtol(line, nullptr, 10);
    if (index < 0 || index >= study.cases.size()) break;
    const Row row = runCase(study, study.cases[index], options);
    if (!writeAll(out, encodeRow(row) + "\n")) break;
  }
  ::_exit(0);  // no atexit handlers, no flushing of the parent's buffers
}

std::string describeStatus(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "crashed: its worker process died of signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status))
    return "crashed: its worker process exited with status " + std::to_string(WEXITSTATUS(status));
  return "crashed: its worker process stopped";
}

}  // namespace

WorkerPool::WorkerPool(const Study& study, const CaseOptions& options, int workers, double timeLimit)
    : study_(study), options_(options), timeLimit_(timeLimit) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe: the write fails, collect() reports it
  workers_.resize(static_cast<std::size_t>(std::max(1, workers)));
  for (auto& w : workers_) spawn(w);
}

WorkerPool::~WorkerPool() {
  for (auto& w : workers_) {
    if (!w.queue.empty() && w.pid > 0) ::kill(w.pid, SIGKILL);
    if (w.toFd >= 0) ::close(w.toFd);  // the worker sees EOF and exits
  }
  for (auto& w : workers_) {
    if (w.pid > 0) ::waitpid(w.pid, nullptr, 0);
    if (w.fromFd >= 0) ::close(w.fromFd);
  }
}

void WorkerPool::spawn(Worker& w) {
  int to[2], from[2];
  if (::pipe(to) != 0) throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (::pipe(from) != 0) {
    ::close(to[0]), ::close(to[1]);
    throw Error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("cannot start a worker process: ") + std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the study
    if (::getppid() != parent) ::_exit(0);
    for (auto& other : workers_) {  // keep only this worker's pipe ends
      if (other.toFd >= 0) ::close(other.toFd);
      if (other.fromFd >= 0) ::close(other.fromFd);
    }
    ::close(to[1]);
    ::close(from[0]);
    ::signal(SIGPIPE, SIG_DFL);
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL})  // no inherited crash handlers (MPI's)
      ::signal(sig, SIG_DFL);
    workerMain(study_, options_, to[0], from[1]);
  }
  ::close(to[0]);
  ::close(from[1]);
  ::fcntl(from[0], F_SETFD, FD_CLOEXEC);
  ::fcntl(to[1], F_SETFD, FD_CLOEXEC);
  w.pid = pid;
  w.toFd = to[1];
  w.fromFd = from[0];
  w.buffer.clear();
  w.started = Clock::now();
  for (const Case& c : w.queue)  // cases queued behind a crashed one go to the new worker
    (void)writeAll(w.toFd, std::to_string(c.index) + "\n");
}

void WorkerPool::retire(Worker& w, int exit, const std::string& message, std::vector<Row>& out) {
  if (!w.queue.empty()) {
    const Case c = std::move(w.queue.front());
    w.queue.pop_front();
    Row r;
    r.caseIndex = c.index;
    r.values = c.values;
    r.exit = exit;
    r.message = message;
    out.push_back(std::move(r));
  }
  ::close(w.toFd);
  ::close(w.fromFd);
  w.toFd = w.fromFd = -1;
  w.pid = -1;
  spawn(w);
}

bool WorkerPool::hasIdle() const {
  for (const auto& w : workers_)
    if (w.queue.size() < kDepth) return true;
  return false;
}

int WorkerPool::busy() const {
  std::size_t n = 0;
  for (const auto& w : workers_) n += w.queue.size();
  return static_cast<int>(n);
}

void WorkerPool::submit(const Case& c) {
  Worker* best = nullptr;  // the worker with the fewest cases queued
  for (auto& w : workers_)
    if (w.queue.size() < kDepth && (!best || w.queue.size() < best->queue.size())) best = &w;
  if (!best) throw Error("WorkerPool::submit: no idle worker");
  if (best->queue.empty()) best->started = Clock::now();
  best->queue.push_back(c);
  (void)writeAll(best->toFd, std::to_string(c.index) + "\n");  // a dead worker shows as EOF in collect()
}

std::vector<Row> WorkerPool::collect(double seconds) {
  std::vector<Row> out;
  const auto now = Clock::now();
  double wait = seconds;
  std::vector<pollfd> fds;
  std::vector<Worker*> who;
  for (auto& w : workers_) {
    if (w.queue.empty()) continue;
    if (timeLimit_ > 0) {
      const double used = std::chrono::duration<double>(now - w.started).count();
      wait = std::min(wait, std::max(0.0, timeLimit_ - used));
    }
    fds.push_back({w.fromFd, POLLIN, 0});
    who.push_back(&w);
  }
  if (fds.empty()) return out;
  const int ms = static_cast<int>(std::ceil(std::max(0.0, wait) * 1000.0));
  const int ready = ::poll(fds.data(), fds.size(), ms);
  if (ready < 0 && errno != EINTR) throw Error(std::string("poll failed: ") + std::strerror(errno));
  for (std::size_t i = 0; ready > 0 && i < fds.size(); ++i) {
    if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    Worker& w = *who[i];
    char buf[65536];
    const ssize_t n = ::read(w.fromFd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {  // the worker died
      int status = 0;
      ::waitpid(w.pid, &status, 0);
      retire(w, kExitInternal, describeStatus(status), out);
      continue;
    }
    w.buffer.append(buf, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = w.buffer.find('\n')) != std::string::npos) {
      out.push_back(decodeRow(w.buffer.substr(0, nl)));
      w.buffer.erase(0, nl + 1);
      if (!w.queue.empty()) w.queue.pop_front();
      w.started = Clock::now();  // the next queued case starts now
    }
  }
  if (timeLimit_ > 0) {
    const auto later = Clock::now();
    for (auto& w : workers_) {
      if (w.queue.empty() || std::chrono::duration<double>(later - w.started).count() < timeLimit_) continue;
      ::kill(w.pid, SIGKILL);
      ::waitpid(w.pid, nullptr, 0);
      char msg[96];
      std::snprintf(msg, sizeof msg, "timed out: stopped after the time limit of %g s per case", timeLimit_);
      retire(w, kExitRunFailed, msg, out);
    }
  }
  return out;
}

}  // namespace joinery::study
