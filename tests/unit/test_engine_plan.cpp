// The all-pairs engine's planner (src/engine/all_pairs_plan.cpp): plans cover every target,
// respect the partial-sum cap, split the sources when the targets alone cannot fill the GPU and do
// not split them when they can.
#include <gtest/gtest.h>

#include "engine/all_pairs.hpp"

namespace pairwise::test {
namespace {

using engine::AllPairsCostModel;
using engine::AllPairsPlan;
using engine::kAllPairsThreads;

AllPairsCostModel ga_like_model() {
  AllPairsCostModel m;
  m.per_pair = 14.2;
  m.loads_per_source = 1.0;
  m.components = 4;
  m.partial_bytes_per_target = 7 * 4;
  m.shapes = {{2, 4, 1.0}, {4, 2, 1.0}, {8, 2, 1.08}};
  return m;
}

int targets_covered(const AllPairsPlan& p) {
  return p.i_blocks * (kAllPairsThreads / p.q) * p.i_per_thread;
}

TEST(EnginePlan, CoversEveryTargetAndStaysInRange) {
  const auto model = ga_like_model();
  for (int n : {1, 100, 4096, 65536, 262144, 1048576}) {
    const AllPairsPlan p = engine::plan_all_pairs(model, n, n, 132, std::size_t(256) << 20);
    EXPECT_GE(targets_covered(p), n) << n;
    EXPECT_LT(targets_covered(p) - n, (kAllPairsThreads / p.q) * p.i_per_thread) << n;
    const int n_tiles = (n + kAllPairsThreads - 1) / kAllPairsThreads;
    EXPECT_GE(p.splits, 1);
    EXPECT_LE(p.splits, n_tiles) << n;
    EXPECT_TRUE(p.q == 1 || p.q == 2 || p.q == 4 || p.q == 8);
    EXPECT_FALSE(p.small);
  }
}

// Few targets: the sources are split over many blocks so all 132 SMs work; many targets: few
// splits.
TEST(EnginePlan, SplitsSourcesOnlyWhenTargetsAreFew) {
  const auto model = ga_like_model();
  const AllPairsPlan few = engine::plan_all_pairs(model, 4096, 4096, 132, std::size_t(256) << 20);
  EXPECT_GE(few.i_blocks * few.splits, 132);
  EXPECT_GT(few.splits, 1);
  const AllPairsPlan many =
      engine::plan_all_pairs(model, 1 << 20, 1 << 20, 132, std::size_t(256) << 20);
  // (It may still split a little to even out the last wave of blocks over the SMs.)
  EXPECT_GE((1 << 20) / kAllPairsThreads / many.splits, 64);
  EXPECT_LT(many.splits, few.splits);
  // The chosen plan is the modeled minimum: no other split count of that shape is cheaper.
  double best = 0;
  const AllPairsPlan p =
      engine::plan_all_pairs(model, 20000, 20000, 132, std::size_t(256) << 20, &best);
  const engine::AllPairsShape shape{p.i_per_thread, p.i_per_thread == 2 ? 4 : 2,
                                    p.i_per_thread == 8 ? 1.08 : 1.0};
  EXPECT_DOUBLE_EQ(engine::all_pairs_plan_cost(model, shape, p, 20000, 20000, 132), best);
  for (int s = 1; s <= (20000 + 255) / 256; ++s) {
    AllPairsPlan t = p;
    t.splits = s;
    EXPECT_GE(engine::all_pairs_plan_cost(model, shape, t, 20000, 20000, 132), best * 0.999) << s;
  }
}

TEST(EnginePlan, RespectsThePartialSumCap) {
  const auto model = ga_like_model();
  const std::size_t cap = 1 << 20;
  const AllPairsPlan p = engine::plan_all_pairs(model, 4096, 1 << 20, 132, cap);
  EXPECT_TRUE(p.splits == 1 || engine::all_pairs_partial_bytes(model, p, 4096) <= cap);
  EXPECT_EQ(engine::all_pairs_partial_bytes(model, p, 4096),
            std::size_t(7 * 4) * std::size_t(p.splits) * 4096);
}

}  // namespace
}  // namespace pairwise::test
