#pragma once
// joinery-mpi's program, callable from a main(): `joinery study` across MPI ranks.
#include <functional>

#include "joinery/study/study.hpp"

namespace joinery::cli {

/// Changes the options every case runs with, on every rank (after the command line is read).
using CaseOptionsAdjustment = std::function<void(study::CaseOptions&)>;

/// joinery-mpi: MPI_Init, `study ...` from argv on every rank, MPI_Finalize; returns the exit
/// status (the worst over the ranks). `adjust`, when set, changes the cases' options (the
/// program passes none; a test driver sets a fault hook, tests/study/mpi_fault_driver.cpp).
int runMpiStudyProgram(int argc, char** argv, const CaseOptionsAdjustment& adjust = {});

}  // namespace joinery::cli
