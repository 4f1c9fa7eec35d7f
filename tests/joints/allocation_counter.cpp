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
// The nothrow forms too (std::stable_sort's temporary buffer uses them): left to the runtime,
// they would allocate with its operator new and free with ours (ASan: alloc-dealloc mismatch).
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  ++gAllocations;
  return std::malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  ++gAllocations;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
