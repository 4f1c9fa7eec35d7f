// simulate -o RUN.h5 (hdf5_output.hpp).
#include "hdf5_output.hpp"

#include <filesystem>

#include "cli.hpp"
#ifdef JOINERY_HAVE_HDF5
#include "joinery/hdf5_table.hpp"
#endif

namespace joinery::cli {

bool isHdf5Path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".h5" || ext == ".hdf5";
}

std::unique_ptr<Recorder> makeHdf5Recorder(const std::string& path, const TableLayout& layout, const Scene& scene) {
#ifdef JOINERY_HAVE_HDF5
  Hdf5TableInfo info;
  info.scene = scene.name.empty() ? std::filesystem::path(scene.file).stem().string() : scene.name;
  info.sceneFile = scene.file;
  info.version = JOINERY_VERSION_STRING;
  return std::make_unique<Hdf5Recorder>(path, layout, std::move(info));
#else
  (void)path, (void)layout, (void)scene;
  throw UsageError{"this joinery was built without HDF5: install libhdf5-dev (scripts/install-deps.sh) and build "
                   "again, or write CSV or .npy"};
#endif
}

}  // namespace joinery::cli
