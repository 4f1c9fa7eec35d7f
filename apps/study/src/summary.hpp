#pragma once
// What a study collects from a run: the columns of the run's table (coordinates, velocities,
// energy, residuals, output channels) and their statistics, from the run summary of
// `simulate --summary` (joinery::SummaryRecorder, joinery/integrators/run_outputs.hpp).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "joinery/core/scene.hpp"
#include "joinery/integrators/simulation.hpp"
#include "joinery/study/study.hpp"

namespace joinery::study {

/// The columns a run of this scene writes (`t` included), output channels after the
/// standard ones. @throws InputError for invalid output channels.
std::vector<std::string> runColumns(const Scene& scene);

bool isRunFigure(const std::string& name);
std::string runFigureNames();

/// The overrides of one case.
std::vector<Override> caseOverrides(const Study& s, const Case& c);

/// The value of one collected item from a run's summary (SummaryRecorder::toJson()) and
/// result; empty when undefined (e.g. no energy).
std::optional<double> collectedValue(const Collect& item, const nlohmann::json& summary, const SimulationResult& r);

}  // namespace joinery::study
