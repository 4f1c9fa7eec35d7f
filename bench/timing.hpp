#pragma once
// Timing protocol shared by the chain forward-dynamics programs of joinery, Simbody and DART
// (bench/chain_fd.cpp, bench/peers/): the same loop for every engine, so that ratios measured
// in one session are honest. A call alternates between two states (q and q + 1e-9 in one
// coordinate) so that no engine can reuse a cache; at least `minSeconds` and `minCalls` calls,
// after 3 warm-up calls; the mean time per call. Also the mean CPU time of the calling thread
// per call (`cpuNs`): on a loaded machine wall time includes waiting for a core, CPU time does
// not (cache effects of the other load remain).
#include <time.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace joinery::benchtiming {

inline double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double threadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

template <class F>
double meanNanoseconds(F&& f, double minSeconds, long minCalls, long& calls, double* cpuNs = nullptr) {
  for (int j = 0; j < 3; ++j) f(j & 1);
  long k = 0, batch = 1;
  const double c0 = threadCpuSeconds();
  const double t0 = nowSeconds();
  double t1 = t0;
  for (;;) {
    for (long j = 0; j < batch; ++j, ++k) f(static_cast<int>(k & 1));
    t1 = nowSeconds();
    if (t1 - t0 >= minSeconds && k >= minCalls) break;
    if (batch < (1L << 20)) batch *= 2;
  }
  calls = k;
  if (cpuNs) *cpuNs = (threadCpuSeconds() - c0) / static_cast<double>(k) * 1e9;
  return (t1 - t0) / static_cast<double>(k) * 1e9;
}

/// "x,y,z" -> out[0..2]; false when malformed (`V`: anything with operator[](int)).
template <class V>
bool parseTriple(const std::string& text, V& out) {
  std::size_t start = 0;
  for (int k = 0; k < 3; ++k) {
    const std::size_t end = text.find(',', start);
    if ((k < 2) != (end != std::string::npos)) return false;  // exactly two commas
    try {
      std::size_t used = 0;
      const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      out[k] = std::stod(part, &used);
      if (used != part.size()) return false;
    } catch (...) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

/// A number for a JSON line: 17 significant digits, `null` when not finite.
inline std::string jsonNumber(double x) {
  if (!std::isfinite(x)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// "--name value" from the command line, or the default.
inline std::string arg(int argc, char** argv, const char* name, const char* def) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}

}  // namespace joinery::benchtiming
