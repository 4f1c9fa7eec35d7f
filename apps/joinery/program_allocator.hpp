#pragma once
// The memory allocator of the joinery programs (cmake/JoineryDependencies.cmake,
// joinery_use_program_allocator): mimalloc when the program was linked with it, otherwise the
// system's malloc. Header-only, shared by apps/joinery/main.cpp and bench/scene_build.cpp (which
// measures a scene load as the program makes it).
#include <cstdlib>
#include <string>

#ifdef JOINERY_WITH_MIMALLOC
#include <mimalloc.h>
#endif

namespace joinery::cli {

/// Called first in main(): with mimalloc, its segments go on 2 MiB pages (transparent huge
/// pages, where the kernel offers them), unless MIMALLOC_LARGE_OS_PAGES says otherwise. A large
/// scene's load touches a few hundred MB of small blocks, and the page faults of 4 KiB pages
/// were a measurable part of it (bench/results/performance-rounds.md, "Large models and scene
/// loading, fifth round").
inline void configureProgramAllocator() {
#ifdef JOINERY_WITH_MIMALLOC
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") == nullptr) mi_option_enable(mi_option_large_os_pages);
#endif
}

/// The allocator that serves this process's malloc: "mimalloc X.Y.Z" when the program was
/// linked with it and its malloc is the one in use (a block from malloc lies in mimalloc's
/// heap; " (large OS pages)" added when they are on), "system malloc" otherwise.
inline std::string allocatorInUse() {
#ifdef JOINERY_WITH_MIMALLOC
  void* volatile block = std::malloc(64);  // volatile: the pair is not elided
  const bool ours = mi_is_in_heap_region(block);
  std::free(block);
  const int v = mi_version();  // e.g. 209 for 2.0.9
  if (ours)
    return "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." + std::to_string(v % 10) +
           (mi_option_is_enabled(mi_option_large_os_pages) ? " (large OS pages)" : "");
  return "system malloc (mimalloc linked but not in use)";
#else
  return "system malloc";
#endif
}

}  // namespace joinery::cli
