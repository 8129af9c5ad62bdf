// The potmap evaluator's FMA-pipe reciprocal square root (physics::rsqrt_fma, used by the cuda
// direct kernel for a fraction of its points) against 1/sqrt in double: as accurate as the
// special-function unit's rsqrt.approx (2^-22.9 relative) and unbiased, over every float of the
// two binades the magic-constant guess distinguishes and over the exponents of any lattice.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "pairwise/physics/coulomb_potential.hpp"

namespace pairwise::test {
namespace {

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(PotmapEvaluator, FmaRsqrtIsAsAccurateAsTheSpecialFunctionUnit) {
  const std::uint32_t lo = 0x3f800000u, hi = 0x40800000u;  // [1, 4): every mantissa, both parities
  double worst = 0, sum = 0;
  long count = 0;
  for (std::uint32_t i = lo; i < hi; ++i) {
    const float x = from_bits(i);
    const double rel = double(physics::rsqrt_fma(x)) * std::sqrt(double(x)) - 1.0;
    worst = std::max(worst, std::abs(rel));
    sum += rel;
    ++count;
  }
  EXPECT_LT(worst, 1.0e-7);  // rsqrt.approx: 1.3e-7
  EXPECT_LT(std::abs(sum / double(count)), 1.0e-8);
  // Exponents: the error depends only on the mantissa and the exponent's parity.
  for (int e = -120; e <= 120; e += 7) {
    for (const float m : {1.0f, 1.37f, 2.0f, 3.99f}) {
      const float x = std::ldexp(m, e);
      const double rel = double(physics::rsqrt_fma(x)) * std::sqrt(double(x)) - 1.0;
      EXPECT_LT(std::abs(rel), 1.0e-7) << x;
    }
  }
}

}  // namespace
}  // namespace pairwise::test
