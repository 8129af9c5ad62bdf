// The block-step schedule: levels by power-of-two step, due particles in index order.
#include <gtest/gtest.h>

#include <cmath>

#include "nbody/block_schedule.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {
namespace {

TEST(BlockSchedule, TakesTheParticlesDueAtTheEarliestTimeInIndexOrder) {
  BlockSchedule s(1.0);
  s.assign(3, 0.0, 0.25);
  s.assign(0, 0.0, 0.5);
  s.assign(1, 0.0, 0.25);
  s.assign(2, 0.0, 1.0);
  std::vector<int> due;
  EXPECT_EQ(s.next_time(), 0.25);
  s.take_due(due);
  EXPECT_EQ(due, (std::vector<int>{1, 3}));
  s.assign(1, 0.25, 0.25);   // stays on its level
  s.assign(3, 0.25, 0.125);  // halves its step
  EXPECT_EQ(s.next_time(), 0.375);
  s.take_due(due);
  EXPECT_EQ(due, (std::vector<int>{3}));
  s.assign(3, 0.375, 0.125);
  s.take_due(due);  // t = 0.5: levels 0.5, 0.25 and 0.125 are all due
  EXPECT_EQ(due, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(s.next_time(), 1.0);
}

TEST(BlockSchedule, RejectsAStepOffTheBlockGrid) {
  BlockSchedule s(1.0);
  s.assign(0, 0.0, 0.5);
  // Level 0.5 is due at 0.5; a particle joining it from t = 0.25 would be due at 0.75.
  EXPECT_THROW(s.assign(1, 0.25, 0.5), Error);
}

TEST(BlockSchedule, EmptyScheduleHasNoNextTime) {
  BlockSchedule s(0.0625);
  EXPECT_TRUE(std::isinf(s.next_time()));
  EXPECT_TRUE(std::isinf(BlockSchedule(1.0).next_time()));
  std::vector<int> due{7};
  s.take_due(due);
  EXPECT_TRUE(due.empty());
}

}  // namespace
}  // namespace pairwise::nbody
