#pragma once
// The allocation counters of the tests, in one place (tests/support):
//  - heapAllocations(): global operator new calls (allocation_counter.cpp replaces operator
//    new/delete; link it into the test executable). Kept in its own file so that no inlined
//    allocator code sits next to the replacements (ASan reported alloc-dealloc mismatches).
//  - mallocCount(): malloc/calloc/realloc/memalign calls (malloc_counter.cpp interposes them;
//    unlike operator new this also sees Eigen's allocations). Off in AddressSanitizer builds.
namespace joinery::test {

/// Number of global operator new calls so far in this test executable.
long heapAllocations();

/// The operator new calls made while it is alive.
class ScopedAllocationCount {
 public:
  long count() const { return heapAllocations() - start_; }

 private:
  long start_ = heapAllocations();
};

/// False in AddressSanitizer builds, where malloc is not interposed (mallocCount() stays 0).
bool mallocCounting();
/// Number of malloc/calloc/realloc/memalign calls so far in this test executable.
long mallocCount();

}  // namespace joinery::test
