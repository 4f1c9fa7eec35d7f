#pragma once
/// @file study.hpp
/// Engineering studies (docs/studies.md): a study file names a base scene, a design of
/// cases (list, grid, random, lhs, oat) over scene/instance parameters and simulation
/// settings, and summary values to collect; runStudy() runs every case in pre-forked worker
/// processes and writes one table (CSV, optionally JSON lines), a row per case.
///
/// The library is used by `joinery study`, by `joinery-mpi study` (rank 0 hands out cases,
/// the other ranks run them) and by the Python module.

#include <csignal>
#include <functional>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/scene.hpp"

namespace joinery::study {

/// One collected item, `COLUMN:STAT` (`pin.fx:max`), or a run figure (`steps`).
struct Collect {
  std::string text;    ///< as written in the study file: the table column
  std::string column;  ///< CSV column of the run (`pin.fx`); empty for run figures
  std::string stat;    ///< min max final rms t_min t_max; or steps evaluations t wall_s
};

/// One case: its number (0-based, in design order) and one value per study parameter
/// (a JSON number, or a string: an expression or a word such as `rk4`).
struct Case {
  long index = 0;
  std::vector<nlohmann::json> values;
};

namespace detail {
struct CaseGenerator;
}

/// The cases of a study's design, made on demand (a study of ten million cases holds its
/// design, not its cases): case `i` is the same values whenever it is asked for, in the order
/// of the design (list, grid: the first parameter varies slowest; random, lhs: the seeded
/// sequence). Cheap to copy (the design is shared).
class Cases {
 public:
  Cases() = default;
  explicit Cases(std::shared_ptr<const detail::CaseGenerator> generator);
  long size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  /// Case `index` (0 <= index < size()).
  Case operator[](long index) const;
  Case front() const { return (*this)[0]; }

  class const_iterator {
   public:
    using value_type = Case;
    using difference_type = long;
    using reference = Case;
    using pointer = void;
    using iterator_category = std::input_iterator_tag;
    const_iterator(const Cases* cases, long index) : cases_(cases), index_(index) {}
    Case operator*() const { return (*cases_)[index_]; }
    const_iterator& operator++() {
      ++index_;
      return *this;
    }
    bool operator==(const const_iterator& o) const { return index_ == o.index_; }
    bool operator!=(const const_iterator& o) const { return index_ != o.index_; }

   private:
    const Cases* cases_;
    long index_;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

