// Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC11):
// a counter-based generator. The output is a pure function of a 128-bit counter and a 64-bit key,
// so every (seed, step, particle) triple gets its own independent draws on any backend, in any
// thread order, with no state to store. Verified against Random123's kat_vectors
// (tests/unit/test_rng_philox.cpp).
//
//   Philox4x32 g(key);  auto r = g(counter);                     // 4 × uint32
//   uniform01<T>(u)     in (0, 1]   (never 0: safe for log)
//   normal4(r, n0..n3)  four N(0, 1) draws by Box–Muller from one block
//
// Conventions used by pairwise (dynamics.hpp): key = {seed low 32 bits, seed high 32 bits},
// counter = {step low, step high, particle id, stream}, where `stream` separates independent uses
// within one step (0: Langevin noise, 1: Andersen collision test, 2: Andersen velocities).
#pragma once

#include <cmath>
#include <cstdint>

#include "pairwise/hd.hpp"

namespace pairwise::random {

struct Philox4x32Block {
  std::uint32_t v[4];
};

PW_HD void philox_mulhilo(std::uint32_t a, std::uint32_t b, std::uint32_t& hi, std::uint32_t& lo) {
#if defined(__CUDA_ARCH__)
  lo = a * b;
  hi = __umulhi(a, b);
#else
  const std::uint64_t p = std::uint64_t(a) * std::uint64_t(b);
  lo = std::uint32_t(p);
  hi = std::uint32_t(p >> 32);
#endif
}

// One Philox4x32-10 block: counter c, key k.
PW_HD Philox4x32Block philox4x32_10(Philox4x32Block c, std::uint32_t k0, std::uint32_t k1) {
  constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
  constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    std::uint32_t hi0, lo0, hi1, lo1;
    philox_mulhilo(M0, c.v[0], hi0, lo0);
    philox_mulhilo(M1, c.v[2], hi1, lo1);
    c = {{hi1 ^ c.v[1] ^ k0, lo1, hi0 ^ c.v[3] ^ k1, lo0}};
    k0 += W0;
    k1 += W1;
  }
  return c;
}

// The counter/key layout pairwise uses: key = seed, counter = (step, particle, stream).
PW_HD Philox4x32Block philox_draw(std::uint64_t seed, std::uint64_t step, std::uint32_t particle,
                                  std::uint32_t stream) {
  return philox4x32_10({{std::uint32_t(step), std::uint32_t(step >> 32), particle, stream}},
                       std::uint32_t(seed), std::uint32_t(seed >> 32));
}

// Uniform in (0, 1]: (u + 1) · 2^-32 for float (rounded; may give exactly 1), or with 53 bits
// from two words for double.
template <class T>
PW_HD T uniform01(std::uint32_t u) {
  return (T(u) + T(1)) * T(2.3283064365386963e-10);  // 2^-32
}
PW_HD double uniform01_53(std::uint32_t hi, std::uint32_t lo) {
  const std::uint64_t bits = (std::uint64_t(hi) << 21) ^ std::uint64_t(lo >> 11);  // 53 bits
  return (double(bits) + 1.0) * 1.1102230246251565e-16;                            // 2^-53
}

// Four standard normal deviates from one block (Box–Muller on two pairs), in double.
PW_HD void normal4(const Philox4x32Block& r, double& n0, double& n1, double& n2, double& n3) {
  constexpr double two_pi = 6.283185307179586;
  const double u0 = uniform01<double>(r.v[0]), u1 = uniform01<double>(r.v[1]);
  const double u2 = uniform01<double>(r.v[2]), u3 = uniform01<double>(r.v[3]);
  const double ra = std::sqrt(-2.0 * std::log(u0)), rb = std::sqrt(-2.0 * std::log(u2));
  n0 = ra * std::cos(two_pi * u1);
  n1 = ra * std::sin(two_pi * u1);
  n2 = rb * std::cos(two_pi * u3);
  n3 = rb * std::sin(two_pi * u3);
}

}  // namespace pairwise::random
