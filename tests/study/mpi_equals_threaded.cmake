# mpirun -n 3 joinery-mpi study ... gives the same table as joinery study -j 1 (bit for bit),
# also when a case crashes its worker and another hangs past the time limit.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(MPIFLAGS --allow-run-as-root --oversubscribe -n 3)
# Under the sanitizer build (CI): Open MPI's components, loaded with dlopen and unloaded at
# MPI_Finalize, leave allocations LeakSanitizer reports without a library name to suppress;
# they are not joinery's. Leak checking of the study code is done by the `joinery study` runs
# here and by test_study; address and undefined-behaviour checks stay on for the MPI ranks.
set(MPIRUN ${CMAKE_COMMAND} -E env "ASAN_OPTIONS=$ENV{ASAN_OPTIONS}:detect_leaks=0" ${MPIEXEC})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 300)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
endfunction()
function(same a b)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${a} ${b} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    file(READ ${a} ta)
    file(READ ${b} tb)
    message(FATAL_ERROR "${a} and ${b} differ:\n${ta}\n---\n${tb}")
  endif()
endfunction()

run(${JOINERY} study ${STUDY} -o ${WORK}/j1.csv -j 1)
run(${MPIRUN} ${MPIFLAGS} ${JOINERY_MPI} study ${STUDY} -o ${WORK}/mpi3.csv)
same(${WORK}/j1.csv ${WORK}/mpi3.csv)

# case 3 crashes its worker, case 5 hangs (a driver built from joinery-mpi's own code with a
# per-case hook, mpi_fault_driver.cpp); one rank runs the cases locally as joinery -j 1 does
run(${MPIRUN} --allow-run-as-root --oversubscribe -n 1 ${JOINERY_MPI_FAULTS} crash:3,hang:5 study ${STUDY} -o ${WORK}/j1f.csv --time-limit 2)
run(${MPIRUN} ${MPIFLAGS} ${JOINERY_MPI_FAULTS} crash:3,hang:5 study ${STUDY} -o ${WORK}/mpi3f.csv --time-limit 2)
same(${WORK}/j1f.csv ${WORK}/mpi3f.csv)
file(STRINGS ${WORK}/mpi3f.csv rows)
list(GET rows 4 crashed)
list(GET rows 6 hung)
if(NOT crashed MATCHES ",1,crashed: its worker process died of signal 6" OR NOT hung MATCHES ",5,timed out")
  message(FATAL_ERROR "expected case 3 crashed and case 5 timed out:\n${crashed}\n${hung}")
endif()
message(STATUS "joinery-mpi (3 ranks) and joinery -j 1 wrote the same tables")
