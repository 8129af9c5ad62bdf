// The Newton-3 path of CUDA gravity (single and mixed precision, full evaluations): every unordered
// pair (i, j) is evaluated once and applied to both particles
// (physics::accumulate_accel_pair_from_rsqrt / accumulate_accel_jerk_pair_from_rsqrt), in the
// warp-tile scheme of engine/pair_tiles.cuh:
//
//   - tiles of B = 32·kI targets (kI per lane, in registers, with their running sums) × B sources
//     over the upper triangle of tiles; each warp takes a contiguous chunk of the triangle (row by
//     row, so the targets stay in registers along a row) and flushes the targets' sums when its
//     row changes;
//   - per tile the warp stages its B sources in its own shared memory, each 32-source group twice
//     (64 entries); at rotation step s lane L reads source (L + s) mod 32 (entry L + s) and adds
//     that pair to its kI targets' sums and to the source's sums, which then move one lane down
//     (__shfl_sync, 4 for GA and 7 for GAJ per step, amortized over kI pairs); after 32 steps lane
//     L holds source L's sums and flushes them;
//   - diagonal tiles (I == J) are one-sided (physics::accumulate_accel / accumulate_accel_jerk over
//     all B sources, the pair (i, i) included: its φ term is removed by the finalize kernel as on
//     the other paths);
//   - the pads of a partial last tile are far away with zero mass on both sides: they add exactly
//     zero to real particles, and their own sums are never flushed;
//   - equal masses (kUnit): the pair terms are summed without masses (m = 1 in the evaluators, so
//     m_j/s³ and m_i/s³ are both 1/s³, two FMUL fewer per pair) and the finalize kernel multiplies
//     by m in double; the pads then sit at kFarUnit (1e25), where s² overflows to +inf and 1/s to
//     exactly 0, so they still add exactly zero;
//   - every flush is an exact integer add (engine::exact_add, one int64 atomic per value), so the
//     result does not depend on the order of the flushes: bitwise reproducible. The finalize
//     kernel rounds each sum to double once, removes the self term of φ and zeroes the words.
//
// Issue slots per pair (SASS of the loop, docs/performance.md): GA 3 (d) + 3 (s²) + 1 (rsqrt) + 4
// (1/s³, m_j/s³, m_i/s³) + 6 (a_i, a_j) + 2 (φ_i, φ_j) = 19 for two interactions (17 with equal
// masses), plus per source
// step one LDS.128 and 4 SHFL shared by kI pairs; GAJ 38 + 2 LDS.128 + 7 SHFL.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>

