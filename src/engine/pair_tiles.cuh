// Generic pieces of Newton's-third-law tile kernels (each unordered pair evaluated once and applied
// to both particles), shared by workloads: the triangle tile enumeration, the lane rotation of the
// source accumulators, and an exact, order-independent accumulator of float values.
//
// Tile scheme (nbody's newton3 kernel; ljc's tiles_kernel uses the same one):
//   - the particles are cut into nb row tiles of B = 32·kI; tile (I, J) with I <= J pairs the B
//     targets of row I (kI per lane, in registers) with the B sources of column J;
//   - the upper triangle of tiles is numbered row by row (triangle_tile below) and each warp takes
//   a
//     contiguous chunk of it (tile_chunk), so every warp gets the same number of tiles ± 1;
//   - a warp stages each 32-source group of its tile twice in a row of shared memory (64 entries),
//     so at rotation step s lane L reads source (L + s) mod 32 at entry L + s (conflict-free, an
//     immediate offset in the unrolled loop); the sums on the sources travel with them one lane per
//     step (rotate_next); after 32 steps lane L holds the sums of source L;
//   - diagonal tiles (I == J) are evaluated one-sided (both orders of every pair).
//
// Exact accumulation (ExactSum): a float v = M·2^e (M a 24-bit integer, e >= -149) is an integer
// multiple of 2^-149, so it splits exactly into two 32-bit "digits" of a 320-bit fixed-point number
// whose least significant bit is 2^kExactBase (kExactBase = -160; the top digit reaches 2^160, the
// float range). Word w of a value (an int64) is the exact integer sum of every digit added at
// position w; integer addition commutes, so the result does not depend on the order of the atomics
// (bitwise reproducible), and it is exact while each word sums fewer than 2^31 values (every
// digit is below 2^32). Each add touches two consecutive words (which two depends on v's exponent),
// so any float from 1.4e-45 to 3.4e38 keeps all 24 bits, in any units. A value is kExactWords
// int64 words (10 digit words + a count of non-finite values, which decodes to NaN); a buffer of
// n values stores word w of value i at [w·stride + i] (stride >= n: coalesced over i).
// exact_value() propagates the carries in integers and rounds to double once (at most a few ulps of
// double from the exact sum, the same every run).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "pairwise/hd.hpp"

namespace pairwise::engine {

// ---- exact accumulator ----

inline constexpr int kExactDigits = 10;               // 32-bit digit words
inline constexpr int kExactWords = kExactDigits + 1;  // + the non-finite count
inline constexpr int kExactBase = -160;               // exponent of bit 0 of digit word 0

// Splits float v into digit `lo` (in [0, 2^32)) at word *w and digit `hi` (|hi| < 2^24) at word
// *w + 1, with v = lo·2^(base + 32w) + hi·2^(base + 32(w + 1)) exactly. Returns 0 for v == 0
// (nothing to add), -1 for a non-finite v, 1 otherwise.
PW_HD int exact_split(float v, int* w, long long* lo, long long* hi) {
  std::uint32_t u;
#if defined(__CUDA_ARCH__)
  u = __float_as_uint(v);
#else
  std::memcpy(&u, &v, sizeof u);
#endif
  const int biased = int((u >> 23) & 0xffu);
  std::uint32_t mant = u & 0x7fffffu;
  if (biased == 0xff) return -1;
  if (biased == 0 && mant == 0) return 0;
  int e = -149;  // subnormal: M·2^-149
  if (biased != 0) mant |= 0x800000u, e = biased - 150;
  const int pos = e - kExactBase;  // >= 11
  *w = pos >> 5;
  long long val = static_cast<long long>(mant) << (pos & 31);  // < 2^55
  if (u >> 31) val = -val;
  *hi = val >> 32;  // arithmetic shift: floor
  *lo = val - (*hi << 32);
  return 1;
}

// The exact sum held in the kExactWords words words[0], words[stride], ..., rounded to double.
PW_HD double exact_value(const long long* words, std::size_t stride) {
  if (words[std::size_t(kExactDigits) * stride] != 0) return NAN;
  std::uint32_t d[kExactDigits];
  long long carry = 0;
  for (int w = 0; w < kExactDigits; ++w) {
    const long long s = words[std::size_t(w) * stride] + carry;
    carry = s >> 32;
    d[w] = static_cast<std::uint32_t>(s & 0xffffffffLL);
  }
  const bool negative = carry < 0;
  if (negative) {  // magnitude of the two's complement number (carry : d[9] ... d[0])
    unsigned long long c = 1;
    for (int w = 0; w < kExactDigits; ++w) {
      const unsigned long long t = static_cast<unsigned long long>(~d[w]) + c;
      d[w] = static_cast<std::uint32_t>(t);
      c = t >> 32;
    }
    carry = ~carry + static_cast<long long>(c);
  }
  double r = ldexp(double(carry), kExactBase + 32 * kExactDigits);
  for (int w = kExactDigits - 1; w >= 0; --w) r += ldexp(double(d[w]), kExactBase + 32 * w);
  return negative ? -r : r;
}

#if defined(__CUDACC__)
// Adds v exactly to value i of an exact buffer (word w at words[w·stride + i]).
__device__ __forceinline__ void exact_add(unsigned long long* words, std::size_t stride,
                                          std::size_t i, float v) {
  int w;
  long long lo, hi;
  const int kind = exact_split(v, &w, &lo, &hi);
  if (kind == 0) return;
  if (kind < 0) {
    atomicAdd(words + std::size_t(kExactDigits) * stride + i, 1ull);
    return;
  }
  if (lo != 0) atomicAdd(words + std::size_t(w) * stride + i, static_cast<unsigned long long>(lo));
  if (hi != 0)
    atomicAdd(words + std::size_t(w + 1) * stride + i, static_cast<unsigned long long>(hi));
}

// ---- lane rotation ----

// The value of lane (lane + 1) mod 32: passes source sums one lane down per rotation step.
template <class F>
__device__ __forceinline__ F rotate_next(F v) {
  return __shfl_sync(0xffffffffu, v, (threadIdx.x + 1) & 31);
}
#endif

// ---- triangle tiles ----

// Tiles of the upper triangle (I <= J) of nb × nb.
PW_HD long long triangle_tiles(int nb) {
  return static_cast<long long>(nb) * (nb + 1) / 2;
}

// Row-major number t of the upper triangle to (I, J): row I starts at I·nb - I(I-1)/2.
PW_HD void triangle_tile(long long t, int nb, int* I, int* J) {
  int lo = 0, hi = nb - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    const long long s =
        static_cast<long long>(mid) * nb - static_cast<long long>(mid) * (mid - 1) / 2;
    if (s <= t)
      lo = mid;
    else
      hi = mid - 1;
  }
  *I = lo;
  *J = lo + int(t - (static_cast<long long>(lo) * nb - static_cast<long long>(lo) * (lo - 1) / 2));
}

// The next tile in row-major triangle order.
PW_HD void triangle_next(int nb, int* I, int* J) {
  if (++*J == nb) ++*I, *J = *I;
}

// Tiles [*begin, *end) of worker w of `workers` over n_tiles tiles: contiguous chunks whose sizes
// differ by at most one.
PW_HD void tile_chunk(long long n_tiles, long long workers, long long w, long long* begin,
                      long long* end) {
  const long long q = n_tiles / workers, r = n_tiles % workers;
  *begin = w * q + (w < r ? w : r);
  *end = *begin + q + (w < r ? 1 : 0);
}

}  // namespace pairwise::engine
