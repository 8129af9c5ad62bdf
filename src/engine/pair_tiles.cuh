// Generic pieces of Newton's-third-law tile kernels (each unordered pair evaluated once and applied
// to both particles), shared by workloads: the triangle tile enumeration, the lane rotation of the
// source accumulators, and an exact, order-independent accumulator of float values.
//
// Tile scheme (nbody's newton3 kernel; ljc's tiles_kernel shares the staging and rotate_next, and
// takes the triangle's rows in folded pairs p, nb-1-p instead):
//   - the particles are cut into nb row tiles of B = 32·kI; tile (I, J) with I <= J pairs the B
//     targets of row I (kI per lane, in registers) with the B sources of column J;
//   - the upper triangle of tiles is numbered row by row (triangle_tile below) and each warp
//     takes a contiguous chunk of it (tile_chunk), so every warp gets the same number of tiles
//     ± 1;
//   - a warp stages each 32-source group of its tile twice in a row of shared memory (64 entries),
//     so at rotation step s lane L reads source (L + s) mod 32 at entry L + s (conflict-free, an
//     immediate offset in the unrolled loop); the sums on the sources travel with them one lane per
//     step (rotate_next); after 32 steps lane L holds the sums of source L;
//   - diagonal tiles (I == J) are evaluated one-sided (both orders of every pair).
//
// Exact accumulation (exact_add / exact_value): a float v = M·2^e (M < 2^24 an integer, e >= -149)
// is added, as one int64 atomic, to the word w of a value chosen from its leading bit p: words are
// 16 bits apart (word w counts units of 2^(kExactBase + 16w)) and w puts p 24 to 39 bits above the
// word's unit, so v is an exact integer q of that unit with |q| < 2^40 (all 24 bits kept). Each
// word is the exact integer sum of the q added to it; integer addition commutes, so the result does
// not depend on the order of the atomics (bitwise reproducible run to run), and it stays exact
// while a word receives fewer than 2^23 values (nbody adds about N/128 per value: N < 2^30). Any
// float from 1.4e-45 to 3.4e38 keeps its 24 bits: no scale, any units. A value is kExactWords int64
// words (19 digit words + a count of non-finite values, which decodes to NaN); a buffer of n values
// stores word w of value i at [w·stride + i] (stride >= n: coalesced over i). exact_value()
// propagates the carries in integers and rounds to double once (within a few ulps of double of the
// exact sum, the same every run).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "pairwise/hd.hpp"

namespace pairwise::engine {

// ---- exact accumulator ----

inline constexpr int kExactDigits = 19;               // words 16 bits apart
inline constexpr int kExactWords = kExactDigits + 1;  // + the non-finite count
inline constexpr int kExactBase = -188;               // exponent of the unit of word 0

// The bits of a float, and the float of some bits (host and device).
PW_HD std::uint32_t float_bits(float v) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(v);
#else
  std::uint32_t u;
  std::memcpy(&u, &v, sizeof u);
  return u;
#endif
}
PW_HD float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float v;
  std::memcpy(&v, &u, sizeof v);
  return v;
#endif
}

// The word *w and integer *q with v = q·2^(kExactBase + 16 w) exactly, |q| < 2^40. Returns 0 for
// v == 0 (nothing to add), -1 for a non-finite v, 1 otherwise.
PW_HD int exact_split(float v, int* w, long long* q) {
  const std::uint32_t u = float_bits(v);
  const int biased = int((u >> 23) & 0xffu);
  std::uint32_t mant = u & 0x7fffffu;
  if (biased == 0xff) return -1;
  if (mant == 0 && biased == 0) return 0;
  int e = -149, p;  // v = mant·2^e, leading bit at 2^p
  if (biased != 0) {
    mant |= 0x800000u, e = biased - 150, p = biased - 127;
  } else {
#if defined(__CUDA_ARCH__)
    p = e + 31 - __clz(mant);
#else
    p = e + 31 - __builtin_clz(mant);
#endif
  }
  *w = (p - kExactBase - 24) >> 4;  // >= 0 for p >= -149
  const long long val = static_cast<long long>(mant) << (e - (kExactBase + 16 * *w));
  *q = (u >> 31) ? -val : val;
  return 1;
}

// exact_split of a normal float (biased exponent 1 to 254) in a few operations: w as exact_split
// finds it, and q made by lowering v's exponent field by kExactBase + 16 w (p - kExactBase - 16 w
// is 24 to 39, so q lies in [2^24, 2^40): an integer a normal float holds exactly), then one
// float-to-int64 conversion (F2I.S64 on the device). exact_add's common path.
PW_HD void exact_split_normal(float v, int* w, long long* q) {
  const std::uint32_t u = float_bits(v);
  const int biased = int((u >> 23) & 0xffu);
  *w = (biased - 127 - kExactBase - 24) >> 4;  // exact_split's, p = biased - 127
  *q = static_cast<long long>(bits_float(u - (std::uint32_t(kExactBase + 16 * *w) << 23)));
}

// The exact sum held in the kExactWords words words[0], words[stride], ..., rounded to double.
PW_HD double exact_value(const long long* words, std::size_t stride) {
  if (words[std::size_t(kExactDigits) * stride] != 0) return NAN;
  std::uint32_t d[kExactDigits];  // 16-bit digits after carrying
  long long carry = 0;
  for (int w = 0; w < kExactDigits; ++w) {
    const long long s = words[std::size_t(w) * stride] + carry;
    carry = s >> 16;
    d[w] = static_cast<std::uint32_t>(s & 0xffffLL);
  }
  const bool negative = carry < 0;
  if (negative) {  // magnitude of the two's complement number (carry : d[18] ... d[0])
    std::uint32_t c = 1;
    for (int w = 0; w < kExactDigits; ++w) {
      const std::uint32_t t = (~d[w] & 0xffffu) + c;
      d[w] = t & 0xffffu;
      c = t >> 16;
    }
    carry = ~carry + static_cast<long long>(c);
  }
  double r = ldexp(double(carry), kExactBase + 16 * kExactDigits);
  for (int w = kExactDigits - 1; w >= 0; --w) r += ldexp(double(d[w]), kExactBase + 16 * w);
  return negative ? -r : r;
}

#if defined(__CUDACC__)
// Adds v exactly to value i of an exact buffer (word w at words[w·stride + i]): one atomic.
// A normal v (the common case) takes exact_split_normal. The Newton-3 kernels add each source's
// sums after every 32 rotation steps: that short path took 0.42 instructions a pair off single's
// GA kernel (ncu, H200; GA +2 %, GAJ +4 %: docs/performance.md, "session 27").
__device__ __forceinline__ void exact_add(unsigned long long* words, std::size_t stride,
                                          std::size_t i, float v) {
  int w;
  long long q;
  if (const int biased = int((float_bits(v) >> 23) & 0xffu); biased != 0 && biased != 0xff) {
    exact_split_normal(v, &w, &q);
    atomicAdd(words + std::size_t(w) * stride + i, static_cast<unsigned long long>(q));
    return;
  }
  const int kind = exact_split(v, &w, &q);
  if (kind == 0) return;
  if (kind < 0) w = kExactDigits, q = 1;
  atomicAdd(words + std::size_t(w) * stride + i, static_cast<unsigned long long>(q));
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
