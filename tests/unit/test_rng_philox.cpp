// Philox4x32-10 against Random123's known-answer vectors (kat_vectors: counter, key -> output),
// and the uniform/normal helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "pairwise/random/philox.hpp"

namespace {

using pairwise::random::Philox4x32Block;

struct Kat {
  std::uint32_t ctr[4], key[2], out[4];
};

TEST(RngPhilox, Random123KnownAnswers) {
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    const Philox4x32Block r = pairwise::random::philox4x32_10(
        {{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}}, k.key[0], k.key[1]);
    for (int w = 0; w < 4; ++w) EXPECT_EQ(r.v[w], k.out[w]) << "word " << w;
  }
}

TEST(RngPhilox, DrawLayoutIsCounterStepParticleStream) {
  const std::uint64_t seed = 0x299f31d0a4093822ull, step = 0x85a308d3243f6a88ull;
  const auto r = pairwise::random::philox_draw(seed, step, 0x13198a2e, 0x03707344);
  EXPECT_EQ(r.v[0], 0xd16cfe09u);
  EXPECT_EQ(r.v[3], 0x24126ea1u);
}

TEST(RngPhilox, UniformsInOpenClosedUnitInterval) {
  EXPECT_GT(pairwise::random::uniform01<double>(0), 0.0);
  EXPECT_LE(pairwise::random::uniform01<double>(0xffffffffu), 1.0);
  EXPECT_GT(pairwise::random::uniform01_53(0, 0), 0.0);
  EXPECT_LE(pairwise::random::uniform01_53(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_LT(pairwise::random::uniform01_53(0xffffffffu, 0xfffff000u), 1.0);
}

TEST(RngPhilox, NormalMomentsOverManyBlocks) {
  const int blocks = 50000;
  double s1 = 0, s2 = 0, s4 = 0;
  for (int i = 0; i < blocks; ++i) {
    double n[4];
    pairwise::random::normal4(pairwise::random::philox_draw(42, 7, std::uint32_t(i), 0), n[0], n[1],
                              n[2], n[3]);
    for (double x : n) s1 += x, s2 += x * x, s4 += x * x * x * x;
  }
  const double m = 4.0 * blocks;
  EXPECT_NEAR(s1 / m, 0.0, 5.0 / std::sqrt(m));
  EXPECT_NEAR(s2 / m, 1.0, 5.0 * std::sqrt(2.0 / m));
  EXPECT_NEAR(s4 / m, 3.0, 5.0 * std::sqrt(96.0 / m));
}

}  // namespace
