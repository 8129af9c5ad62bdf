// Which particles are due at the next block time, in O(active) per block step instead of a scan of
// all N. Particles are kept in levels k with step dt_max / 2^k. All members of a level share one
// next time: a particle may join level k at time t only if t is a multiple of its step, and a level
// whose members are not due at t has a next time that t does not reach on that grid, so a particle
// can only join a level that is empty or due at the same t (checked).
#pragma once

#include <vector>

namespace pairwise::nbody {

class BlockSchedule {
 public:
  explicit BlockSchedule(double dt_max) : dt_max_(dt_max) {}

  // Puts particle i, last corrected at t_last, on the level of its power-of-two step dt.
  void assign(int i, double t_last, double dt);
  // The earliest next time over all levels (HUGE_VAL when empty).
  double next_time() const;
  // Moves every particle due at next_time() into `due`, in ascending index order.
  void take_due(std::vector<int>& due);

 private:
  struct Level {
    double next_time = 0;
    std::vector<int> members;
  };
  double dt_max_;
  std::vector<Level> levels_;  // index k: step dt_max / 2^k
};

}  // namespace pairwise::nbody
