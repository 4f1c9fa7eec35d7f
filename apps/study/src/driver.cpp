// runStudy(): the threaded-equivalent local driver (worker processes on this machine).
#include <algorithm>
#include <chrono>
#include <optional>
#include <filesystem>

#include "joinery/core/errors.hpp"
#include "joinery/study/study.hpp"

namespace joinery::study {

Outcome runStudy(const Study& study, const RunOptions& options) {
  if (options.shardCount < 1 || options.shardIndex < 0 || options.shardIndex >= options.shardCount)
    throw InputError("--shard I/N needs 0 <= I < N");
  if (!options.caseOptions.csvFolder.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(options.caseOptions.csvFolder, ec);
    if (ec) throw InputError("cannot create the folder for the case CSVs: " + ec.message(), options.caseOptions.csvFolder);
  }
  Table table(study, options);
  const auto start = std::chrono::steady_clock::now();
  Progress p;
  p.total = table.outcome().total;
  p.skipped = p.done = table.kept();
  p.failed = table.outcome().failed;
  const auto report = [&] {
    if (!options.progress) return;
    p.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long ran = p.done - p.skipped;
    p.rate = p.elapsed > 0 ? static_cast<double>(ran) / p.elapsed : 0;
    p.remaining = p.rate > 0 ? static_cast<double>(p.total - p.done) / p.rate : 0;
    options.progress(p);
  };
  report();
  const auto interrupted = [&options] { return options.interrupt && *options.interrupt != 0; };
  bool stopped = false;
  if (table.pendingCount() > 0 && !interrupted()) {
    const double limit = options.timeLimit >= 0 ? options.timeLimit : study.timeLimit;
    const int jobs = static_cast<int>(std::max<long>(1, std::min<long>(options.jobs, table.pendingCount())));
    WorkerPool pool(study, options.caseOptions, jobs, limit);
    // cases are made as workers take them (Table::nextPending): never all at once
    while (table.pendingCount() > 0 || pool.busy() > 0) {
      if (interrupted()) {  // the pool's destructor stops the cases still running
        stopped = true;
        break;
      }
      while (table.pendingCount() > 0 && pool.hasIdle()) {
        const std::optional<Case> c = table.nextPending();
        if (!c) break;
        pool.submit(*c);
      }
      for (const Row& r : pool.collect(0.25)) {
        table.add(r);
        ++p.done;
        if (r.exit != 0) ++p.failed;
      }
      report();
    }
  }
  stopped = stopped || (interrupted() && table.pendingCount() > 0);
  table.finish();
  report();
  Outcome o = table.outcome();
  o.interrupted = stopped;
  return o;
}

}  // namespace joinery::study
