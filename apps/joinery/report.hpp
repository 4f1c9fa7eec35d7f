#pragma once
// Assembly reports of `joinery check` and `joinery solve` on scenes (text and JSON).
#include <nlohmann/json.hpp>
#include <string>

#include "joinery/core/dense_solver.hpp"
#include "joinery/core/graph.hpp"
#include "joinery/core/scene.hpp"

namespace joinery::cli {

/// Everything `check` knows about a scene at its initial state.
struct CheckReport {
  const Scene* scene = nullptr;
  GraphAnalysis graph;
  Solution solution;
};

CheckReport makeCheckReport(const Scene& scene);
nlohmann::json checkReportToJson(const CheckReport& r);
/// `withAccelerations`: also print q'' and constraint forces (solve).
std::string checkReportToText(const CheckReport& r, bool withAccelerations);
int exitCodeFor(const Diagnosis& d);

}  // namespace joinery::cli
