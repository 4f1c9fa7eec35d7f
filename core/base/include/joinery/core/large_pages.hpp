#pragma once
// Internal to joinery (namespace detail): storage on large (2 MiB) pages for the arrays an
// evaluation of a large model streams through (the workspace's blocks, the structured
// factorization). With 4 KiB pages, an evaluation of the 65 536-link chain touches tens of
// thousands of pages, each a TLB miss and a stop for the hardware prefetcher; large pages save a
// part of that time (measured in bench/results/performance-rounds.md, "Large pages").
//
// Arrays of at least kLargePageBytes get a mapping of their own, 2 MiB-aligned and marked
// MADV_HUGEPAGE before their first touch, so the kernel backs them with large pages where
// transparent huge pages are on ("always", or "madvise", Debian's default); elsewhere the hint
// is ignored and the memory is ordinary. Smaller arrays, and every array under AddressSanitizer
// (which checks heap blocks, not mappings), come from operator new, aligned to a cache line.
// Allocates only where the container does (set-up), never in an evaluation.
#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace joinery::detail {

#if defined(__SANITIZE_ADDRESS__)
#define JOINERY_LARGE_PAGES_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define JOINERY_LARGE_PAGES_OFF 1
#endif
#endif

inline constexpr std::size_t kLargePage = std::size_t{2} << 20;
/// Every array starts on a cache line (also below kLargePageBytes).
inline constexpr std::size_t kLineBytes = 64;
/// Arrays from this size on get their own mapping (half a large page: smaller ones would
/// waste most of the page they occupy).
inline constexpr std::size_t kLargePageBytes = kLargePage / 2;

template <class T>
struct LargePageAllocator {
  using value_type = T;
  LargePageAllocator() noexcept = default;
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
#if defined(__linux__) && !defined(JOINERY_LARGE_PAGES_OFF)
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= kLargePageBytes) {
      const std::size_t len = rounded(bytes);
      // over-map by one large page, keep the 2 MiB-aligned part, return the rest
      const std::size_t span = len + kLargePage;
      void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (raw == MAP_FAILED) throw std::bad_alloc();
      const auto base = reinterpret_cast<std::uintptr_t>(raw);
      const std::uintptr_t aligned = (base + kLargePage - 1) & ~(std::uintptr_t{kLargePage} - 1);
      if (aligned > base) ::munmap(raw, aligned - base);
      const std::uintptr_t end = base + span, keptEnd = aligned + len;
      if (end > keptEnd) ::munmap(reinterpret_cast<void*>(keptEnd), end - keptEnd);
      ::madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);  // a hint
      return reinterpret_cast<T*>(aligned);
    }
#endif
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kLineBytes}));
  }
  void deallocate(T* p, [[maybe_unused]] std::size_t n) noexcept {
#if defined(__linux__) && !defined(JOINERY_LARGE_PAGES_OFF)
    if (n * sizeof(T) >= kLargePageBytes) {
      ::munmap(p, rounded(n * sizeof(T)));
      return;
    }
#endif
    ::operator delete(p, std::align_val_t{kLineBytes});  // unsized: clang leaves sized delete off
  }
  friend bool operator==(const LargePageAllocator&, const LargePageAllocator&) noexcept { return true; }

 private:
  static std::size_t rounded(std::size_t bytes) noexcept {
    return (bytes + kLargePage - 1) / kLargePage * kLargePage;
  }
};

/// std::vector on large pages from kLargePageBytes on.
template <class T>
using LargePageVector = std::vector<T, LargePageAllocator<T>>;

}  // namespace joinery::detail
