#pragma once
// JOINERY_TEST_ASAN: defined when the test is built with AddressSanitizer (GCC defines
// __SANITIZE_ADDRESS__; clang answers __has_feature(address_sanitizer)).
#if defined(__SANITIZE_ADDRESS__)
#define JOINERY_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JOINERY_TEST_ASAN 1
#endif
#endif

namespace joinery::test {
/// The size of a long case's instance: `full` normally, `underAsan` under AddressSanitizer,
/// where each process and each dense solve is about ten times slower (docs/testing.md: the
/// release pass runs the full instance; the smaller one goes through the same code paths).
template <class T>
T sizeForSanitizers([[maybe_unused]] T full, [[maybe_unused]] T underAsan) {
#ifdef JOINERY_TEST_ASAN
  return underAsan;
#else
  return full;
#endif
}
}  // namespace joinery::test
