// The stepping loop shared by the workloads' run() (include/pairwise/types.hpp, Observer): steps
// in chunks that end at every multiple of an observer's `every` and at the last step, calling the
// due observers after each chunk.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "pairwise/types.hpp"

namespace pairwise::api {

// `step` is the number of steps taken so far; advance(first, count) takes steps
// first..first+count-1 (1-based step indices) and leaves `step` = first + count - 1. `check` runs
// before the observers of a chunk end (e.g. the blow-up test) and once at the end.
inline void run_in_chunks(const std::int64_t& step, std::int64_t steps, const Observers& observers,
                          const std::function<void(std::int64_t, std::int64_t)>& advance,
                          const std::function<void()>& check) {
  for (const auto& o : observers)
    if (o.every < 1) throw InvalidArgument("an observer's every must be >= 1", "run");
  const std::int64_t end = step + steps;
  while (step < end) {
    std::int64_t next = std::min(end, step + (std::int64_t(1) << 30));  // chunks fit an int
    for (const auto& o : observers) next = std::min(next, (step / o.every + 1) * o.every);
    advance(step + 1, next - step);
    bool checked = false;
    for (const auto& o : observers)
      if (step % o.every == 0 || step == end) {
        if (!checked) check(), checked = true;
        if (o.call) o.call(step);
      }
  }
  if (steps > 0) check();
}

}  // namespace pairwise::api
