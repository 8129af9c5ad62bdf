// The rand48 family (POSIX drand48/lrand48, as glibc implements them) with van Meel et al.'s leap
// ahead for parallel streams: X_{k+1} = (a X_k + c) mod 2^48, a = 0x5DEECE66D, c = 0xB.
//   srand48(seed):  X_0 = (seed mod 2^32) · 2^16 + 0x330E. glibc keeps only the low 32 bits of the
//                   seed (its srand48_r masks a 64-bit long with 0xffffffff), so 2^32 + 7 seeds
//                   like 7 (tests/unit/test_rng_rand48.cpp checks this against glibc itself).
//   lrand48():      X_{k+1} >> 17            (31 bits, in [0, 2^31))
//   drand48():      X_{k+1} · 2^-48          (exact in double)
// Leap ahead by m: X_{k+m} = (A X_k + C) mod 2^48 with A = a^m, C = c (a^m − 1)/(a − 1), both mod
// 2^48, computed by repeated squaring of the affine map (no division). Thread t of T starts at
// X_0 advanced by t + 1 and leaps by T: the union of the threads' draws is glibc's sequence.
#pragma once

#include <cstdint>

#include "pairwise/hd.hpp"

namespace pairwise::random {

inline constexpr std::uint64_t kRand48A = 0x5DEECE66Dull, kRand48C = 0xBull;
inline constexpr std::uint64_t kRand48Mask = (std::uint64_t(1) << 48) - 1;

// An affine map X → (a X + c) mod 2^48.
struct Rand48Leap {
  std::uint64_t a = kRand48A, c = kRand48C;
};

PW_HD std::uint64_t rand48_seed_state(std::uint64_t seed) {
  return ((seed & 0xffffffffull) << 16) | 0x330Eull;
}

PW_HD std::uint64_t rand48_next(std::uint64_t x, const Rand48Leap& l = {}) {
  return (l.a * x + l.c) & kRand48Mask;
}

// The map applied m times (m >= 0): square-and-multiply on (a, c).
PW_HD Rand48Leap rand48_leap(std::uint64_t m) {
  Rand48Leap result{1, 0}, power{};
  while (m) {
    if (m & 1)
      result = {(result.a * power.a) & kRand48Mask, (result.c * power.a + power.c) & kRand48Mask};
    power = {(power.a * power.a) & kRand48Mask, (power.c * power.a + power.c) & kRand48Mask};
    m >>= 1;
  }
  return result;
}

PW_HD std::int64_t rand48_lrand(std::uint64_t x) {
  return std::int64_t(x >> 17);
}
PW_HD double rand48_drand(std::uint64_t x) {
  return double(x) * 3.5527136788005009e-15;
}  // 2^-48

// A sequential generator with glibc's semantics.
class Rand48 {
 public:
  explicit Rand48(std::uint64_t seed) : x_(rand48_seed_state(seed)) {}
  std::int64_t lrand48() { return rand48_lrand(x_ = rand48_next(x_)); }
  double drand48() { return rand48_drand(x_ = rand48_next(x_)); }
  std::uint64_t state() const { return x_; }

 private:
  std::uint64_t x_;
};

}  // namespace pairwise::random
