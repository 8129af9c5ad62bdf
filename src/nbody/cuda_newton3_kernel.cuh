// The Newton-3 kernel of CUDA gravity as a template over its pair term (see cuda_newton3.cu for the
// tile scheme), compiled twice: by nvcc with PlummerPair (the built-in kernels) and at run time by
// NVRTC with FormulaPair (a custom potential, issue 13: nbody/cuda_formula.cu). NVRTC gets this
// header's text and its dependencies' (pairwise/hd.hpp, pairwise/math.hpp, pairwise/physics/
// gravity.hpp, engine/pair_tiles.cuh) embedded at build time with their #include lines removed,
// after a prelude standing in for the few std names they use (src/nbody/CMakeLists.cmake), so
// everything here is device code or constexpr, with no host-only includes. Under a host compiler
// (cuda_gravity.cuh is included by g++ translation units) only the plain declarations remain.
#pragma once

#include <cstddef>
#include <type_traits>

#include "engine/pair_tiles.cuh"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody::cuda {

// Output components, in this order, of the partial-sum buffers and of the packed results.
enum Component { kAx, kAy, kAz, kPot, kJx, kJy, kJz, kComponents };

// A source far away with zero mass: pads the last tile, contributes exactly zero (m = 0) with a
// finite 1/s (s ~ 1e18, so s² stays inside FP32 range).
inline constexpr float kFar = 1e18f;

inline constexpr int kNewton3Warps = 4;

// What the Newton-3 kernel reads (the part of ForceArgs it uses; a plain struct NVRTC sees too).
struct Newton3Args {
  const void* jpos = nullptr;           // float4 [n_j]: x, y, z (hi with kDs), m
  const void* jlo = nullptr;            // float4 [n_j]: low parts of x, y, z (kDs)
  const void* jvel = nullptr;           // float4 [n_j] (GAJ)
  unsigned long long* exact = nullptr;  // kComponents × engine::kExactWords words per particle
  // Mixed: the warps' second-level sums in double (newton3::kLevel2Values a warp, zeroed; left
  // zeroed).
  double* level2 = nullptr;
  double eps2 = 0;
  int n_j = 0;
  int ds_flush_tiles = 2;  // mixed: tiles between the folds of the targets' float sums
  // Mixed with group origins (kMixedGroup): tiles (I, J) with J - I <= ds_band take double-single
  // displacements (the closest pairs, in the particles' spatial order).
  int ds_band = 2;
  // Mixed near/far (kMixedFar, kMixedNear): each 32-particle group's box in the spatial order, two
  // float4 a group (lowest x, y, z and the half-diagonal; highest x, y, z and the largest
  // |coordinate|), and kappa of the test: tiles I != J are far when no group of one is near a
  // group of the other (near_tiles, boxes_near).
  const void* boxes = nullptr;  // float4 [2 · groups]
  float kappa = 1.f;
};

// The tile walk of one launch: nb row tiles of 32·kI, n_tiles = nb(nb + 1)/2 tiles over `warps`
// warps.
struct Newton3Grid {
  int nb = 0;
  long long n_tiles = 0, warps = 0;
  // The launch's tiles are t_begin + [0, n_tiles) (ranks share the triangle: cuda_ranks.hpp).
  long long t_begin = 0;
};

#if defined(__CUDACC__)
namespace newton3 {

// Positions in the loop (the kernels' kMode): float (single precision); double-single, every
// displacement (xj_hi - xi_hi) + (xj_lo - xi_lo) (mixed, the default); FP32 offsets of the sources
// from their 32-source group's origin against double-single offsets of the targets, the particles
// in a spatial order (mixed with PAIRWISE_CUDA_MIXED_GROUP=1, an experiment).
// Mixed near/far (mixed's default from 786,432 particles, launch_newton3; the particles in a
// spatial order): two launches, kMixedFar over the triangle's far tile pairs with single
// precision's displacement of the hi parts, kMixedNear over the near ones of the whole square (the
// diagonal among them), one-sided, double-single (newton3_body).
enum PositionMode { kSingle = 0, kMixedDs = 1, kMixedGroup = 2, kMixedFar = 4, kMixedNear = 5 };

constexpr int kWarps = kNewton3Warps;
constexpr int kBlockThreads = 32 * kWarps;
constexpr int kUnroll = 8;  // rotation steps per loop trip (2 and 4: no faster with the caps below)
// Pads of the equal-mass kernels (unit mass): |d|² overflows to +inf, rsqrt(+inf) = 0, so every
// term with a pad is exactly zero (d·0 with d finite).
constexpr float kFarUnit = 1e25f;

// Register caps (blocks of 4 warps per SM): 4 (16 warps, <= 128 registers); GA with φ at kI = 8
// takes 3 (12 warps, <= 168 registers: 2.29 / 2.36 / 2.37 T/s at N = 65,536 / 262,144 /
// 1,048,576 against 2.21 / 2.31 / 2.32 with 4, whose 128 registers spill 8 bytes).
// The equal-mass GA kernel at kI = 8 (no target masses) fits 128 registers without spilling: 4
// blocks/SM, 2.859 / 2.873 T/s at N = 262,144 / 1,048,576 against 2.809 / 2.828 with 3.
constexpr int kUnitGaMinBlocks = 4;
// Mixed double-single (3 more registers per target: the targets' low parts) takes fewer, larger
// blocks where 4 or 3 blocks capped it into spills or a register-starved schedule (H200,
// N = 1,048,576, docs/performance.md "nbody mixed, session 24"): GAJ at kI = 4 3 blocks (128
// registers spilled 48 bytes; 1.101 against 1.047 T/s), GA at kI = 8 with φ 2 (2.169 against
// 2.112), without φ 3 (128 registers spilled 60 bytes; 2.286 against 2.118). Group origins keep
// the caps below. Single's equal-mass GAJ takes 127 registers under either cap.
constexpr int min_blocks(bool jerk, bool pot, bool unit, int mode, int k_i) {
  if (mode == kMixedDs || mode == kMixedNear) {
    if (jerk && k_i == 4) return 3;
    if (!jerk && k_i == 8) return pot ? 2 : 3;
  }
  if (!jerk && pot && k_i == 8)
    return unit && (mode == kSingle || mode == kMixedFar) ? kUnitGaMinBlocks : 3;
  return 4;
}
template <bool kJerk, bool kPot, bool kUnit, int kMode, int kI>
constexpr int kMinBlocks = min_blocks(kJerk, kPot, kUnit, kMode, kI);
// A register cap of the kernel's own (__maxnreg__, in place of the block count), or 0. Single
// precision's general-mass GA with φ at kI = 8: 144 (3 blocks an SM, as the 167 registers of the
// uncapped kernel; the kernel is nbody/cuda_newton3_general.cu). Caps from 136 to 152 ran 2.42-2.50
// T/s at N = 262,144 and none 2.46, against 144's 2.495 beside the other kernels and 2.539 in its
// own translation unit (H200, docs/performance.md "nbody, session 28"): ptxas's register
// allocation, not the occupancy, moves this kernel's speed.
constexpr int max_registers(bool jerk, bool pot, bool unit, int mode, int k_i) {
  return !jerk && pot && !unit && mode == kSingle && k_i == 8 ? 144 : 0;
}
template <bool kJerk, bool kPot, bool kUnit, int kMode, int kI>
constexpr int kMaxRegisters = max_registers(kJerk, kPot, kUnit, kMode, kI);

}  // namespace newton3

