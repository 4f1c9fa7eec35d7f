// detail::LargePageDoubles (model.hpp): the workspace's blocks on large pages when large,
// through LargePageAllocator (large_pages.hpp, internal: the mapping calls stay out of the
// public headers).
#include <algorithm>

#include "joinery/core/large_pages.hpp"
#include "joinery/core/model.hpp"

namespace joinery::detail {

void LargePageDoubles::release() noexcept {
  if (p_ != nullptr) LargePageAllocator<double>().deallocate(p_, n_);
  p_ = nullptr;
  n_ = 0;
}

void LargePageDoubles::assign(std::size_t n, double v) {
  if (n != n_) {
    release();
    if (n > 0) p_ = LargePageAllocator<double>().allocate(n);
    n_ = n;
  }
  std::fill(p_, p_ + n_, v);
}

LargePageDoubles::LargePageDoubles(const LargePageDoubles& o) {
  assign(o.n_, 0.0);
  std::copy(o.p_, o.p_ + o.n_, p_);
}

LargePageDoubles& LargePageDoubles::operator=(const LargePageDoubles& o) {
  if (this != &o) {
    assign(o.n_, 0.0);
    std::copy(o.p_, o.p_ + o.n_, p_);
  }
  return *this;
}

LargePageDoubles::LargePageDoubles(LargePageDoubles&& o) noexcept : p_(o.p_), n_(o.n_) {
  o.p_ = nullptr;
  o.n_ = 0;
}

LargePageDoubles& LargePageDoubles::operator=(LargePageDoubles&& o) noexcept {
  if (this != &o) {
    release();
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

LargePageDoubles::~LargePageDoubles() { release(); }

}  // namespace joinery::detail
