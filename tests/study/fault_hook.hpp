#pragma once
// Faults injected into chosen cases of a study, to prove that a study survives them
// (docs/studies.md, "Isolation"): a CaseOptions::beforeCase hook built from a list such as
// "crash:3,hang:5,throw:7" — case 3 aborts its process, case 5 never returns, case 7 throws.
// Only tests build it (test_study, and study_mpi_fault_driver for joinery-mpi): the programs
// joinery and joinery-mpi have no such hook.
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "joinery/study/study.hpp"

namespace joinery::test {

/// The hook for `spec` ("KIND:CASE,..." with KIND crash, hang or throw).
/// @throws std::invalid_argument for an item that is not KIND:CASE.
inline std::function<void(const study::Case&)> faultHook(const std::string& spec) {
  std::map<long, std::string> faults;
  std::stringstream ss(spec);
  for (std::string item; std::getline(ss, item, ',');) {
    const auto colon = item.find(':');
    const std::string kind = item.substr(0, colon);
    if (colon == std::string::npos || (kind != "crash" && kind != "hang" && kind != "throw"))
      throw std::invalid_argument("fault '" + item + "': expected crash:N, hang:N or throw:N");
    faults[std::stol(item.substr(colon + 1))] = kind;
  }
  return [faults](const study::Case& c) {
    const auto it = faults.find(c.index);
    if (it == faults.end()) return;
    if (it->second == "crash") std::abort();
    if (it->second == "hang")
      for (;;) pause();
    throw std::runtime_error("test fault: an unexpected exception");
  };
}

}  // namespace joinery::test