// The built-in pair term: Plummer-softened Newton (pairwise/physics/gravity.hpp). Stage: 1/s.
struct PlummerPair {
  using F = float;
  using Stage = F;
  struct Ctx {
    F eps2;
  };
  static constexpr bool kSelfExcluded = false;  // the pair (i, i) adds -m_i/ε to φ
  static __device__ __forceinline__ Ctx context(double eps2) { return Ctx{F(eps2)}; }
  static __device__ __forceinline__ F distance2(const Ctx& c, F dx, F dy, F dz) {
    return physics::softened_distance2(dx, dy, dz, c.eps2);
  }
  static __device__ __forceinline__ Stage stage(F s2) { return pairwise::rsqrt(s2); }
  // kUnit: the masses are the literal 1 (equal masses), and φ takes 1/s itself (an FADD); with
  // general masses φ comes from the force weights (accumulate_accel_pair_from_rsqrt).
  template <bool kPot, bool kGuard, bool kUnit>
  static __device__ __forceinline__ void pair(F dx, F dy, F dz, F m_i, F m_j, F s2, Stage inv_s,
                                              physics::Accel<F>& acc_i, physics::Accel<F>& acc_j) {
    physics::accumulate_accel_pair_from_rsqrt<kPot, kGuard, !kUnit>(dx, dy, dz, m_i, m_j, s2, inv_s,
                                                                    acc_i, acc_j);
  }
  template <bool kGuard>
  static __device__ __forceinline__ void pair_jerk(F dx, F dy, F dz, F dvx, F dvy, F dvz, F m_i,
                                                   F m_j, F s2, Stage inv_s,
                                                   physics::AccelJerk<F>& acc_i,
                                                   physics::AccelJerk<F>& acc_j) {
    physics::accumulate_accel_jerk_pair_from_rsqrt<kGuard>(dx, dy, dz, dvx, dvy, dvz, m_i, m_j, s2,
                                                           inv_s, acc_i, acc_j);
  }
  template <bool kPot, bool kGuard>
  static __device__ __forceinline__ void one(const Ctx& c, F dx, F dy, F dz, F m, bool,
                                             physics::Accel<F>& acc) {
    physics::accumulate_accel<kPot, kGuard>(dx, dy, dz, m, c.eps2, acc);
  }
  template <bool kGuard>
  static __device__ __forceinline__ void one_jerk(const Ctx& c, F dx, F dy, F dz, F dvx, F dvy,
                                                  F dvz, F m, bool, physics::AccelJerk<F>& acc) {
    physics::accumulate_accel_jerk<kGuard>(dx, dy, dz, dvx, dvy, dvz, m, c.eps2, acc);
  }
};

