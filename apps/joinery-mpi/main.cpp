// joinery-mpi — `joinery study` across machines with MPI (docs/studies.md, "MPI").
#include "mpi_study.hpp"

int main(int argc, char** argv) { return joinery::cli::runMpiStudyProgram(argc, argv); }
