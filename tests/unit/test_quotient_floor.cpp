// md::quotient_floor (src/md/quotient_floor.hpp: the md domain engine's wraps, owners and cells on
// the GPU) against std::floor(a / b * scale), bit for bit: random quotients, quotients at and one
// or two ulps around integers (the division's own rounding decides those), boxes and domain counts
// of the engine's sizes, negative numerators (atoms below the box), NaN and infinities.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "md/quotient_floor.hpp"

namespace pairwise::md {
namespace {

void expect_division_floor(double a, double b, double scale) {
  const double want = std::floor(a / b * scale);
  const double got = quotient_floor(a, b, 1 / b, scale);
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << a << " / " << b << " * " << scale;
    return;
  }
  EXPECT_EQ(got, want) << std::hexfloat << a << " / " << b << " * " << scale;
}

TEST(QuotientFloor, RandomQuotientsMatchTheDivision) {
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> length(2.8, 600.0), frac(-1.5, 2.5);
  const double scales[] = {1, 2, 3, 4, 7, 8, 64};
  for (int k = 0; k < 200000; ++k) {
    const double b = length(rng), a = frac(rng) * b;
    expect_division_floor(a, b, scales[k % 7]);
  }
}

TEST(QuotientFloor, QuotientsAtAndNextToIntegersMatchTheDivision) {
  // a = m · b / scale and its neighbours a few ulps away: the division's rounding decides.
  const double lengths[] = {134.37, 268.75, 6.7183, 2.8, 1.0, 3.0, 0.1};
  const double scales[] = {1, 2, 3, 4};
  for (double b : lengths)
    for (double scale : scales)
      for (int m = -3; m <= 8; ++m) {
        double a = m * b / scale;
        for (int u = 0; u < 3; ++u) a = std::nextafter(a, -INFINITY);
        for (int u = 0; u < 7; ++u, a = std::nextafter(a, INFINITY))
          expect_division_floor(a, b, scale);
      }
}

TEST(QuotientFloor, NonFiniteNumeratorsFallBackToTheDivision) {
  const double inf = std::numeric_limits<double>::infinity();
  expect_division_floor(std::numeric_limits<double>::quiet_NaN(), 134.37, 1);
  expect_division_floor(inf, 134.37, 2);
  expect_division_floor(-inf, 134.37, 1);
  expect_division_floor(0.0, 134.37, 1);
  expect_division_floor(-0.0, 134.37, 1);
}

}  // namespace
}  // namespace pairwise::md