// A pair term from a formula (nbody/custom_gravity.hpp): Formula::eval(s, out) writes φ, G and
// G′ = dG/d(r²) at s = r² + Formula::kShift (formula::RadialProgram::cuda_function). The pair adds
//   φ_i += m_j φ,  a_i += m_j G d,  jerk_i += m_j (G u + 2 G′ (d·u) d)
// and to j the same with m_i and d, u negated. The pair (i, i) is skipped (`self`), so nothing is
// removed from φ afterwards; ε = 0 needs no guard (only i = j is at zero distance by contract).
template <class Formula>
struct FormulaPair {
  using F = float;
  using Stage = F;  // s itself: the formula is evaluated where its values are used
  struct Ctx {};
  static constexpr bool kSelfExcluded = true;
  static __device__ __forceinline__ Ctx context(double) { return Ctx{}; }
  static __device__ __forceinline__ F distance2(const Ctx&, F dx, F dy, F dz) {
    return fmadd(dx, dx, fmadd(dy, dy, fmadd(dz, dz, F(Formula::kShift))));
  }
  static __device__ __forceinline__ Stage stage(F s2) { return s2; }
  template <bool kPot, bool, bool>
  static __device__ __forceinline__ void pair(F dx, F dy, F dz, F m_i, F m_j, F s2, Stage,
                                              physics::Accel<F>& acc_i, physics::Accel<F>& acc_j) {
    F v[3];
    Formula::eval(s2, v);
    const F w_j = m_j * v[1], w_i = m_i * v[1];
    acc_i.ax = fmadd(w_j, dx, acc_i.ax);
    acc_i.ay = fmadd(w_j, dy, acc_i.ay);
    acc_i.az = fmadd(w_j, dz, acc_i.az);
    acc_j.ax = fmadd(-w_i, dx, acc_j.ax);
    acc_j.ay = fmadd(-w_i, dy, acc_j.ay);
    acc_j.az = fmadd(-w_i, dz, acc_j.az);
    if constexpr (kPot) {
      acc_i.pot = fmadd(m_j, v[0], acc_i.pot);
      acc_j.pot = fmadd(m_i, v[0], acc_j.pot);
    }
  }
  template <bool>
  static __device__ __forceinline__ void pair_jerk(F dx, F dy, F dz, F dvx, F dvy, F dvz, F m_i,
                                                   F m_j, F s2, Stage, physics::AccelJerk<F>& acc_i,
                                                   physics::AccelJerk<F>& acc_j) {
    F v[3];
    Formula::eval(s2, v);
    const F g = v[1], c = F(2) * v[2] * fmadd(dx, dvx, fmadd(dy, dvy, dz * dvz));
    const F tx = fmadd(c, dx, g * dvx), ty = fmadd(c, dy, g * dvy), tz = fmadd(c, dz, g * dvz);
    const F w_j = m_j * g, w_i = m_i * g;
    acc_i.ax = fmadd(w_j, dx, acc_i.ax);
    acc_i.ay = fmadd(w_j, dy, acc_i.ay);
    acc_i.az = fmadd(w_j, dz, acc_i.az);
    acc_i.jx = fmadd(m_j, tx, acc_i.jx);
    acc_i.jy = fmadd(m_j, ty, acc_i.jy);
    acc_i.jz = fmadd(m_j, tz, acc_i.jz);
    acc_j.ax = fmadd(-w_i, dx, acc_j.ax);
    acc_j.ay = fmadd(-w_i, dy, acc_j.ay);
    acc_j.az = fmadd(-w_i, dz, acc_j.az);
    acc_j.jx = fmadd(-m_i, tx, acc_j.jx);
    acc_j.jy = fmadd(-m_i, ty, acc_j.jy);
    acc_j.jz = fmadd(-m_i, tz, acc_j.jz);
    acc_i.pot = fmadd(m_j, v[0], acc_i.pot);
    acc_j.pot = fmadd(m_i, v[0], acc_j.pot);
  }
  template <bool kPot, bool>
  static __device__ __forceinline__ void one(const Ctx& ctx, F dx, F dy, F dz, F m, bool self,
                                             physics::Accel<F>& acc) {
    F v[3];
    Formula::eval(distance2(ctx, dx, dy, dz), v);
    const F w = self ? F(0) : m * v[1];
    acc.ax = fmadd(w, dx, acc.ax);
    acc.ay = fmadd(w, dy, acc.ay);
    acc.az = fmadd(w, dz, acc.az);
    if constexpr (kPot) acc.pot += self ? F(0) : m * v[0];
  }
  template <bool>
  static __device__ __forceinline__ void one_jerk(const Ctx& ctx, F dx, F dy, F dz, F dvx, F dvy,
                                                  F dvz, F m, bool self,
                                                  physics::AccelJerk<F>& acc) {
    F v[3];
    Formula::eval(distance2(ctx, dx, dy, dz), v);
    const F g = self ? F(0) : m * v[1];
    const F c = self ? F(0) : F(2) * m * v[2] * fmadd(dx, dvx, fmadd(dy, dvy, dz * dvz));
    acc.ax = fmadd(g, dx, acc.ax);
    acc.ay = fmadd(g, dy, acc.ay);
    acc.az = fmadd(g, dz, acc.az);
    acc.jx = fmadd(c, dx, fmadd(g, dvx, acc.jx));
    acc.jy = fmadd(c, dy, fmadd(g, dvy, acc.jy));
    acc.jz = fmadd(c, dz, fmadd(g, dvz, acc.jz));
    acc.pot += self ? F(0) : m * v[0];
  }
};

