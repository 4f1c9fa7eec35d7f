// Counts heap allocations of the whole test executable by interposing malloc & co. (glibc:
// the definitions here take precedence over libc's, and forward to __libc_*). Unlike a
// replaced operator new, this also sees Eigen's allocations (Eigen calls std::malloc).
#include <atomic>
#include <cstddef>

#include "allocation_counter.hpp"
#include "sanitizers.hpp"

#ifdef JOINERY_TEST_ASAN
// AddressSanitizer owns malloc: no counting in sanitizer builds.
namespace joinery::test {
bool mallocCounting() { return false; }
long mallocCount() { return 0; }
}  // namespace joinery::test
#else

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {
std::atomic<long> gMallocs{0};
}

namespace joinery::test {
bool mallocCounting() { return true; }
long mallocCount() { return gMallocs.load(std::memory_order_relaxed); }
}  // namespace joinery::test

extern "C" {
void* malloc(std::size_t n) {
  gMallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t m) {
  gMallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, m);
}
void* realloc(void* p, std::size_t n) {
  gMallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* memalign(std::size_t a, std::size_t n) {
  gMallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(a, n);
}
void* aligned_alloc(std::size_t a, std::size_t n) { return memalign(a, n); }
int posix_memalign(void** p, std::size_t a, std::size_t n) {
  *p = memalign(a, n);
  return *p ? 0 : 12;  // ENOMEM
}
}
#endif
