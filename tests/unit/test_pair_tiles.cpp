// engine/pair_tiles.cuh on the host: the exact accumulator (split of a float into two 32-bit
// word and integer, integer word sums, rounding to double) and the triangle tile enumeration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <vector>

#include "engine/pair_tiles.cuh"

namespace pairwise::test {
namespace {

using engine::kExactWords;

// Word sums as the device forms them with atomics (integer adds commute).
struct HostExact {
  long long words[kExactWords] = {};
  void add(float v) {
    int w = 0;
    long long q = 0;
    const int kind = engine::exact_split(v, &w, &q);
    if (kind < 0) words[engine::kExactDigits] += 1;
    if (kind <= 0) return;
    ASSERT_GE(w, 0);
    ASSERT_LT(w, engine::kExactDigits);
    EXPECT_LT(std::llabs(q), 1LL << 40);
    EXPECT_GE(std::llabs(q), 1LL << 24) << v;  // the 24 bits of a normal float, at least
    words[w] = (long long)((unsigned long long)words[w] + (unsigned long long)q);
  }
  double value() const { return engine::exact_value(words, 1); }
};

// Σ v in double-double (Knuth's two-sum): the reference for sums of floats.
double compensated_sum(const std::vector<float>& v) {
  double s = 0, c = 0;
  for (float x : v) {
    const double t = s + x;
    const double bp = t - s;
    c += (s - (t - bp)) + (double(x) - bp);
    s = t;
  }
  return s + c;
}

// exact_split_normal (exact_add's common path on the device) gives exact_split's word and integer
// for every normal float: each biased exponent 1 to 254, both signs, the smallest, largest and
// random mantissas.
TEST(PairTiles, ExactSplitNormalMatchesExactSplit) {
  std::mt19937 rng(27);
  for (std::uint32_t biased = 1; biased < 255; ++biased) {
    for (const std::uint32_t sign : {0u, 1u}) {
      std::vector<std::uint32_t> mantissas = {0u, 1u, 0x7fffffu, 0x400000u};
      for (int k = 0; k < 16; ++k) mantissas.push_back(rng() & 0x7fffffu);
      for (const std::uint32_t mant : mantissas) {
        const float v = engine::bits_float((sign << 31) | (biased << 23) | mant);
        int w = -1, w_normal = -2;
        long long q = 0, q_normal = 1;
        ASSERT_EQ(engine::exact_split(v, &w, &q), 1) << v;
        engine::exact_split_normal(v, &w_normal, &q_normal);
        ASSERT_EQ(w_normal, w) << v;
        ASSERT_EQ(q_normal, q) << v;
      }
    }
  }
}

TEST(PairTiles, ExactSumOfSingleValuesIsTheValue) {
  for (float v : {1.0f, -1.0f, 1e-10f, -3.5e8f, std::numeric_limits<float>::denorm_min(),
                  std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                  -std::numeric_limits<float>::max(), 0.1f, -7.25e-30f}) {
    HostExact e;
    e.add(v);
    EXPECT_EQ(e.value(), double(v)) << v;
  }
  HostExact zero;
  zero.add(0.0f);
  zero.add(-0.0f);
  EXPECT_EQ(zero.value(), 0.0);
  HostExact bad;
  bad.add(1.0f);
  bad.add(std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(bad.value()));
}

// Sums of values from 1e-10 to 1e8 in magnitude, both signs, in two orders: bitwise equal, and
// equal to the compensated double sum to double precision (relative to Σ|v| when they cancel).
TEST(PairTiles, ExactSumIsOrderIndependentAndAccurate) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> expo(-10.0, 8.0), sign(-1.0, 1.0);
  for (int trial = 0; trial < 50; ++trial) {
    const int n = 1 + int(rng() % 2000);
    std::vector<float> v(n);
    const bool one_sign = trial % 2 == 0;
    const double center = expo(rng);
    for (float& x : v) {
      const double e = trial % 3 == 0 ? expo(rng) : center + 0.5 * sign(rng);
      x = float(std::pow(10.0, e) * (one_sign ? 1.0 : (sign(rng) < 0 ? -1.0 : 1.0)));
    }
    HostExact forward, backward;
    for (float x : v) forward.add(x);
    std::vector<float> r = v;
    std::shuffle(r.begin(), r.end(), rng);
    for (float x : r) backward.add(x);
    const double got = forward.value();
    EXPECT_EQ(got, backward.value()) << "trial " << trial;
    double abs_sum = 0;
    for (float x : v) abs_sum += std::fabs(double(x));
    const double want = compensated_sum(v);
    EXPECT_LE(std::fabs(got - want), 4e-16 * (one_sign ? std::fabs(want) : abs_sum))
        << "trial " << trial << ": " << got << " vs " << want;
  }
}

// Exact cancellation: x + y - x - y is exactly zero at any magnitudes.
TEST(PairTiles, ExactSumCancelsExactly) {
  HostExact e;
  for (float x : {3e30f, 1e-20f, -3e30f, -1e-20f, 1e8f, -1e8f}) e.add(x);
  EXPECT_EQ(e.value(), 0.0);
  HostExact tiny;
  for (float x : {1e30f, 1e-30f, -1e30f}) tiny.add(x);
  EXPECT_EQ(tiny.value(), double(1e-30f));
}

TEST(PairTiles, TriangleTilesEnumerateTheUpperTriangle) {
  for (int nb = 1; nb <= 40; ++nb) {
    long long t = 0;
    int I = 0, J = 0;
    for (int i = 0; i < nb; ++i) {
      for (int j = i; j < nb; ++j, ++t) {
        int ti = -1, tj = -1;
        engine::triangle_tile(t, nb, &ti, &tj);
        ASSERT_EQ(ti, i) << "nb " << nb << " t " << t;
        ASSERT_EQ(tj, j) << "nb " << nb << " t " << t;
        ASSERT_EQ(I, i);
        ASSERT_EQ(J, j);
        engine::triangle_next(nb, &I, &J);
      }
    }
    EXPECT_EQ(t, engine::triangle_tiles(nb));
  }
}

TEST(PairTiles, ChunksCoverTheTilesOnce) {
  for (long long tiles : {1LL, 7LL, 561LL, 131328LL}) {
    for (long long workers : {1LL, 3LL, 2112LL}) {
      long long next = 0, smallest = tiles, largest = 0;
      for (long long w = 0; w < workers; ++w) {
        long long b = 0, e = 0;
        engine::tile_chunk(tiles, workers, w, &b, &e);
        ASSERT_EQ(b, next);
        smallest = std::min(smallest, e - b), largest = std::max(largest, e - b);
        next = e;
      }
      EXPECT_EQ(next, tiles);
      EXPECT_LE(largest - smallest, 1);
    }
  }
}

}  // namespace
}  // namespace pairwise::test