#include "core/cuda_check.cuh"
#include "engine/pair_tiles.cuh"
#include "nbody/cuda_gravity.cuh"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody::cuda {
namespace {

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
// Mixed precision (kDs: double-single positions, 3 more registers per target) at GA kI = 8 takes 3
// blocks/SM with or without equal masses.
template <bool kJerk, bool kPot, bool kUnit, bool kDs, int kI>
constexpr int kMinBlocks = (!kJerk && kPot && kI == 8) ? (kUnit && !kDs ? kUnitGaMinBlocks : 3) : 4;

// The tile walk of one launch: nb row tiles of 32·kI, n_tiles = nb(nb + 1)/2 tiles over `warps`
// warps.
struct Newton3Grid {
  int nb = 0;
  long long n_tiles = 0, warps = 0;
};

// Exact words of component c: value i's word w at exact[(c·kExactWords + w)·n + i].
__device__ __forceinline__ unsigned long long* component_words(const ForceArgs& a, int c) {
  return a.exact + std::size_t(c) * engine::kExactWords * std::size_t(a.n_j);
}

// Components of a sum in the order of the exact buffer (kAx, kAy, kAz, kPot, kJx, kJy, kJz).
template <class Sum>
__device__ __forceinline__ void store_components(const Sum& s, float* out, int stride) {
  out[kAx * stride] = s.ax, out[kAy * stride] = s.ay, out[kAz * stride] = s.az;
  out[kPot * stride] = s.pot;
  if constexpr (sizeof(Sum) / sizeof(float) == 7)
    out[kJx * stride] = s.jx, out[kJy * stride] = s.jy, out[kJz * stride] = s.jz;
}

// Flushes `count` sums staged in this warp's buffer (`staged[(slot · stride + c) · 32 + lane]`,
// components c < comps, the particle of slot k being first + 32 k) into the exact accumulator. The
// values go through shared memory and a loop that is not unrolled, so the flush (once per row, and
// for GAJ's 7 sums once per 32-source group) does not hold registers of the hot loop. GA's 3 or 4
// source sums per group go straight from the registers: 1.1-1.6 % faster (docs/performance.md,
// pass 6).
__device__ __forceinline__ void flush_staged(const ForceArgs& a, const float* staged, int stride,
                                             int comps, int count, int first, int lane) {
  const std::size_t n = std::size_t(a.n_j);
#pragma unroll 1
  for (int k = 0; k < count; ++k) {
    const int i = first + 32 * k + lane;
    if (i >= a.n_j) continue;
#pragma unroll 1
    for (int c = 0; c < comps; ++c)
      engine::exact_add(component_words(a, c), n, i, staged[(k * stride + c) * 32 + lane]);
  }
}

// The shared-memory entry lane `lane` reads at rotation step s: source (lane + s) mod 32, at entry
// lane + s of the doubled row (the base pointer holds lane), or (lane + s) mod 32 of a single copy.
template <bool kDs>
__device__ __forceinline__ int source_entry(int lane, int s) {
  return kDs ? ((lane + s) & 31) : s;
}

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

// kDs (mixed precision): positions are double-single, x = hi + lo (ForceArgs::jpos holds hi and the
// mass, ForceArgs::jlo the low parts), and every displacement is (xj_hi - xi_hi) + (xj_lo - xi_lo)
// in FP32 (the hi difference is exact for nearby particles, Sterbenz), 6 FADD more per pair. The
// sources are staged once per 32-source group (not twice: the low parts need the shared memory)
// and read at (lane + s) mod 32. The targets' float sums are flushed to the exact accumulator after
// every ForceArgs::ds_flush_tiles tiles (4 by default: no float sum runs over more than 4B sources;
// a source's sums over B targets), where single's run over a warp's whole row chunk.
template <bool kJerk, bool kPot, bool kGuard, bool kUnit, bool kDs, int kI>
__global__ void __launch_bounds__(kBlockThreads, (kMinBlocks<kJerk, kPot, kUnit, kDs, kI>))
    newton3_kernel(const ForceArgs a, const Newton3Grid g) {
  using F = float;
  using Sum = std::conditional_t<kJerk, physics::AccelJerk<F>, physics::Accel<F>>;
  constexpr int B = 32 * kI;
  // Per warp, per 32-source group: 64 entries (the group twice; once with kDs), positions + mass,
  // velocities, and with kDs the low parts of the positions.
  constexpr int kRow = kDs ? 32 : 64;
  __shared__ float4 s_pos[kWarps][kI][kRow];
  __shared__ float4 s_vel[kJerk ? kWarps : 1][kJerk ? kI : 1][kJerk ? kRow : 1];
  __shared__ float4 s_lo[kDs ? kWarps : 1][kDs ? kI : 1][kDs ? 32 : 1];
  // Sums on their way to the exact accumulator: [slot][component][lane] per warp.
  constexpr int kComp = kJerk ? 7 : 4;
  __shared__ float s_flush[kWarps][kI * kComp * 32];

  const int lane = int(threadIdx.x) & 31, wib = int(threadIdx.x) >> 5;
  const long long warp = (long long)blockIdx.x * kWarps + wib;
  long long t, t_end;
  engine::tile_chunk(g.n_tiles, g.warps, warp, &t, &t_end);
  if (t >= t_end) return;
  int I, J;
  engine::triangle_tile(t, g.nb, &I, &J);

  const int n = a.n_j;
  const float4* __restrict__ jpos = static_cast<const float4*>(a.jpos);
  const float4* __restrict__ jvel = static_cast<const float4*>(a.jvel);
  const float4* __restrict__ jlo = static_cast<const float4*>(a.jlo);
  const F eps2 = F(a.eps2);
  constexpr float kPad = kUnit ? kFarUnit : kFar;
  const float4 far = make_float4(kPad, kPad, kPad, 0.f), zero = make_float4(0.f, 0.f, 0.f, 0.f);
  // The mass of a target (source) in the evaluators: its own, or 1 with equal masses.
  auto mass = [](const float4& p) { return kUnit ? F(1) : p.w; };

  float4 pi[kI];  // x, y, z, m of the targets
  F vi[kI][3];
  F li[kDs ? kI : 1][3];  // kDs: the low parts of the targets' positions
  Sum acc[kI];
  int row = -1;
  int tiles_since_flush = 0;  // kDs
  float* staged = s_flush[wib];
  auto flush_row = [&]() {
    if (row < 0) return;
#pragma unroll
    for (int k = 0; k < kI; ++k) store_components(acc[k], staged + (k * kComp) * 32 + lane, 32);
    flush_staged(a, staged, kComp, kPot ? kComp : 3, kI, row * B, lane);
  };

  for (; t < t_end; ++t) {
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
    // Stage the tile's sources, each 32-source group twice.
    __syncwarp();
#pragma unroll
    for (int u = 0; u < kI; ++u) {
      const int j = J * B + 32 * u + lane;
      const float4 p = j < n ? jpos[j] : far;
      s_pos[wib][u][lane] = p;
      if constexpr (!kDs) s_pos[wib][u][lane + 32] = p;
      if constexpr (kJerk) {
        const float4 v = j < n ? jvel[j] : zero;
        s_vel[wib][u][lane] = v;
        if constexpr (!kDs) s_vel[wib][u][lane + 32] = v;
      }
      if constexpr (kDs) s_lo[wib][u][lane] = j < n ? jlo[j] : zero;
    }
    __syncwarp();

    if (I == J) {  // diagonal tile: one-sided, every ordered pair
#pragma unroll 1
      for (int u = 0; u < kI; ++u) {
        const float4* sp = &s_pos[wib][u][kDs ? 0 : lane];
        const float4* sv = &s_vel[wib][kJerk ? u : 0][kJerk && !kDs ? lane : 0];
#pragma unroll kUnroll
        for (int s = 0; s < 32; ++s) {
          const int e = source_entry<kDs>(lane, s);
          const float4 p = sp[e];
          float4 v = zero, lo = zero;
          if constexpr (kJerk) v = sv[e];
          if constexpr (kDs) lo = s_lo[wib][u][e];
#pragma unroll
          for (int k = 0; k < kI; ++k) {
            F dx = p.x - pi[k].x, dy = p.y - pi[k].y, dz = p.z - pi[k].z;
            if constexpr (kDs) dx += lo.x - li[k][0], dy += lo.y - li[k][1], dz += lo.z - li[k][2];
            if constexpr (kJerk) {
              physics::accumulate_accel_jerk<kGuard>(dx, dy, dz, v.x - vi[k][0], v.y - vi[k][1],
                                                     v.z - vi[k][2], mass(p), eps2, acc[k]);
            } else {
              physics::accumulate_accel<kPot, kGuard>(dx, dy, dz, mass(p), eps2, acc[k]);
            }
          }
        }
      }
    } else {
#pragma unroll 1
      for (int u = 0; u < kI; ++u) {
        const float4* sp = &s_pos[wib][u][kDs ? 0 : lane];
        const float4* sv = &s_vel[wib][kJerk ? u : 0][kJerk && !kDs ? lane : 0];
        Sum fj{};  // sums of the source this lane holds at this step
#pragma unroll kUnroll
        for (int s = 0; s < 32; ++s) {
          const int e = source_entry<kDs>(lane, s);
          const float4 p = sp[e];
          float4 v = zero, lo = zero;
          if constexpr (kJerk) v = sv[e];
          if constexpr (kDs) lo = s_lo[wib][u][e];
          F dx[kI], dy[kI], dz[kI], s2[kI], inv_s[kI];
#pragma unroll
          for (int k = 0; k < kI; ++k) {
            dx[k] = p.x - pi[k].x, dy[k] = p.y - pi[k].y, dz[k] = p.z - pi[k].z;
            if constexpr (kDs) {  // double-single difference
              dx[k] += lo.x - li[k][0], dy[k] += lo.y - li[k][1], dz[k] += lo.z - li[k][2];
            }
            s2[k] = physics::softened_distance2(dx[k], dy[k], dz[k], eps2);
          }
#pragma unroll
          for (int k = 0; k < kI; ++k) inv_s[k] = pairwise::rsqrt(s2[k]);
#pragma unroll
          for (int k = 0; k < kI; ++k) {
            if constexpr (kJerk) {
              physics::accumulate_accel_jerk_pair_from_rsqrt<kGuard>(
                  dx[k], dy[k], dz[k], v.x - vi[k][0], v.y - vi[k][1], v.z - vi[k][2], mass(pi[k]),
                  mass(p), s2[k], inv_s[k], acc[k], fj);
            } else {
              physics::accumulate_accel_pair_from_rsqrt<kPot, kGuard>(
                  dx[k], dy[k], dz[k], mass(pi[k]), mass(p), s2[k], inv_s[k], acc[k], fj);
            }
          }
          rotate<kJerk, kPot>(fj);
        }
        if constexpr (kJerk) {  // 7 sums: through shared memory (registers of the hot loop)
          store_components(fj, staged + lane, 32);
          flush_staged(a, staged, kComp, kComp, 1, J * B + 32 * u, lane);
        } else {  // GA: 3 or 4 sums straight from the registers (1.1-1.6 % faster than staged)
          const int j = J * B + 32 * u + lane;
          if (j < n) {
            const std::size_t nn = std::size_t(n);
            engine::exact_add(component_words(a, Component::kAx), nn, j, fj.ax);
            engine::exact_add(component_words(a, Component::kAy), nn, j, fj.ay);
            engine::exact_add(component_words(a, Component::kAz), nn, j, fj.az);
            if constexpr (kPot)
              engine::exact_add(component_words(a, Component::kPot), nn, j, fj.pot);
          }
        }
      }
    }
    // Mixed: no target float sum over more than a.ds_flush_tiles tiles of sources.
    if constexpr (kDs) {
      if (++tiles_since_flush == a.ds_flush_tiles) {
        flush_row();
#pragma unroll
        for (int k = 0; k < kI; ++k) acc[k] = Sum{};
        tiles_since_flush = 0;
      }
    }
    engine::triangle_next(g.nb, &I, &J);
  }
  flush_row();
}

// Rounds the exact sums to double, removes the self term of φ (the pair (i, i) of the diagonal
// tile added -m_i/ε, in float, as physics::self_potential computes it; -1/ε with equal masses,
// whose sums are then multiplied by m in double), writes `out` and zeroes the words for the next
// evaluation.
__global__ void newton3_finalize_kernel(const ForceArgs a) {
  const int i = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (i >= a.n_j) return;
  const std::size_t n = std::size_t(a.n_j);
  const int comps = a.jerk ? 7 : 4;
  const bool unit = a.equal_mass;
  for (int c = 0; c < comps; ++c) {
    unsigned long long* words = component_words(a, c) + i;
    double v = engine::exact_value(reinterpret_cast<const long long*>(words), n);
    const double m = a.state.p[kM][i];
    if (c == kPot && a.potential)
      v -= double(physics::self_potential(unit ? 1.0f : float(m), float(a.eps2)));
    if (unit) v *= m;
#pragma unroll
    for (int w = 0; w < engine::kExactWords; ++w) words[std::size_t(w) * n] = 0;
    a.out[std::size_t(c) * n + i] = v;
  }
}

using KernelFn = void (*)(ForceArgs, Newton3Grid);

template <bool kJerk, bool kPot, bool kDs, int kI>
KernelFn pick_guard_unit(bool guard, bool unit) {
  if (unit)
    return guard ? newton3_kernel<kJerk, kPot, true, true, kDs, kI>
                 : newton3_kernel<kJerk, kPot, false, true, kDs, kI>;
  return guard ? newton3_kernel<kJerk, kPot, true, false, kDs, kI>
               : newton3_kernel<kJerk, kPot, false, false, kDs, kI>;
}

template <bool kDs>
KernelFn pick_precision(bool jerk, bool potential, bool guard, bool unit, int k_i) {
  if (jerk)
    return k_i == 2 ? pick_guard_unit<true, true, kDs, 2>(guard, unit)
                    : pick_guard_unit<true, true, kDs, 4>(guard, unit);
  if (k_i == 8)
    return potential ? pick_guard_unit<false, true, kDs, 8>(guard, unit)
                     : pick_guard_unit<false, false, kDs, 8>(guard, unit);
  return potential ? pick_guard_unit<false, true, kDs, 4>(guard, unit)
                   : pick_guard_unit<false, false, kDs, 4>(guard, unit);
}

// Register tiles compiled: GA kI = 4 or 8, GAJ kI = 2 or 4; single (ds false) or mixed (ds true,
// double-single positions).
KernelFn pick(bool ds, bool jerk, bool potential, bool guard, bool unit, int k_i) {
  return ds ? pick_precision<true>(jerk, potential, guard, unit, k_i)
            : pick_precision<false>(jerk, potential, guard, unit, k_i);
}

Newton3Grid grid_of(int n, int k_i, int blocks) {
  Newton3Grid g;
  g.nb = (n + 32 * k_i - 1) / (32 * k_i);
  g.n_tiles = engine::triangle_tiles(g.nb);
  g.warps = std::min<long long>(g.n_tiles, (long long)blocks * kWarps);
  return g;
}

}  // namespace

