// joinery-mpi — `joinery study` across machines with MPI (docs/studies.md, "MPI"): the program
// (main.cpp calls runMpiStudyProgram; tests build a driver that adds a per-case hook).
//
//   mpirun -n K joinery-mpi study STUDY.json -o TABLE.csv [--resume] [...]
//
// Rank 0 reads the study, keeps the rows of the table (--resume), hands cases out one at a
// time to whichever rank asks (cases differ in cost by orders of magnitude: no static
// split), writes each row as it arrives and sorts the table at the end. Ranks 1..K-1 run
// their case in a pre-forked worker process (joinery::study::WorkerPool), so a case that
// crashes or hangs costs that case, not the rank. With one rank, the cases run locally.
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "joinery/core/errors.hpp"
#include "joinery/study/study.hpp"
#include "mpi_study.hpp"
#include "scene_files.hpp"
#include "study_cli.hpp"

namespace {

using namespace joinery;
using namespace joinery::cli;

constexpr int kTagCase = 1;  // rank 0 -> worker: long case index, -1 = no more work
constexpr int kTagRow = 2;   // worker -> rank 0: encoded row, or an empty "ready"
constexpr int kAhead = 2;    // cases a worker rank holds at once (one running, one waiting)

void sendCase(long index, int rank) { MPI_Send(&index, 1, MPI_LONG, rank, kTagCase, MPI_COMM_WORLD); }

/// Waits for a message without spinning: Open MPI's blocking calls poll at full speed, which
/// takes a core from the workers when ranks share a machine.
void waitFor(int source, int tag, MPI_Status& st) {
  for (int flag = 0;;) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &flag, &st);
    if (flag) return;
    usleep(200);
  }
}

