// A run's table as HDF5 (hdf5_table.hpp), through HDF5's C++ API.
#include "joinery/hdf5_table.hpp"

#include <H5Cpp.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <utility>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {

namespace {

constexpr hsize_t kChunkRows = 256;  // 2 KiB chunks: a short run of many columns stays small

/// A column written with its unit, "crank.x_dot [mm/s]" (simulate --units scene): the dataset
/// is named "crank.x_dot" and carries the unit as its attribute `unit` (a link name may not
/// hold the '/' of "mm/s"); {name, ""} for a bare name.
std::pair<std::string, std::string> splitUnit(const std::string& column) {
  const auto open = column.rfind(" [");
  if (column.size() < 4 || column.back() != ']' || open == std::string::npos) return {column, ""};
  return {column.substr(0, open), column.substr(open + 2, column.size() - open - 3)};
}

std::vector<std::string> datasetNames(const std::vector<std::string>& columns) {
  std::vector<std::string> out;
  out.reserve(columns.size());
  for (const auto& c : columns) out.push_back(splitUnit(c).first);
  return out;
}

/// A dataset name is an HDF5 link name: no '/' (the path separator), not '.' and not empty.
void checkName(const std::string& name, const std::string& path) {
  if (name.empty() || name == "." || name.find('/') != std::string::npos)
    throw InputError("column '" + name + "' cannot be an HDF5 dataset name (it holds '/' or is empty)", path);
}

H5::StrType textType() {
  H5::StrType st(H5::PredType::C_S1, H5T_VARIABLE);
  st.setCset(H5T_CSET_UTF8);
  return st;
}

void textAttribute(H5::H5Object& where, const char* name, const std::string& value) {
  const H5::StrType st = textType();
  H5::Attribute a = where.createAttribute(name, st, H5::DataSpace(H5S_SCALAR));
  a.write(st, value);
}

void countAttribute(H5::H5Object& where, const char* name, long long value) {
  H5::Attribute a = where.createAttribute(name, H5::PredType::STD_I64LE, H5::DataSpace(H5S_SCALAR));
  a.write(H5::PredType::NATIVE_LLONG, &value);
}

/// A new file whose root group keeps its links in creation order (h5py lists the columns in
/// CSV order), with the attributes that say where the table came from.
H5::H5File createFile(const std::string& path, const std::vector<std::string>& names, const Hdf5TableInfo& info) {
  H5::FileCreatPropList fcpl;
  H5Pset_link_creation_order(fcpl.getId(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  // the attribute `columns` of a large model (14 340 names: 230 kB of string references) is
  // over the 64 kB an object header holds: attributes in dense storage, which needs the file
  // format of HDF5 1.8 and later (every h5py reads it)
  H5Pset_attr_phase_change(fcpl.getId(), 0, 0);
  H5::FileAccPropList fapl;
  fapl.setLibverBounds(H5F_LIBVER_V18, H5F_LIBVER_LATEST);
  H5::H5File file(path, H5F_ACC_TRUNC, fcpl, fapl);
  textAttribute(file, "scene", info.scene);
  textAttribute(file, "scene_file", info.sceneFile);
  textAttribute(file, "joinery_version", info.version);
  std::vector<const char*> list;
  list.reserve(names.size());
  for (const auto& n : names) list.push_back(n.c_str());
  const hsize_t n = names.size();
  const H5::StrType st = textType();
  H5::Attribute cols = file.createAttribute("columns", st, H5::DataSpace(1, &n));
  cols.write(st, list.data());
  return file;
}

/// An empty, extendable float64 column stored in chunks of `rows` rows (at most kChunkRows),
/// named by `column` without its unit, the unit (if any) in the attribute `unit`.
H5::DataSet createColumn(H5::H5File& file, const std::string& column, hsize_t rows) {
  const auto [name, unit] = splitUnit(column);
  const hsize_t dims[1] = {0}, maxdims[1] = {H5S_UNLIMITED};
  H5::DataSpace space(1, dims, maxdims);
  H5::DSetCreatPropList props;
  const hsize_t chunk[1] = {std::clamp<hsize_t>(rows, 1, kChunkRows)};
  props.setChunk(1, chunk);
  H5::DataSet ds = file.createDataSet(name, H5::PredType::IEEE_F64LE, space, props);
  if (!unit.empty()) textAttribute(ds, "unit", unit);
  return ds;
}

/// Appends `count` values to a column of `before` rows.
void append(H5::DataSet& ds, hsize_t before, const double* values, hsize_t count) {
  const hsize_t size[1] = {before + count}, start[1] = {before}, n[1] = {count};
  ds.extend(size);
  H5::DataSpace fileSpace = ds.getSpace();
  fileSpace.selectHyperslab(H5S_SELECT_SET, n, start);
  H5::DataSpace memSpace(1, n);
  ds.write(values, H5::PredType::NATIVE_DOUBLE, memSpace, fileSpace);
}

std::string reason(const H5::Exception& e) { return e.getFuncName() + ": " + e.getDetailMsg(); }

}  // namespace

struct Hdf5Recorder::File {
  H5::H5File file;
  std::vector<H5::DataSet> columns;
};

Hdf5Recorder::Hdf5Recorder(const std::string& path, TableLayout layout, Hdf5TableInfo info)
    : path_(path), layout_(std::move(layout)), info_(std::move(info)) {
  H5::Exception::dontPrint();  // errors are thrown as joinery errors, never printed
  // the file is created at begin(), when the columns are known; here only whether it can be
  std::FILE* probe = std::fopen(path.c_str(), "wb");
  if (!probe) throw InputError("cannot open the output file for writing", path);
  std::fclose(probe);
}

Hdf5Recorder::~Hdf5Recorder() { delete file_; }

void Hdf5Recorder::begin(const std::vector<std::string>& coordinateNames) {
  columns_ = tableColumns(coordinateNames, layout_);
  for (const auto& c : columns_) checkName(splitUnit(c).first, path_);
  row_.assign(columns_.size(), 0.0);
  blockRows_ = std::max<std::size_t>(1, std::min<std::size_t>(4096, kBlockBytes / (sizeof(double) * columns_.size())));
  block_.assign(blockRows_ * columns_.size(), 0.0);
  pending_ = written_ = 0;
  try {
    file_ = new File{createFile(path_, datasetNames(columns_), info_), {}};
    file_->columns.reserve(columns_.size());
    for (const auto& c : columns_) file_->columns.push_back(createColumn(file_->file, c, blockRows_));
    file_->file.flush(H5F_SCOPE_GLOBAL);
  } catch (const H5::Exception& e) {
    throw InputError("cannot write the HDF5 output (" + reason(e) + ")", path_);
  }
}

void Hdf5Recorder::record(const Sample& s) {
  fillRow(s, layout_, row_.data());
  for (std::size_t c = 0; c < columns_.size(); ++c) block_[c * blockRows_ + pending_] = row_[c];
  if (++pending_ == blockRows_) flush();
}

void Hdf5Recorder::flush() {
  if (pending_ == 0 || !file_) return;
  try {
    for (std::size_t c = 0; c < columns_.size(); ++c) append(file_->columns[c], written_, &block_[c * blockRows_], pending_);
    written_ += pending_;
    pending_ = 0;
    file_->file.flush(H5F_SCOPE_GLOBAL);  // what is written stays readable if the process dies
  } catch (const H5::Exception& e) {
    throw SimulationError("cannot write samples to the HDF5 output " + path_ + " (" + reason(e) + ")");
  }
}

void Hdf5Recorder::end(const SimulationResult& result) {
  flush();
  if (!file_) return;
  try {
    countAttribute(file_->file, "samples", static_cast<long long>(written_));
    textAttribute(file_->file, "outcome", toString(result.outcome));
    file_->file.flush(H5F_SCOPE_GLOBAL);
  } catch (const H5::Exception& e) {
    throw SimulationError("cannot finish the HDF5 output " + path_ + " (" + reason(e) + ")");
  }
}

void writeHdf5Table(const std::string& path, const std::vector<std::string>& names,
                    const std::vector<const double*>& columns, std::size_t rows, const Hdf5TableInfo& info,
                    const std::string& outcome) {
  H5::Exception::dontPrint();
  for (const auto& n : names) checkName(splitUnit(n).first, path);
  if (names.size() != columns.size()) throw InputError("writeHdf5Table: as many names as columns", path);
  const std::string temp = path + ".part";
  try {
    {
      H5::H5File file = createFile(temp, datasetNames(names), info);
      for (std::size_t c = 0; c < names.size(); ++c) {
        H5::DataSet ds = createColumn(file, names[c], rows);
        if (rows > 0) append(ds, 0, columns[c], rows);
      }
      countAttribute(file, "samples", static_cast<long long>(rows));
      if (!outcome.empty()) textAttribute(file, "outcome", outcome);
    }
    std::filesystem::rename(temp, path);
  } catch (const H5::Exception& e) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError("cannot write the HDF5 file (" + reason(e) + ")", path);
  } catch (const std::filesystem::filesystem_error& e) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw InputError(std::string("cannot write the HDF5 file (") + e.what() + ")", path);
  }
}

