#include "test_paths.hpp"

const char* joinery_test_source_dir() { return JOINERY_SOURCE_DIR_PATH; }

const char* joinery_test_exe() {
#ifdef JOINERY_EXE_PATH
  return JOINERY_EXE_PATH;
#else
  return "";  // built without the joinery program: no test that runs it is built either
#endif
}
