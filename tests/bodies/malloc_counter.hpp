#pragma once
// Number of malloc/calloc/realloc/memalign calls so far in this test executable
// (malloc_counter.cpp).
namespace joinery::test {
/// False in AddressSanitizer builds, where malloc is not interposed (mallocCount() stays 0).
bool mallocCounting();
long mallocCount();
}