namespace newton3 {

// Exact words of component c: value i's word w at exact[(c·kExactWords + w)·n + i].
__device__ __forceinline__ unsigned long long* component_words(const Newton3Args& a, int c) {
  return a.exact + std::size_t(c) * engine::kExactWords * std::size_t(a.n_j);
}

// Calls f(c, value) for each component c of a sum, in the order of the exact buffer (kAx, kAy,
// kAz, kPot, kJx, kJy, kJz).
template <class Sum, class F>
__device__ __forceinline__ void each_component(const Sum& s, F&& f) {
  f(kAx, s.ax), f(kAy, s.ay), f(kAz, s.az), f(kPot, s.pot);
  if constexpr (sizeof(Sum) / sizeof(float) == 7) f(kJx, s.jx), f(kJy, s.jy), f(kJz, s.jz);
}

// out[c · stride] = component c of s.
template <class Sum>
__device__ __forceinline__ void store_components(const Sum& s, float* out, int stride) {
  each_component(s, [&](int c, float v) { out[c * stride] = v; });
}

// out[c · stride] += component c of s, in double in global memory, with atomics that return nothing
// (RED.F64: no load, so no latency to wait for and no registers held). Each entry is this thread's
// alone, and one thread's atomics to one address take effect in program order: the same sums, in
// the same order, every run.
template <class Sum>
__device__ __forceinline__ void red_components(const Sum& s, double* out, int stride) {
  each_component(s, [&](int c, float v) { atomicAdd(out + c * stride, double(v)); });
}

// Mixed double-single: the targets' float sums of each 256 sources (Newton3Args::ds_flush_tiles
// tiles) are added to a second level of sums in double, the warp's slice of Newton3Args::level2 in
// global memory, and those go to the exact accumulator when the warp's row changes. This is the
// split path's accuracy (float sums of 256 sources, then double: the mixed of issue 15's filing) at
// 2 instructions a value a fold (F2F, RED.F64) where an exact add costs ~30 in a latency-bound
// loop. Session 20's float second level, flushed to the exact words every 8 folds, had 1.06x the
// split path's φ error (GA, N = 65,536) and GA 1.1 % slower (GAJ the same); flushed every 16 folds,
// 1.15x (docs/performance.md, "nbody mixed, session 21").
// Doubles of a warp's slice of Newton3Args::level2: GA at kI = 8's (8 targets × 4 sums × 32 lanes),
// the largest (GAJ at kI = 4: 4 × 7 × 32).
constexpr int kLevel2Values = 8 * 4 * 32;

// Flushes `count` sums staged in this warp's buffer (`staged[(slot · stride + c) · 32 + lane]`,
// components c < comps, the particle of slot k being first + 32 k) into the exact accumulator. The
// values go through shared memory and a loop that is not unrolled, so the flush (once per row, and
// for GAJ's 7 sums once per 32-source group) does not hold registers of the hot loop. GA's 3 or 4
// source sums per group go straight from the registers: 1.1-1.6 % faster (docs/performance.md,
// pass 6).
// kCheckEach: the bound check inside the component loop instead of before it, the same sums. The
// two compile differently, each the faster for its kernels (H200, N = 1,048,576): before it, single
// GA 1.3 % faster; inside it, mixed GAJ 1.6 % faster (session 20).
template <bool kCheckEach = false>
__device__ __forceinline__ void flush_staged(const Newton3Args& a, const float* staged, int stride,
                                             int comps, int count, int first, int lane) {
  const std::size_t n = std::size_t(a.n_j);
#pragma unroll 1
  for (int k = 0; k < count; ++k) {
    const int i = first + 32 * k + lane;
    if (!kCheckEach && i >= a.n_j) continue;
#pragma unroll 1
    for (int c = 0; c < comps; ++c) {
      const float* const v = staged + (k * stride + c) * 32 + lane;
      if (!kCheckEach || i < a.n_j) engine::exact_add(component_words(a, c), n, i, *v);
    }
  }
}

// Flushes second-level sums (red_components, `count` slots of `stride` components) into the exact
// accumulator: each double read at L2 (__ldcg, where the atomics took effect), added as two floats,
// hi = fl(v) and lo = fl(v - hi) (48 of its bits: far below the float sums' rounding), and zeroed.
__device__ __forceinline__ void flush_global_sums(const Newton3Args& a, double* sums, int stride,
                                                  int count, int first, int lane) {
  const std::size_t n = std::size_t(a.n_j);
#pragma unroll 1
  for (int k = 0; k < count; ++k) {
    const int i = first + 32 * k + lane;
#pragma unroll 1
    for (int c = 0; c < stride; ++c) {
      double* const v = sums + (k * stride + c) * 32 + lane;
      if (i < a.n_j) {
        const double sum = __ldcg(v);
        const float hi = float(sum), lo = float(sum - double(hi));
        engine::exact_add(component_words(a, c), n, i, hi);
        engine::exact_add(component_words(a, c), n, i, lo);
      }
      __stcg(v, 0.0);
    }
  }
}

// The shared-memory entry lane `lane` reads at rotation step s: source (lane + s) mod 32, at entry
// lane + s of the doubled row (the base pointer holds lane), or (lane + s) mod 32 of a single copy.
template <bool kSingleCopy>
__device__ __forceinline__ int source_entry(int lane, int s) {
  return kSingleCopy ? ((lane + s) & 31) : s;
}

// Static shared memory of one block (the limit without opt-in dynamic shared memory).
constexpr int kStaticSharedBytes = 48 * 1024;

// Whether a kernel stages each 32-source group twice (64 entries: lane L reads source (L + s) mod
// 32 at entry L + s, an immediate offset in the unrolled loop) rather than once (read at (L + s)
// mod 32: an add and a mask a step, 1.2 of mixed GAJ's 44.7 instructions a pair). Single precision
// always does; mixed double-single does when its three rows (positions, velocities for GAJ, low
// parts) fit the static shared memory with the flush buffer aliased onto them (flush_aliases_rows):
// GAJ at kI = 2 and 4, GA at kI = 4, not GA at kI = 8; group origins never (the origins sit in the
// flush buffer while the rows are read).
constexpr bool doubled_rows(bool jerk, int mode, int k_i) {
  if (mode == kSingle || mode == kMixedFar) return true;
  if (mode != kMixedDs && mode != kMixedNear) return false;
  return kWarps * k_i * 64 * 16 * (jerk ? 3 : 2) <= kStaticSharedBytes;
}
// Whether the flush buffer ([slot][component][lane], kI · kComp · 32 floats a warp, at most the
// kI · 64 · 4 floats of the warp's position rows) is the warp's own position rows: mixed
// double-single with doubled rows, which has no room for a separate one. Only GAJ's source flush
// uses it there, after source group u's steps (slot 0 = group 0's rows, done with since u >= 0);
// the targets' sums go to the second level in global memory (kLevel2Values).
// Single precision's GA kernels flush their targets' sums (between tiles) through their own rows
// too: 32 KB of shared memory a block at kI = 8 instead of 48, and the equal-mass kernel 1.4 %
// faster (H200, N = 1,048,576: 2.954 against 2.911 T; docs/performance.md, "session 27").
constexpr bool flush_aliases_rows(bool jerk, int mode, int k_i) {
  return (mode == kMixedDs && doubled_rows(jerk, mode, k_i)) || (mode == kSingle && !jerk);
}
// A separate flush buffer of kFloats floats per warp (instantiated only where it is used).
template <int kFloats>
__device__ __forceinline__ float* flush_buffer(int warp_in_block) {
  __shared__ float buffer[kWarps][kFloats];
  return buffer[warp_in_block];
}

// A compile-time flag as a value (tags the variants of a generic lambda).
template <bool B>
struct Flag {
  static constexpr bool value = B;
};

template <bool kJerk, bool kWithPot, class Sum>
__device__ __forceinline__ void rotate(Sum& s) {
  s.ax = engine::rotate_next(s.ax);
  s.ay = engine::rotate_next(s.ay);
  s.az = engine::rotate_next(s.az);
  if constexpr (kWithPot) s.pot = engine::rotate_next(s.pot);
  if constexpr (kJerk) {
    s.jx = engine::rotate_next(s.jx);
    s.jy = engine::rotate_next(s.jy);
    s.jz = engine::rotate_next(s.jz);
  }
}

// Splits a + b into hi = fl(a + b) and lo = b - (hi - a), the part of b that hi lost (exact when
// |a| >= |b|: Fast2Sum).
__device__ __forceinline__ void two_part(float a, float b, float& hi, float& lo) {
  hi = a + b;
  lo = b - (hi - a);
}

// Whether two boxes are near for mixed near/far (the Newton-3 tiles here, the split path's source
// groups in cuda_gravity.cu). A box is two float4: lo = (lowest x, y, z, half-diagonal r), hi =
// (highest x, y, z, largest |coordinate| R). Near: the gap between them is below
// kappa · max(r_a, r_b, max(R_a, R_b) / 32). A far pair takes single precision's displacement of
// the hi parts, off by about u/2·(|x_i| + |x_j|) <= u·sqrt(3)·R (u = 2^-24): the R term keeps that
// below ~55 u of |d| wherever the particles sit (a cluster far from the origin has large R and
// small r), the r terms keep the close pairs of compact groups (the bench's sphere: r ~ R / 20 at
// N = 1,048,576) double-single. Symmetric in a and b.
__device__ __forceinline__ bool boxes_near(const float4& lo_a, const float4& hi_a,
                                           const float4& lo_b, const float4& hi_b, float kappa) {
  const float gx = fmaxf(0.f, fmaxf(lo_b.x - hi_a.x, lo_a.x - hi_b.x));
  const float gy = fmaxf(0.f, fmaxf(lo_b.y - hi_a.y, lo_a.y - hi_b.y));
  const float gz = fmaxf(0.f, fmaxf(lo_b.z - hi_a.z, lo_a.z - hi_b.z));
  const float r = kappa * fmaxf(fmaxf(lo_a.w, lo_b.w), 0.03125f * fmaxf(hi_a.w, hi_b.w));
  return gx * gx + gy * gy + gz * gz < r * r;
}

// The box of the warp's 32 lanes' boxes lo[3], hi[3] (a point: lo = hi; none: +inf, -inf), given
// back to every lane, and its largest |coordinate| (boxes_near's R): butterfly shuffles. The
// groups' boxes (cuda_newton3.cu) and the block steps' target slots (cuda_gravity.cu) use it.
__device__ __forceinline__ float warp_box(float (&lo)[3], float (&hi)[3]) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1)
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      lo[c] = fminf(lo[c], __shfl_xor_sync(0xffffffffu, lo[c], o));
      hi[c] = fmaxf(hi[c], __shfl_xor_sync(0xffffffffu, hi[c], o));
    }
  return fmaxf(fmaxf(fabsf(lo[0]), fabsf(hi[0])),
               fmaxf(fmaxf(fabsf(lo[1]), fabsf(hi[1])), fmaxf(fabsf(lo[2]), fabsf(hi[2]))));
}

