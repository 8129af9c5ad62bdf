#include "nbody/block_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "pairwise/error.hpp"

namespace pairwise::nbody {

void BlockSchedule::assign(int i, double t_last, double dt) {
  const auto k = static_cast<std::size_t>(std::lround(std::log2(dt_max_ / dt)));
  if (levels_.size() <= k) levels_.resize(k + 1);
  Level& level = levels_[k];
  const double next = t_last + dt;
  if (level.members.empty()) {
    level.next_time = next;
  } else if (level.next_time != next) {
    throw Error("internal error: block step of particle " + std::to_string(i) +
                " does not fit the block structure (next time " + std::to_string(next) +
                ", level " + std::to_string(level.next_time) + ")");
  }
  level.members.push_back(i);
}

double BlockSchedule::next_time() const {
  double t = HUGE_VAL;
  for (const Level& level : levels_)
    if (!level.members.empty()) t = std::min(t, level.next_time);
  return t;
}

void BlockSchedule::take_due(std::vector<int>& due) {
  const double t = next_time();
  due.clear();
  for (Level& level : levels_) {
    if (level.members.empty() || level.next_time != t) continue;
    due.insert(due.end(), level.members.begin(), level.members.end());
    level.members.clear();
  }
  std::sort(due.begin(), due.end());
}

}  // namespace pairwise::nbody
