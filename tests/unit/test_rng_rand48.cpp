// rand48 equals glibc's lrand48 and drand48 bit for bit for seeds 0, 1, 12345 and 2^32 + 7 over
// 10^6 draws each, sequentially, in parallel on the cpu backend (leap ahead), and on cuda.
#include <gtest/gtest.h>

#include <cstdlib>

#include "md/rand48.hpp"
#include "pairwise/random/rand48.hpp"

namespace {

using namespace pairwise;
constexpr std::size_t kDraws = 1000000;
const long kSeeds[] = {0L, 1L, 12345L, (1L << 32) + 7};

TEST(RngRand48, SequentialEqualsGlibc) {
  for (long seed : kSeeds) {
    srand48(seed);
    random::Rand48 r{std::uint64_t(seed)};
    for (std::size_t k = 0; k < kDraws; ++k) ASSERT_EQ(r.lrand48(), lrand48()) << seed << " " << k;
    srand48(seed);
    random::Rand48 d{std::uint64_t(seed)};
    for (std::size_t k = 0; k < kDraws; ++k) ASSERT_EQ(d.drand48(), drand48()) << seed << " " << k;
  }
}

TEST(RngRand48, GlibcKeepsTheLow32BitsOfTheSeed) {
  srand48((1L << 32) + 7);
  const long a = lrand48();
  srand48(7);
  EXPECT_EQ(a, lrand48());
}

TEST(RngRand48, LeapAheadComposes) {
  std::uint64_t x = random::rand48_seed_state(99);
  std::uint64_t y = x;
  for (int k = 0; k < 1000; ++k) y = random::rand48_next(y);
  EXPECT_EQ(random::rand48_next(x, random::rand48_leap(1000)), y);
  EXPECT_EQ(random::rand48_next(x, random::rand48_leap(0)), x);
}

void check_parallel(BackendKind backend) {
  for (long seed : kSeeds) {
    const auto states = md::rand48_states(backend, std::uint64_t(seed), kDraws);
    srand48(seed);
    for (std::size_t k = 0; k < kDraws; ++k)
      ASSERT_EQ(random::rand48_lrand(states[k]), lrand48()) << seed << " " << k;
    srand48(seed);
    for (std::size_t k = 0; k < kDraws; ++k)
      ASSERT_EQ(random::rand48_drand(states[k]), drand48()) << seed << " " << k;
  }
}

TEST(RngRand48, CpuParallelEqualsGlibc) {
  check_parallel(BackendKind::cpu);
}

TEST(RngRand48, CudaEqualsGlibc) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  check_parallel(BackendKind::cuda);
}

}  // namespace