namespace {
/// The names listed in the file's `columns` attribute (empty when it has none).
std::vector<std::string> listedColumns(H5::H5File& file) {
  std::vector<std::string> out;
  if (!file.attrExists("columns")) return out;
  H5::Attribute a = file.openAttribute("columns");
  H5::DataSpace space = a.getSpace();
  if (space.getSimpleExtentNdims() != 1) return out;
  hsize_t n = 0;
  space.getSimpleExtentDims(&n);
  std::vector<char*> raw(n, nullptr);
  const H5::StrType st = textType();
  a.read(st, raw.data());
  for (char* c : raw) out.emplace_back(c ? c : "");
  H5Dvlen_reclaim(st.getId(), space.getId(), H5P_DEFAULT, raw.data());
  return out;
}
}  // namespace

Hdf5Table readHdf5Table(const std::string& path) {
  H5::Exception::dontPrint();
  Hdf5Table t;
  try {
    if (!H5::H5File::isHdf5(path)) throw InputError("not an HDF5 file", path);
    H5::H5File file(path, H5F_ACC_RDONLY);
    t.names = listedColumns(file);
    if (t.names.empty())
      for (hsize_t k = 0; k < file.getNumObjs(); ++k)
        if (file.getObjTypeByIdx(k) == H5G_DATASET) t.names.push_back(file.getObjnameByIdx(k));
    for (auto& name : t.names) {
      if (!file.nameExists(name)) throw InputError("the file lists column '" + name + "' but has no such dataset", path);
      H5::DataSet ds = file.openDataSet(name);
      if (ds.attrExists("unit")) {  // the name as the CSV writes it: "crank.x [mm]"
        H5::Attribute a = ds.openAttribute("unit");
        std::string unit;
        a.read(a.getStrType(), unit);
        if (!unit.empty()) name += " [" + unit + "]";
      }
      H5::DataSpace space = ds.getSpace();
      if (space.getSimpleExtentNdims() != 1 || (ds.getTypeClass() != H5T_FLOAT && ds.getTypeClass() != H5T_INTEGER))
        throw InputError("dataset '" + name + "' is not a one-dimensional array of numbers", path);
      hsize_t n = 0;
      space.getSimpleExtentDims(&n);
      std::vector<double> v(n);
      if (n > 0) ds.read(v.data(), H5::PredType::NATIVE_DOUBLE);
      t.columns.push_back(std::move(v));
    }
  } catch (const H5::Exception& e) {
    throw InputError("cannot read the HDF5 file (" + reason(e) + ")", path);
  }
  return t;
}

}  // namespace joinery
