// Tee, channel and summary recorders (run_outputs.hpp).
#include "joinery/integrators/run_outputs.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "joinery/core/errors.hpp"
#include "joinery/integrators/simulation.hpp"

namespace joinery {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

nlohmann::json numberOrNull(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }
}  // namespace

// ---- tee ------------------------------------------------------------------------------------

void TeeRecorder::begin(const std::vector<std::string>& coordinateNames) {
  for (Recorder* r : recorders_) r->begin(coordinateNames);
}

void TeeRecorder::record(const Sample& s) {
  for (Recorder* r : recorders_) r->record(s);
}

bool TeeRecorder::stopRequested() const {
  for (const Recorder* r : recorders_)
    if (r->stopRequested()) return true;
  return false;
}

void TeeRecorder::end(const SimulationResult& result) {
  // every recorder is closed, even when one fails; the first failure is reported
  std::exception_ptr first;
  for (Recorder* r : recorders_) {
    try {
      r->end(result);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  }
  if (first) std::rethrow_exception(first);
}

// ---- channels -------------------------------------------------------------------------------

struct ChannelRecorder::Buffers {
  VectorXd qdd;
  std::vector<double> values;
  // joint results (reaction and effort channels)
  std::unique_ptr<JointResultsWorkspace> jointWs;
  JointMultipliers multipliers;
  std::vector<JointResult> joints;
};

ChannelRecorder::ChannelRecorder(ModelSystem& system, const OutputChannels& channels, bool accelerations,
                                 Recorder& inner)
    : system_(system),
      channels_(channels),
      accelerations_(accelerations),
      inner_(inner),
      buf_(std::make_unique<Buffers>()) {}

ChannelRecorder::~ChannelRecorder() = default;

void ChannelRecorder::begin(const std::vector<std::string>& coordinateNames) {
  buf_->qdd = VectorXd::Zero(system_.numCoordinates());
  buf_->values.assign(channels_.columns().size(), 0.0);
  if (channels_.needsJointResults() && !buf_->jointWs) {
    buf_->jointWs = std::make_unique<JointResultsWorkspace>(system_.model());
    buf_->joints = buf_->jointWs->makeResults();
    buf_->multipliers.resize(system_.numConstraintRows());
  }
  inner_.begin(coordinateNames);
}

void ChannelRecorder::record(const Sample& s) {
  Buffers& b = *buf_;
  const bool needQdd = accelerations_ || channels_.needsAccelerations() || channels_.needsJointResults();
  if (needQdd) {
    const AccelerationStatus st = system_.calcAccelerations(s.state, b.qdd);
    if (!st.finite || !b.qdd.allFinite()) {
      std::ostringstream os;
      os << "non-finite accelerations at the sample t = " << s.state.t << (st.message.empty() ? "" : ": ")
         << st.message;
      throw SimulationError(os.str());
    }
  }
  if (channels_.needsJointResults()) {
    // right after calcAccelerations at this very state: the structured path's own multipliers
    system_.calcMultipliers(s.state, b.multipliers);
    calcJointResults(system_.model(), s.state, b.multipliers, *b.jointWs, b.joints, &channels_.jointsRead());
  }
  if (!channels_.empty()) {
    channels_.evaluate(s.state, needQdd ? &b.qdd : nullptr,
                       channels_.needsJointResults() ? &b.joints : nullptr, b.values.data());
    const int bad = channels_.firstNonFinite(b.values.data());
    if (bad >= 0) {
      const auto i = static_cast<std::size_t>(bad);
      std::ostringstream os;
      os << "output channel '" << channels_.channelOfColumn(i) << "' (column '" << channels_.columns()[i]
         << "') is " << (std::isnan(b.values[i]) ? "NaN" : b.values[i] > 0 ? "+Inf" : "-Inf") << " at t = " << s.state.t
         << "; the samples before it are kept";
      throw SimulationError(os.str());
    }
  }
  Sample out{s.state, s.energy, s.residuals, needQdd ? &b.qdd : s.accelerations,
             std::span<const double>(b.values.data(), b.values.size())};
  inner_.record(out);
}

void ChannelRecorder::end(const SimulationResult& result) { inner_.end(result); }

// ---- summary --------------------------------------------------------------------------------

SummaryRecorder::SummaryRecorder(TableLayout layout)
    : layout_(std::move(layout)), e0_(kNaN), e1_(kNaN), eDrift_(kNaN) {}

void SummaryRecorder::begin(const std::vector<std::string>& coordinateNames) {
  columns_ = tableColumns(coordinateNames, layout_);
  stats_.assign(columns_.size(), Stat{});
  row_.assign(columns_.size(), 0.0);
  energyColumn_ = energyColumn(coordinateNames.size(), layout_);
  e0_ = e1_ = eDrift_ = kNaN;
}

void SummaryRecorder::record(const Sample& s) {
  fillRow(s, layout_, row_.data());
  const double t = row_[0];
  for (std::size_t i = 1; i < row_.size(); ++i) {
    const double x = row_[i];
    if (!std::isfinite(x)) continue;  // an undefined energy
    Stat& st = stats_[i];
    if (st.count == 0 || x < st.min) {
      st.min = x;
      st.tMin = t;
    }
    if (st.count == 0 || x > st.max) {
      st.max = x;
      st.tMax = t;
    }
    st.final = x;
    st.sumSquares += x * x;
    ++st.count;
  }
  const double e = row_[energyColumn_];
  if (std::isfinite(e)) {
    if (!std::isfinite(e0_)) {
      e0_ = e;
      eDrift_ = 0;
    }
    e1_ = e;
    eDrift_ = std::max(eDrift_, std::abs(e - e0_));
  }
}

void SummaryRecorder::end(const SimulationResult& r) {
  run_ = {{"outcome", toString(r.outcome)},
          {"t", r.t},
          {"steps", r.stats.integrator.steps},
          {"rejected", r.stats.integrator.rejected},
          {"evaluations", r.stats.integrator.evaluations},
          {"samples", r.stats.samples},
          {"wall_s", r.stats.wallSeconds},
          {"message", r.message}};
}

nlohmann::json SummaryRecorder::toJson() const {
  nlohmann::json j = run_.is_null() ? nlohmann::json::object() : run_;
  j["energy"] = {{"initial", numberOrNull(e0_)}, {"final", numberOrNull(e1_)}, {"max_abs_drift", numberOrNull(eDrift_)}};
  nlohmann::json ch = nlohmann::json::object();
  for (std::size_t i = 1; i < columns_.size(); ++i) {
    const Stat& st = stats_[i];
    if (st.count == 0) {
      ch[columns_[i]] = {{"min", nullptr}, {"t_min", nullptr}, {"max", nullptr},
                         {"t_max", nullptr}, {"final", nullptr}, {"rms", nullptr}};
      continue;
    }
    ch[columns_[i]] = {{"min", st.min},     {"t_min", st.tMin},   {"max", st.max},
                       {"t_max", st.tMax},  {"final", st.final},
                       {"rms", std::sqrt(st.sumSquares / static_cast<double>(st.count))}};
  }
  j["channels"] = std::move(ch);
  return j;
}

}  // namespace joinery
