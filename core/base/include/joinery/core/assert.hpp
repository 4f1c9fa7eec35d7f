#pragma once
/// @file assert.hpp
/// Checks come in three kinds in joinery:
///   - bad input (a file, a parameter, a program's argument) throws a typed error
///     (errors.hpp: InputError, ModelError, ...), always;
///   - a broken invariant of the library itself aborts (a bug, not an input problem);
///   - size and index checks on the hot path are JOINERY_ASSERT: compiled in debug builds
///     (NDEBUG not defined) and free in release builds.

#include <cstdio>
#include <cstdlib>

namespace joinery::detail {

/// Reports a failed JOINERY_ASSERT on stderr and aborts (debug builds only).
[[noreturn]] inline void assertionFailed(const char* condition, const char* message, const char* file,
                                         int line) noexcept {
  std::fprintf(stderr, "joinery: assertion failed at %s:%d: %s (%s)\n", file, line, condition, message);
  std::abort();
}

}  // namespace joinery::detail

#ifdef NDEBUG
#define JOINERY_ASSERT(condition, message) static_cast<void>(0)
#else
#define JOINERY_ASSERT(condition, message) \
  ((condition) ? static_cast<void>(0) : ::joinery::detail::assertionFailed(#condition, message, __FILE__, __LINE__))
#endif
