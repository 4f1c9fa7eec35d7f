#pragma once
// A run's table as an HDF5 file: one float64 dataset per column, named exactly as the CSV
// column (`t`, `bob.x`, ...), in the root group (h5py lists them by name; the attribute
// `columns` lists them in CSV order, and the group tracks their creation order), with the attributes `scene` (the
// scene's name), `scene_file`, `joinery_version`, `samples` and, for a run, `outcome`.
// Read with h5py: f = h5py.File("run.h5"); f["bob.x"][:]; f.attrs["scene"].
#include <cstddef>
#include <string>
#include <vector>

#include "joinery/integrators/recorder.hpp"

namespace joinery {

/// What the file says about where its table came from (file attributes).
struct Hdf5TableInfo {
  std::string scene;       ///< the scene's `name` (its file's stem when it has none)
  std::string sceneFile;   ///< the scene file as given
  std::string version;     ///< the joinery version that wrote it
};

/// Writes the table while the run goes: rows are kept in a block of at most kBlockBytes and
/// appended to the datasets (chunked, extendable) when the block is full (each append touches every dataset: fewer, larger blocks write faster) and at end() — also
/// after a failed run, so every sample recorded stays in the file. An undefined energy is NaN.
class Hdf5Recorder final : public Recorder {
 public:
  static constexpr std::size_t kBlockBytes = std::size_t{32} << 20;
  /// @throws InputError if the file cannot be created.
  Hdf5Recorder(const std::string& path, TableLayout layout, Hdf5TableInfo info);
  ~Hdf5Recorder() override;
  void begin(const std::vector<std::string>& coordinateNames) override;
  void record(const Sample& s) override;
  void end(const SimulationResult& result) override;

 private:
  struct File;
  void flush();
  std::string path_;
  TableLayout layout_;
  Hdf5TableInfo info_;
  std::vector<std::string> columns_;
  std::vector<double> row_;
  std::vector<double> block_;  ///< column-major: column c's pending rows at c * blockRows_
  std::size_t blockRows_ = 0, pending_ = 0, written_ = 0;
  File* file_ = nullptr;
};

/// Writes whole columns at once (Python's SimulationResult.to_hdf5): `columns[c]` points to
/// `rows` values of column `names[c]`. The file is written beside `path` and renamed into
/// place, so an existing file is replaced only by a complete one. @throws InputError.
void writeHdf5Table(const std::string& path, const std::vector<std::string>& names,
                    const std::vector<const double*>& columns, std::size_t rows, const Hdf5TableInfo& info,
                    const std::string& outcome = "");

/// A table read back: column names and values (every column as long as the first).
struct Hdf5Table {
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;
};
/// Reads the one-dimensional numeric datasets of the root group: in the order of the
/// attribute `columns` when the file has it (files written here), else in the group's order.
/// @throws InputError naming the file when it is not HDF5 or a dataset cannot be read.
Hdf5Table readHdf5Table(const std::string& path);

}  // namespace joinery