std::string receiveRow(int& source) {
  MPI_Status st;
  waitFor(MPI_ANY_SOURCE, kTagRow, st);
  int size = 0;
  MPI_Get_count(&st, MPI_CHAR, &size);
  std::string text(static_cast<std::size_t>(size), '\0');
  MPI_Recv(text.data(), size, MPI_CHAR, st.MPI_SOURCE, kTagRow, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  source = st.MPI_SOURCE;
  return text;
}

study::Outcome runMaster(const study::Study& s, StudyCommand& cmd, int size) {
  study::Table table(s, cmd.run);
  StudyProgress progress;
  study::Progress p;
  p.total = table.outcome().total;
  p.skipped = p.done = table.kept();
  p.failed = table.outcome().failed;
  const auto start = std::chrono::steady_clock::now();
  // every worker sends kAhead "ready" messages and then one row per case it ran; each
  // message is answered at once with the next case or -1 (cases made as they are handed out)
  const std::size_t expected =
      static_cast<std::size_t>(kAhead) * static_cast<std::size_t>(size - 1) + static_cast<std::size_t>(table.pendingCount());
  for (std::size_t received = 0; received < expected; ++received) {
    int source = 0;
    const std::string text = receiveRow(source);
    if (!text.empty()) {
      const study::Row row = study::decodeRow(text);
      table.add(row);
      ++p.done;
      if (row.exit != 0) ++p.failed;
      p.elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      p.rate = p.elapsed > 0 ? static_cast<double>(p.done - p.skipped) / p.elapsed : 0;
      p.remaining = p.rate > 0 ? static_cast<double>(p.total - p.done) / p.rate : 0;
      progress(p);
    }
    const std::optional<study::Case> next = table.nextPending();
    sendCase(next ? next->index : -1, source);
  }
  progress.finish();
  table.finish();
  return table.outcome();
}

void runWorker(const study::Study& s, const StudyCommand& cmd) {
  const double limit = cmd.run.timeLimit >= 0 ? cmd.run.timeLimit : s.timeLimit;
  study::WorkerPool pool(s, cmd.run.caseOptions, 1, limit);
  const std::string ready;
  for (int i = 0; i < kAhead; ++i) MPI_Send(ready.data(), 0, MPI_CHAR, 0, kTagRow, MPI_COMM_WORLD);
  int outstanding = kAhead;  // requests not answered yet
  while (outstanding > 0 || pool.busy() > 0) {
    if (outstanding > 0) {
      int arrived = 0;
      MPI_Iprobe(0, kTagCase, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE);
      if (arrived || pool.busy() == 0) {  // nothing running: wait for the answer
        long index = -1;
        MPI_Status st;
        if (!arrived) waitFor(0, kTagCase, st);
        MPI_Recv(&index, 1, MPI_LONG, 0, kTagCase, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        --outstanding;
        if (index >= 0 && index < s.cases.size()) pool.submit(s.cases[index]);
        continue;
      }
    }
    for (const study::Row& row : pool.collect(outstanding > 0 ? 0.002 : 1.0)) {
      const std::string text = study::encodeRow(row);  // the row, and a request for the next case
      MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTagRow, MPI_COMM_WORLD);
      ++outstanding;
    }
  }
}

/// Runs on every rank; returns the exit status.
int run(int rank, int size, std::vector<std::string> args, const CaseOptionsAdjustment& adjust) {
  if (const std::string bad = takeConfineIncludes(args); !bad.empty()) {  // as joinery's: before `study`
    if (rank == 0) std::cerr << "joinery-mpi: " << bad << "\n";
    return kInvalidInput;
  }
  if (args.empty() || args[0] != "study") {
    if (rank == 0) std::cerr << "usage: joinery-mpi study STUDY.json -o TABLE.csv [options] (see --help)\n";
    return kInvalidInput;
  }
  StudyCommand cmd = parseStudyArgs(std::vector<std::string>(args.begin() + 1, args.end()));
  if (adjust) adjust(cmd.run.caseOptions);
  if (cmd.help) {
    if (rank == 0) std::cout << studyHelp("joinery-mpi");
    return kOk;
  }
  if (cmd.merge) {
    if (rank == 0) {
      const long n = study::mergeTables(cmd.mergeInputs, cmd.run.table);
      std::cout << "joinery-mpi study --merge: " << n << " rows -> " << cmd.run.table << "\n";
    }
    return kOk;
  }
  const study::Study s = study::loadStudy(cmd.studyFile, withCommandConfinement({}, cmd.studyFile));  // every rank reads the study
  refuseStudyOutputs(cmd, s);  // the table over the study, its scene or an include (nothing written)
  if (size == 1) {
    cmd.run.jobs = 1;
    StudyProgress progress;
    cmd.run.progress = [&progress](const study::Progress& p) { progress(p); };
    const auto start = std::chrono::steady_clock::now();
    const auto o = study::runStudy(s, cmd.run);
    progress.finish();
    return reportStudy(cmd, o, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (rank != 0) {
    runWorker(s, cmd);
    return kOk;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto o = runMaster(s, cmd, size);
  return reportStudy(cmd, o, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

namespace joinery::cli {

int runMpiStudyProgram(int argc, char** argv, const CaseOptionsAdjustment& adjust) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<std::string> args(argv + 1, argv + argc);
  int code = kInternal;
  try {
    code = run(rank, size, args, adjust);
  } catch (const UsageError& e) {
    if (rank == 0) std::cerr << "joinery-mpi study: " << e.message << " (see 'joinery-mpi study --help')\n";
    code = kInvalidInput;
  } catch (const joinery::InputError& e) {
    if (rank == 0) std::cerr << "joinery-mpi study: error: " << e.what() << "\n";
    code = kInvalidInput;
  } catch (const std::exception& e) {
    // unexpected on one rank while the others wait for it: stop the whole job, clearly (the
    // table keeps every row written so far; run again with --resume)
    std::cerr << "joinery-mpi study (rank " << rank << "): error: " << e.what()
              << "; stopping every rank (the table keeps its rows; rerun with --resume)\n";
    MPI_Abort(MPI_COMM_WORLD, kInternal);
  }
  // every rank decides the same for usage and study errors (all read the same files), so
  // they all get here; a failure on one rank alone aborts the job with its code
  int worst = 0;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}

}  // namespace joinery::cli
