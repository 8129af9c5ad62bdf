// Timing helpers of the benchmarks: medians of repeated measurements (robust to the odd slow run
// of a shared machine, as BENCHMARKS.md asks for).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace pairwise {

// The median of `samples` (the upper one of the two middle values for an even count).
inline double median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  const auto middle = samples.begin() + samples.size() / 2;
  std::nth_element(samples.begin(), middle, samples.end());
  return *middle;
}

// Median wall-clock seconds of `repeats` (at least 1) calls of `work`, after one warm-up call
// (first touch of the outputs, thread-pool start).
template <class Work>
double median_wall_seconds(Work&& work, int repeats) {
  work();
  std::vector<double> seconds;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return median(std::move(seconds));
}

}  // namespace pairwise