// 32-particle groups of n particles (at least one).
__host__ __device__ inline int group_count(int n) {
  return ((n > 1 ? n : 1) + 31) / 32;
}

// Whether row tiles I and J of kI groups each are near (mixed near/far): the same tile, or a group
// of I and a group of J whose boxes (Newton3Args::boxes) are near (boxes_near). Symmetric, so the
// far launch's triangle and the near launch's square split the pairs exactly; warp-uniform (the
// kI² group pairs shared by the lanes, then a vote).
template <int kI>
__device__ __forceinline__ bool near_tiles(const Newton3Args& a, int I, int J, int lane) {
  if (I == J) return true;
  const float4* const boxes = static_cast<const float4*>(a.boxes);
  const int groups = group_count(a.n_j);
  bool near = false;
#pragma unroll
  for (int p = lane; p < kI * kI; p += 32) {
    const int g = I * kI + p / kI, h = J * kI + p % kI;
    if (g >= groups || h >= groups) continue;
    near =
        near || boxes_near(boxes[2 * g], boxes[2 * g + 1], boxes[2 * h], boxes[2 * h + 1], a.kappa);
  }
  return __any_sync(0xffffffffu, near);
}

// The body of the Newton-3 kernel (cuda_newton3.cu describes the scheme), launched with
// kBlockThreads threads per block and __launch_bounds__(kBlockThreads, kMinBlocks<...>).
// kMode == kMixedDs: positions are double-single, x = hi + lo (Newton3Args::jpos holds hi and the
// mass, jlo the low parts), and every displacement is (xj_hi - xi_hi) + (xj_lo - xi_lo) in FP32
// (the hi difference is exact for nearby particles, Sterbenz), 6 FADD more per pair. The sources
// are staged twice per 32-source group, as in single precision, where the shared memory holds the
// three rows (GAJ at kI = 4: 48 KB, the flush buffer on the warp's own rows), else once and read at
// (lane + s) mod 32 (GA at kI = 8): doubled_rows.
// kMode == kMixedGroup: double-single positions as above, the particles in a spatial order (the
// caller's ForceArgs::order). Each 32-source group g of a tile has an origin o_g, the exact
// double-single position of its first source. A source enters the loop as one float per
// coordinate, s_j = fl((xj_hi - o_hi) + (xj_lo - o_lo)), off by at most u/2·|x_j - o_g| (u =
// 2^-24); a target as the double-single offset (t_hi, t_lo) of x_i - o_g, formed from its hi and lo
// once per group (5 FADD per coordinate, over 32 sources); the displacement is
// (s_j - t_hi) - t_lo: 2 FADD per coordinate instead of kMixedDs's 3, so 20 FP32/MUFU instructions
// a pair instead of 23 (equal masses; single: 17). Beyond the displacement's own rounding, the
// error is the source's rounding, u/2·|x_j - o_g|: small when the group is compact. Diagonal tiles
// (the closest pairs) also stage each source's residual e_j = (x_j - o_g) - s_j and take
// (s_j - t_hi) + (e_j - t_lo): kMixedDs's accuracy, and exactly zero for the pair (i, i).
// Both mixed modes end the targets' float sums after every Newton3Args::ds_flush_tiles tiles
// (launch_newton3: 256 sources, 1 tile at kI = 8, 2 at kI = 4; a source's sums run over B
// targets), where single's run over a warp's whole row chunk: kMixedDs folds them into the second
// level (double, kLevel2Values), kMixedGroup flushes them to the exact accumulator.
// kMode == kMixedFar / kMixedNear (mixed near/far, the particles in a spatial order): tiles I != J
// with no pair of 32-particle groups near by boxes_near (near_tiles) are far. The kMixedFar launch
// walks the triangle and takes its far tiles with single precision's loop on the hi parts (1 FADD a
// coordinate; the displacement off by u/2·(|x_i| + |x_j|), small against |d| there), the targets'
// float sums folded into the second level every 256 sources as kMixedDs's. The kMixedNear launch
// walks the whole square of tiles and takes the near ones (the diagonal among them) one-sided with
// double-single displacements, the targets' float sums folded after every 32 sources: in a spatial
// order a near tile's terms are the large ones, and 256-term float sums of them cost more accuracy
// than the displacement (a CPU emulation: bench/results/experiments/
// 2026-11-29-nbody-far-tile-correction-emulation.*).
template <class Pair, bool kJerk, bool kPot, bool kGuard, bool kUnit, int kMode, int kI>
__device__ __forceinline__ void newton3_body(const Newton3Args& a, const Newton3Grid& g) {
  constexpr bool kFar = kMode == kMixedFar;    // far tile pairs: single's displacement of the hi
  constexpr bool kNear = kMode == kMixedNear;  // near tile pairs of the square, one-sided
  constexpr bool kHiLo = kMode == kMixedDs || kNear;  // double-single displacements
  constexpr bool kGrp = kMode == kMixedGroup;         // offsets from the source groups' origins
  constexpr bool kDs = kHiLo || kGrp;                 // double-single positions (mixed)
  using F = float;
  using Sum = std::conditional_t<kJerk, physics::AccelJerk<F>, physics::Accel<F>>;
  constexpr int B = 32 * kI;
  // Per warp, per 32-source group: 64 entries (the group twice) where doubled_rows, else 32 (read
  // at (lane + s) mod 32); positions (kGrp: offsets from the group's origin) + mass, velocities,
  // and in mixed the low parts of the positions (kGrp: the residuals e_j, diagonal tiles only).
  constexpr int kComp = kJerk ? 7 : 4;
  constexpr bool kDoubled = doubled_rows(kJerk, kMode, kI);
  constexpr int kRow = kDoubled ? 64 : 32;
  // Per warp and source group: the rows of positions, velocities (GAJ) and low parts (mixed) side
  // by side, so the loop reads them at fixed offsets from one pointer.
  constexpr int kVelRow = 1, kLoRow = kJerk ? 2 : 1, kRows = 1 + int(kJerk) + int(kDs);
  __shared__ float4 s_rows[kWarps][kI][kRows][kRow];

  const int lane = int(threadIdx.x) & 31, wib = int(threadIdx.x) >> 5;
  const long long warp = (long long)blockIdx.x * kWarps + wib;
  long long t, t_end;
  // kMixedNear: every g.warps-th tile of the square from the warp's own, so that the near tiles,
  // which crowd some rows (a tile whose box straddles the order's big jumps is near a whole row),
  // spread evenly over the warps; the others: a contiguous chunk of the triangle.
  long long step = 1;
  if constexpr (kNear) {
    t = warp, t_end = g.n_tiles, step = g.warps;
  } else {
    engine::tile_chunk(g.n_tiles, g.warps, warp, &t, &t_end);
  }
  if (t >= t_end) return;
  t += g.t_begin, t_end += g.t_begin;
  int I, J;
  if constexpr (kNear) {
    I = int(t / g.nb), J = int(t % g.nb);
  } else {
    engine::triangle_tile(t, g.nb, &I, &J);
  }
  auto next_tile = [&]() {
    if constexpr (kNear) {
      t += step - 1;  // the loop's ++t added the first 1
      I = int(t / g.nb), J = int(t % g.nb);
    } else {
      engine::triangle_next(g.nb, &I, &J);
    }
  };

  const int n = a.n_j;
  const float4* __restrict__ jpos = static_cast<const float4*>(a.jpos);
  const float4* __restrict__ jvel = static_cast<const float4*>(a.jvel);
  const float4* __restrict__ jlo = static_cast<const float4*>(a.jlo);
  const typename Pair::Ctx ctx = Pair::context(a.eps2);
  constexpr float kPad = kUnit ? kFarUnit : kFar;
  const float4 far = make_float4(kPad, kPad, kPad, 0.f), zero = make_float4(0.f, 0.f, 0.f, 0.f);
  // The mass of a target (source) in the evaluators: its own, or 1 with equal masses.
  auto mass = [](const float4& p) { return kUnit ? F(1) : p.w; };

  float4 pi[kI];  // x, y, z (kGrp: hi part of the offset from the group's origin), m of the targets
  F vi[kI][3];
  F li[kDs ? kI : 1][3];  // mixed: the low parts of the targets' positions (kGrp: of the offsets)
  Sum acc[kI];
  int row = -1;
  int tiles_since_flush = 0;  // mixed
  // Sums on their way to the exact accumulator: [slot][component][lane] per warp; mixed
  // double-single with doubled rows stages them in the warp's own source rows (flush_aliases_rows).
  // Mixed double-single GA has none: its targets' sums go to the second level, its sources' from
  // the registers.
  constexpr bool kAlias = flush_aliases_rows(kJerk, kMode, kI);
  // (kMixedNear: no source sums, the targets' go to the second level; kMixedFar: GAJ's sources.)
  constexpr bool kStaged = kNear ? false : kFar ? kJerk : !kHiLo || kJerk;
  float* staged = kAlias    ? &s_rows[wib][0][0][0].x
                  : kStaged ? flush_buffer<kI * kComp * 32>(wib)
                            : nullptr;
  // kGrp: the origins (hi x, y, z, lo x, y, z) of the tile's kI source groups, in the last 6·kI
  // words of `staged` (static shared memory is full: 48 KB). Flushes write `staged` only between
  // tiles (GAJ's per-group flush: its first 7·32 words), and every tile writes the origins again.
  float* const origins = kGrp ? staged + kI * kComp * 32 - 6 * kI : nullptr;
  // kGrp: the targets' double-single offsets from the origin of source group u (pads stay far).
  auto target_offsets = [&](int u) {
    if constexpr (kGrp) {
      const float* o = origins + 6 * u;
      const F ox = o[0], oy = o[1], oz = o[2], olx = o[3], oly = o[4], olz = o[5];
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        const int i = row * B + 32 * k + lane;
        if (i < n) {
          const float4 h = jpos[i], l = jlo[i];
          two_part(h.x - ox, l.x - olx, pi[k].x, li[k][0]);
          two_part(h.y - oy, l.y - oly, pi[k].y, li[k][1]);
          two_part(h.z - oz, l.z - olz, pi[k].z, li[k][2]);
        }
      }
    }
  };
  // Mixed double-single: the second level of the targets' sums, in double, in the warp's slice of
  // a.level2 (kLevel2Values; zeroed, and left zeroed by flush_global_sums).
  constexpr bool kLevel2 = kHiLo || kFar;
  static_assert(!kLevel2 || kI * kComp * 32 <= kLevel2Values);
  // (Formed where used, not held in registers across the loop.)
  auto level2_sums = [&]() {
    return a.level2 + (std::size_t(blockIdx.x) * kWarps + (threadIdx.x >> 5)) * kLevel2Values;
  };
  auto fold_sums = [&]() {  // the second level += the targets' float sums, which restart at 0
    double* const level2 = level2_sums();
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      red_components(acc[k], level2 + (k * kComp) * 32 + lane, 32);
      acc[k] = Sum{};
    }
  };
  auto flush_row = [&]() {
    if (row < 0) return;
    if constexpr (kLevel2) {
      fold_sums();
      flush_global_sums(a, level2_sums(), kComp, kI, row * B, lane);
    } else {
      if constexpr (kAlias) __syncwarp();  // every lane done reading the rows
#pragma unroll
      for (int k = 0; k < kI; ++k) store_components(acc[k], staged + (k * kComp) * 32 + lane, 32);
      flush_staged(a, staged, kComp, kPot ? kComp : 3, kI, row * B, lane);
    }
  };

  for (; t < t_end; ++t, next_tile()) {
    if constexpr (kFar || kNear) {  // this launch's tiles only
      if (near_tiles<kI>(a, I, J, lane) != kNear) continue;
    }
    if (I != row) {
      flush_row();
      row = I;
      tiles_since_flush = 0;
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        const int i = I * B + 32 * k + lane;
        pi[k] = i < n ? jpos[i] : far;
        if constexpr (kDs) {
          const float4 l = i < n ? jlo[i] : zero;
          li[k][0] = l.x, li[k][1] = l.y, li[k][2] = l.z;
        }
        if constexpr (kJerk) {
          const float4 v = i < n ? jvel[i] : zero;
          vi[k][0] = v.x, vi[k][1] = v.y, vi[k][2] = v.z;
        }
        acc[k] = Sum{};
      }
    }
    // Stage the tile's sources (single precision: each 32-source group twice).
    __syncwarp();
