// Replaces the global operator new/delete of the test executable to count heap allocations
// (see test_joint_allocation.cpp). Kept in its own file so that no inlined allocator code sits
// next to the replacements.
#include <atomic>
#include <cstdlib>
#include <new>

#include "allocation_counter.hpp"

namespace {
std::atomic<long> gAllocations{0};

void* allocate(std::size_t n) {
  ++gAllocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

namespace joinery::test {
long heapAllocations() { return gAllocations.load(); }
}  // namespace joinery::test

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
