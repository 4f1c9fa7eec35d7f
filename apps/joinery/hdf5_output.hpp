#pragma once
// simulate -o RUN.h5: the HDF5 table recorder of the program (apps/hdf5), or a clear error
// when the program was built without HDF5.
#include <memory>
#include <string>

#include "joinery/core/scene.hpp"
#include "joinery/integrators/recorder.hpp"

namespace joinery::cli {

/// True for a file name ending in .h5 or .hdf5.
bool isHdf5Path(const std::string& path);

/// The recorder writing `path` as HDF5, with the scene's name and file and the program's
/// version as attributes. @throws UsageError when the program was built without HDF5.
std::unique_ptr<Recorder> makeHdf5Recorder(const std::string& path, const TableLayout& layout, const Scene& scene);

}  // namespace joinery::cli
