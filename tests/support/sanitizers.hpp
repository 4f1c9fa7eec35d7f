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