#pragma unroll
    for (int u = 0; u < kI; ++u) {
      const int j = J * B + 32 * u + lane;
      float4 p = j < n ? jpos[j] : far;
      if constexpr (kGrp) {
        // The group's origin: its first source's hi and lo (0 for a group of pads alone).
        const float4 l = j < n ? jlo[j] : zero;
        const bool real = J * B + 32 * u < n;
        F o[6] = {p.x, p.y, p.z, l.x, l.y, l.z};
#pragma unroll
        for (int c = 0; c < 6; ++c) o[c] = real ? __shfl_sync(0xffffffffu, o[c], 0) : F(0);
        float4 e = zero;
        if (j < n) {
          two_part(p.x - o[0], l.x - o[3], p.x, e.x);
          two_part(p.y - o[1], l.y - o[4], p.y, e.y);
          two_part(p.z - o[2], l.z - o[5], p.z, e.z);
        }
        if (J - I <= a.ds_band) s_rows[wib][u][kLoRow][lane] = e;
        if (lane == 0) {
#pragma unroll
          for (int c = 0; c < 6; ++c) origins[6 * u + c] = o[c];
        }
      }
      float4* const rows = s_rows[wib][u][0];
      rows[lane] = p;
      if constexpr (kDoubled) rows[lane + 32] = p;
      if constexpr (kJerk) {
        const float4 v = j < n ? jvel[j] : zero;
        rows[kVelRow * kRow + lane] = v;
        if constexpr (kDoubled) rows[kVelRow * kRow + lane + 32] = v;
      }
      if constexpr (kHiLo) {
        const float4 l = j < n ? jlo[j] : zero;
        rows[kLoRow * kRow + lane] = l;
        if constexpr (kDoubled) rows[kLoRow * kRow + lane + 32] = l;
      }
    }
    __syncwarp();
    // kGrp: tiles within a.ds_band rows of the diagonal take double-single displacements.
    const bool near_diagonal = kGrp && J - I <= a.ds_band;

    if (kNear || I == J) {  // diagonal tile (kMixedNear: every tile): one-sided, every ordered pair
#pragma unroll 1
      for (int u = 0; u < kI; ++u) {
        target_offsets(u);
        const float4* sp = &s_rows[wib][u][0][kDoubled ? lane : 0];
        const float4* sv = sp + kVelRow * kRow;
        const float4* sl = sp + kLoRow * kRow;
#pragma unroll kUnroll
        for (int s = 0; s < 32; ++s) {
          const int e = source_entry<!kDoubled>(lane, s);
          const float4 p = sp[e];
          float4 v = zero, lo = zero;
          if constexpr (kJerk) v = sv[e];
          if constexpr (kDs) lo = sl[e];
#pragma unroll
          for (int k = 0; k < kI; ++k) {
            // The pair (i, i): source (lane + s) mod 32 of group u is target k of this lane.
            const bool self = Pair::kSelfExcluded && I == J && u == k && s == 0;
            F dx = p.x - pi[k].x, dy = p.y - pi[k].y, dz = p.z - pi[k].z;
            if constexpr (kDs)  // double-single difference (kGrp: of the offsets)
              dx += lo.x - li[k][0], dy += lo.y - li[k][1], dz += lo.z - li[k][2];
            if constexpr (kJerk) {
              Pair::template one_jerk<kGuard>(ctx, dx, dy, dz, v.x - vi[k][0], v.y - vi[k][1],
                                              v.z - vi[k][2], mass(p), self, acc[k]);
            } else {
              Pair::template one<kPot, kGuard>(ctx, dx, dy, dz, mass(p), self, acc[k]);
            }
          }
        }
        if constexpr (kNear) fold_sums();  // no float sum over more than 32 near sources
      }
    } else {
#pragma unroll 1
      for (int u = 0; u < kI; ++u) {
        target_offsets(u);
        const float4* sp = &s_rows[wib][u][0][kDoubled ? lane : 0];
        const float4* sv = sp + kVelRow * kRow;
        const float4* sl = sp + kLoRow * kRow;
        Sum fj{};  // sums of the source this lane holds at this step
        // The 32 rotation steps; kDsPair (a Flag): double-single displacements (kMixedDs, and
        // kGrp's tiles near the diagonal), else single's or kGrp's offsets from the group's origin.
        auto steps = [&](auto ds_pair) {
          constexpr bool kDsPair = decltype(ds_pair)::value;
#pragma unroll kUnroll
          for (int s = 0; s < 32; ++s) {
            const int e = source_entry<!kDoubled>(lane, s);
            const float4 p = sp[e];
            [[maybe_unused]] float4 v = zero, lo = zero;  // GAJ; double-single pairs
            if constexpr (kJerk) v = sv[e];
            if constexpr (kDsPair) lo = sl[e];
            F dx[kI], dy[kI], dz[kI], s2[kI];
            typename Pair::Stage st[kI];
#pragma unroll
            for (int k = 0; k < kI; ++k) {
              dx[k] = p.x - pi[k].x, dy[k] = p.y - pi[k].y, dz[k] = p.z - pi[k].z;
              if constexpr (kDsPair) {  // double-single difference (kGrp: of the offsets)
                dx[k] += lo.x - li[k][0], dy[k] += lo.y - li[k][1], dz[k] += lo.z - li[k][2];
              } else if constexpr (kGrp) {  // minus the low part of the target's offset
                dx[k] -= li[k][0], dy[k] -= li[k][1], dz[k] -= li[k][2];
              }
              s2[k] = Pair::distance2(ctx, dx[k], dy[k], dz[k]);
            }
#pragma unroll
            for (int k = 0; k < kI; ++k) st[k] = Pair::stage(s2[k]);
#pragma unroll
            for (int k = 0; k < kI; ++k) {
              if constexpr (kJerk) {
                Pair::template pair_jerk<kGuard>(dx[k], dy[k], dz[k], v.x - vi[k][0],
                                                 v.y - vi[k][1], v.z - vi[k][2], mass(pi[k]),
                                                 mass(p), s2[k], st[k], acc[k], fj);
              } else {
                Pair::template pair<kPot, kGuard, kUnit>(dx[k], dy[k], dz[k], mass(pi[k]), mass(p),
                                                         s2[k], st[k], acc[k], fj);
              }
            }
            rotate<kJerk, kPot>(fj);
          }
        };
        if constexpr (kGrp) {
          if (near_diagonal)
            steps(Flag<true>{});
          else
            steps(Flag<false>{});
        } else {
          steps(Flag<kHiLo>{});
        }
        if constexpr (kJerk) {  // 7 sums: through shared memory (registers of the hot loop)
          // Aliased: slot 0 is group 0's rows, which every lane is done reading (u >= 0).
          if constexpr (kAlias) __syncwarp();
          store_components(fj, staged + lane, 32);
          flush_staged<kDs>(a, staged, kComp, kComp, 1, J * B + 32 * u, lane);
        } else {  // GA: 3 or 4 sums straight from the registers (1.1-1.6 % faster than staged)
          const int j = J * B + 32 * u + lane;
          if (j < n) {
            const std::size_t nn = std::size_t(n);
            engine::exact_add(component_words(a, Component::kAx), nn, j, fj.ax);
            engine::exact_add(component_words(a, Component::kAy), nn, j, fj.ay);
            engine::exact_add(component_words(a, Component::kAz), nn, j, fj.az);
            if constexpr (kPot)  // the component (kPot is also the template parameter here)
              engine::exact_add(component_words(a, Component::kPot), nn, j, fj.pot);
          }
        }
      }
    }
    // Mixed: no target float sum over more than a.ds_flush_tiles tiles of sources.
    if constexpr ((kDs && !kNear) || kFar) {
      if (++tiles_since_flush == a.ds_flush_tiles) {
        if constexpr (kLevel2) {
          fold_sums();
        } else {
          flush_row();
#pragma unroll
          for (int k = 0; k < kI; ++k) acc[k] = Sum{};
        }
        tiles_since_flush = 0;
      }
    }
  }
  flush_row();
}

}  // namespace newton3
#endif  // __CUDACC__
}  // namespace pairwise::nbody::cuda