 private:
  std::shared_ptr<const detail::CaseGenerator> gen_;
  long size_ = 0;
};

/// A parsed study file with its design ready to make the cases.
struct Study {
  std::string file;                     ///< the study file
  std::string sceneFile;                ///< the base scene (relative to the study file, resolved)
  nlohmann::json scene;                 ///< the base scene document, read once
  std::string designType;               ///< list grid random lhs oat
  std::vector<std::string> parameters;  ///< as named in the design (`omega`, `rod.L`, `simulation.t_end`)
  Cases cases;
  std::vector<Collect> collect;
  double timeLimit = 0;                 ///< per-case wall-clock limit (s); 0: none (`"time_limit"`)
  /// The scene's includes confined (SceneOptions::confineIncludes, includeRoot) for the check
  /// at load and for every case; the scene file itself must then lie in that folder too.
  bool confineIncludes = false;
  std::string includeRoot;
};

/// Reads a study file, expands its design and checks it against the scene (parameter names,
/// collected columns) by loading the scene with the first case's values.
/// @throws InputError (file, JSON path) for an invalid study: exit status 2.
Study loadStudy(const std::string& path);
/// The same with the files the scene may read confined as `sceneOptions` says (its
/// confineIncludes and includeRoot; an empty root is the study file's folder).
Study loadStudy(const std::string& path, const SceneOptions& sceneOptions);

/// A row of the table.
struct Row {
  long caseIndex = 0;
  std::vector<nlohmann::json> values;                ///< the case's parameter values
  std::vector<std::optional<double>> collected;      ///< empty fields when the case failed
  int exit = 0;  ///< the exit status `joinery simulate` would give; 1 when the worker crashed
  std::string message;
};

/// Options of running one case.
struct CaseOptions {
  std::string csvFolder;  ///< when not empty, each case's full CSV is kept as FOLDER/case_NNNNNN.csv
  /// When set, called with each case before it runs, in the process that runs it (a worker
  /// process of WorkerPool). What it throws is the case's failure, as any error of the run.
  /// A program that embeds studies may use it to prepare or observe cases; joinery's tests
  /// use it to make chosen cases crash, hang or throw (tests/study/fault_hook.hpp).
  std::function<void(const Case&)> beforeCase;
};

/// Runs one case in this process. Never throws: every error becomes the row's exit/message.
Row runCase(const Study& study, const Case& c, const CaseOptions& options = {});

// ---- table ---------------------------------------------------------------------------------

/// `case`, the parameters, the collected items, `exit`, `message`.
std::vector<std::string> tableColumns(const Study& study);
/// The CSV header line and one CSV line (with '\n'); numbers in shortest round-trip form.
std::string csvHeader(const Study& study);
std::string csvLine(const Row& row);
/// One JSON-lines record (with '\n').
std::string jsonLine(const Study& study, const Row& row);
/// The row <-> one-line JSON message used between processes (numbers exact).
std::string encodeRow(const Row& row);
Row decodeRow(const std::string& line);
/// The inputs that identify a case (its formatted values), for --resume.
std::string caseKey(const std::vector<nlohmann::json>& values);

// ---- running -------------------------------------------------------------------------------

struct Progress {
  long done = 0, failed = 0, total = 0;  ///< done includes rows kept from a resumed table
  long skipped = 0;                      ///< rows kept from the table (--resume)
  double elapsed = 0;                    ///< s since the start
  double rate = 0;                       ///< cases per second run in this session
  double remaining = 0;                  ///< s, estimated
};

struct RunOptions {
  std::string table;          ///< TABLE.csv (required)
  std::string jsonLines;      ///< optional JSON-lines table
  int jobs = 1;               ///< worker processes
  bool resume = false;        ///< keep the rows of an existing table whose inputs match a case
  int shardIndex = 0, shardCount = 1;  ///< run only cases with index % count == shard
  CaseOptions caseOptions;
  double timeLimit = -1;      ///< per-case limit (s); < 0: the study's `time_limit`
  std::function<void(const Progress&)> progress;  ///< called after each row and periodically
  /// When set and nonzero (a signal handler's flag): no further case starts, the cases running
  /// are stopped (their rows left out, so --resume runs them again) and the table is finished
  /// with the rows so far (Outcome::interrupted).
  const volatile std::sig_atomic_t* interrupt = nullptr;
};

struct Outcome {
  long total = 0, ran = 0, skipped = 0, failed = 0;
  bool interrupted = false;  ///< RunOptions::interrupt ended the run early
};

/// Runs the study: keeps matching rows of the existing table with --resume, runs the other
/// cases (of this shard) in `jobs` pre-forked worker processes, streams rows to the table as
/// they finish and sorts it by case at the end. A case that crashes or exceeds the time
/// limit kills only its worker (respawned) and is a row with exit 1 / 5.
/// @throws InputError for an unreadable/unwritable table or one with other columns.
Outcome runStudy(const Study& study, const RunOptions& options);

/// The table of a run in progress: resume, streaming, final sort. Used by runStudy() and by
/// the MPI driver (rank 0).
class Table {
 public:
  Table(const Study& study, const RunOptions& options);
  /// The next case still to run (this shard, minus the rows kept by --resume), in case
  /// order; none when every one was handed out. Made when asked for (Cases).
  std::optional<Case> nextPending();
  /// How many cases nextPending() has still to give.
  long pendingCount() const noexcept { return pendingLeft_; }
  long kept() const { return static_cast<long>(rows_.size()); }
  void add(const Row& row);  ///< appends to the table(s) at once
  void finish();             ///< rewrites the table(s) sorted by case
  Outcome outcome() const { return outcome_; }

 private:
  const Study& study_;
  RunOptions options_;
  std::vector<Row> rows_;
  long next_ = 0;                // the next case number nextPending() looks at
  long pendingLeft_ = 0;
  std::vector<bool> keptCase_;   // by case number, when --resume kept rows (else empty)
  Outcome outcome_;
};

/// Joins shard tables (same columns) into one, sorted by case (one row per case).
/// Returns the number of rows. @throws InputError
long mergeTables(const std::vector<std::string>& inputs, const std::string& output);

/// Pre-forked worker processes that run cases with runCase() and report rows through pipes.
/// A worker that dies (crash) or exceeds the time limit is killed and respawned; its case
/// becomes a failed row.
class WorkerPool {
 public:
  WorkerPool(const Study& study, const CaseOptions& options, int workers, double timeLimit);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;
  bool hasIdle() const;
  int busy() const;
  void submit(const Case& c);
  /// Waits at most `seconds` for rows; returns those finished (possibly none).
  std::vector<Row> collect(double seconds);

 private:
  struct Worker;
  void spawn(Worker& w);
  void retire(Worker& w, int exit, const std::string& message, std::vector<Row>& out);
  const Study& study_;
  CaseOptions options_;
  double timeLimit_;
  std::vector<Worker> workers_;
};

}  // namespace joinery::study