std::size_t newton3_exact_bytes(int n) {
  return sizeof(unsigned long long) * engine::kExactWords * kComponents *
         std::size_t(std::max(n, 1));
}

int newton3_blocks(Precision precision, bool jerk, bool potential, int k_i, int n, int sms) {
  int per_sm = 1;
  PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, pick(precision == Precision::mixed, jerk, potential, false, false, k_i),
      kBlockThreads, 0));
  const int nb = (n + 32 * k_i - 1) / (32 * k_i);
  const long long tiles = engine::triangle_tiles(nb);
  const long long resident = (long long)std::max(per_sm, 1) * std::max(sms, 1);
  return int(std::max<long long>(1, std::min(resident, (tiles + kWarps - 1) / kWarps)));
}

bool newton3_equal_mass(bool equal_masses) {
  static const bool off = [] {
    const char* env = std::getenv("PAIRWISE_CUDA_EQUAL_MASS");
    return env != nullptr && std::atoi(env) == 0;
  }();
  return equal_masses && !off;
}

void launch_newton3(const ForceArgs& args) {
  const auto stream = static_cast<cudaStream_t>(args.stream);
  const int n = args.n_j;
  const int k_i = args.plan.i_per_thread;
  ForceArgs a = args;
  a.equal_mass = newton3_equal_mass(args.equal_mass);
  // Mixed: tiles between the flushes of the targets' float sums (PAIRWISE_CUDA_MIXED_FLUSH_TILES;
  // 4 by default: GA +5.5 %, GAJ +6.7 % over 1 at N = 1,048,576, and the Plummer energy error of
  // shared-step Hermite at t = 1 4.6e-10 against 5.9e-11 with 1 and 1.3e-9 on the split path:
  // docs/performance.md).
  static const int flush_tiles = [] {
    const char* env = std::getenv("PAIRWISE_CUDA_MIXED_FLUSH_TILES");
    return env && std::atoi(env) > 0 ? std::atoi(env) : 4;
  }();
  a.ds_flush_tiles = flush_tiles;
  int blocks = args.plan.i_blocks;
  // The plan counted the general kernel's resident blocks (3 per SM for GA at kI = 8); the
  // equal-mass one has kUnitGaMinBlocks.
  const bool ds = a.precision == Precision::mixed;
  if (a.equal_mass && !ds && !a.jerk && a.potential && k_i == 8) {
    const long long tiles = engine::triangle_tiles((n + 32 * k_i - 1) / (32 * k_i));
    blocks = int(std::min<long long>((long long)blocks * kUnitGaMinBlocks / 3,
                                     std::max<long long>(1, (tiles + kWarps - 1) / kWarps)));
  }
  const Newton3Grid g = grid_of(n, k_i, blocks);
  pick(ds, a.jerk, a.potential, a.guard_zero, a.equal_mass,
       k_i)<<<unsigned(blocks), kBlockThreads, 0, stream>>>(a, g);
  PW_CUDA_LAUNCH(args.jerk ? "gravity newton3_kernel (GAJ)" : "gravity newton3_kernel (GA)");
  newton3_finalize_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(a);
  PW_CUDA_LAUNCH("gravity newton3_finalize_kernel");
}

}  // namespace pairwise::nbody::cuda
