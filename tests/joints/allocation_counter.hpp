#pragma once
// Number of global operator new calls so far in this test executable (allocation_counter.cpp).
namespace joinery::test {
long heapAllocations();
}
