// CUDA kernels of direct N-body gravity (see cuda_gravity.cuh for layouts and the plan).
//
// The split path is the all-pairs engine (engine/all_pairs.cuh) instantiated with GravityPolicy:
// each block owns i_per_block = (kThreads / q) * kI targets held in registers (kI per thread,
// fully unrolled) and walks j-tiles of kThreads sources staged in shared memory; every source read
// is a warp-wide broadcast LDS (float4), amortized over kI targets. The pair arithmetic is
// physics::accumulate_accel / accumulate_accel_jerk (or their two-stage forms, the same
// operations). The blocks of one i-block's j-splits reduce their partial sums in the same launch:
// the last to finish (ticket counter) adds them in split order and writes the finalized results.
// The small-problem path (small_forces_kernel) is gravity's own. Measurements and the reasons for
// the choices: docs/performance.md.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/cuda_check.cuh"
#include "engine/all_pairs.cuh"
#include "nbody/cuda_gravity.cuh"
#include "nbody/cuda_gravity_sources.cuh"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody::cuda {
namespace {

using D4 = GravityD4;  // nbody/cuda_gravity_sources.cuh

template <Precision P>
struct Traits;
template <>
struct Traits<Precision::single> {
  using F = float;    // pair arithmetic
  using Acc = float;  // accumulation and partial sums
  using JP = float4;  // x, y, z, m
  static constexpr bool kLo = false;
  static constexpr int kI = 4;
};
template <>
struct Traits<Precision::mixed> {
  using F = float;
  using Acc = double;  // float sums over one j-tile chunk, added into double
  using JP = float4;
  static constexpr bool kLo = true;
  static constexpr int kI = 4;
};
template <>
struct Traits<Precision::double_> {
  using F = double;
  using Acc = double;
  using JP = D4;
  static constexpr bool kLo = false;
  static constexpr int kI = 2;
};

template <class A>
__device__ __forceinline__ auto component(const A& acc, int c) {
  // AccelJerk has 7 members (a, φ, jerk), Accel 4 (a, φ).
  if constexpr (sizeof(A) / sizeof(acc.ax) == 7) {
    if (c == kJx) return acc.jx;
    if (c == kJy) return acc.jy;
    if (c == kJz) return acc.jz;
  }
  if (c == kAx) return acc.ax;
  if (c == kAy) return acc.ay;
  if (c == kAz) return acc.az;
  return acc.pot;
}

// The particle (master-state index) of target k and where its results go, out[c · n_i + slot].
// kSorted (block steps with near/far source groups: the j arrays in a spatial order, the targets
// sorted by entry): particle order[i_index[k]], slot i_slot[k]; else particle i_index[k] (or k),
// slot k. Compile-time, so that the other kernels' code is what it was before the sorted case.
template <bool kSorted>
__device__ __forceinline__ int target_particle(const ForceArgs& a, int k) {
  if constexpr (kSorted) return a.order[a.i_index[k]];
  return a.i_index ? a.i_index[k] : k;
}
template <bool kSorted>
__device__ __forceinline__ int target_slot(const ForceArgs& a, int k) {
  if constexpr (kSorted) return a.i_slot[k];
  return k;
}

// Self term of φ for target k: the loop added -m_k/ε for the pair (k, k).
template <Precision P, bool kSorted = false>
__device__ __forceinline__ double finalize_value(const ForceArgs& a, int k, int c, double value) {
  using F = typename Traits<P>::F;
  if (c == Component::kPot) {
    const int i = target_particle<kSorted>(a, k);
    value -= double(physics::self_potential(F(a.state.p[kM][i]), F(a.eps2)));
  }
  return value;
}

// The predicted x, v of target k (block steps), from the master state in double.
template <bool kSorted = false>
__device__ void write_predicted(const ForceArgs& a, int k) {
  const int i = target_particle<kSorted>(a, k), slot = target_slot<kSorted>(a, k);
  const double dt = a.t - a.state.p[kT][i];
  for (int d = 0; d < 3; ++d) {
    double xp, vp;
    physics::predict(dt, a.state.p[kX + d][i], a.state.p[kVx + d][i], a.state.p[kAx_ + d][i],
                     a.state.p[kJx_ + d][i], xp, vp);
    a.out[std::size_t(7 + d) * a.n_i + slot] = xp;
    a.out[std::size_t(10 + d) * a.n_i + slot] = vp;
  }
}

// N-body gravity (GA or GAJ) as an interaction policy of the all-pairs engine
// (engine/all_pairs.cuh). The pair arithmetic is physics::accumulate_accel /
// accumulate_accel_jerk (or their two-stage forms, the same operations). kPhased: the kI pairs of
// one source go through the evaluator in three stages (all distances, all rsqrt, all
// accumulations), so the scheduler sees kI independent chains instead of kI serial ones.
// kNearFar (mixed precision, ForceArgs::boxes; block steps with the particles in a spatial order):
// two evaluators (the engine's optional interface). A warp's 32-source groups far from its
// targets take single precision's displacement of the hi parts, fl(x_j,hi - x_i,hi), off by about
// u/2·(|x_i| + |x_j|) (u = 2^-24), small against |d| there; the near ones take double-single
// displacements, and after each the float sums are folded into double (no float sum over more
// than 32 near sources: in a spatial order their terms are the large ones). Near: a source group
// whose box (ForceArgs::boxes) is near the box of one of the warp's kI target slots (32
// consecutive targets) by newton3::boxes_near (cuda_newton3_kernel.cuh), with the group's
// half-diagonal: a far pair's displacement error relative to |d| is bounded as the Newton-3 tiles'.
template <Precision P, bool kJerk, bool kPot, bool kGuard, bool kPhased, bool kNearFar = false>
struct GravityPolicy {
  static_assert(!kNearFar || P == Precision::mixed, "near/far groups are mixed precision's");
  using T = Traits<P>;
  using F = typename T::F;
  using JP = typename T::JP;
  using Sum = std::conditional_t<kJerk, physics::AccelJerk<F>, physics::Accel<F>>;
  static constexpr int kComponents = kJerk ? 7 : 4;

  using Args = ForceArgs;
  using Source = GravitySource<JP, T::kLo, kJerk>;
  using Partial = typename T::Acc;
  using Target = GravityTarget<F>;
  struct Accum {
    Sum sum;
    double total[T::kLo ? kComponents : 1] = {};  // mixed: double sums of the tiles' float sums
  };
  struct Ctx {
    F eps2;
  };

  static __device__ __forceinline__ Ctx context(const Args& a) { return Ctx{F(a.eps2)}; }

  static __device__ __forceinline__ Target load_target(const Args& a, int k) {
    return load_gravity_target<F, JP, T::kLo, kJerk>(a, k);
  }

  static __device__ __forceinline__ Source load_source(const Args& a, int j) {
    return load_gravity_source<JP, T::kLo, kJerk>(a, j);
  }

  // A source far away with zero mass: contributes exactly zero (m = 0) with a finite 1/s.
  static __device__ __forceinline__ Source pad_source(const Args&) {
    return gravity_pad_source<F, JP, T::kLo, kJerk>(F(kFar));
  }

  template <int kI>
  static __device__ __forceinline__ void interact(const Ctx& ctx, const Source& s,
                                                  const Target (&t)[kI], Accum (&acc)[kI]) {
    evaluate<T::kLo && !kNearFar>(ctx, s, t, acc);
  }

  // ---- kNearFar: the engine's two evaluators (interact above takes the far groups) ----
  static constexpr bool kTwoEvaluators = kNearFar;
  // The boxes (hi parts) of the warp's kI target slots, as newton3::boxes_near reads them, with no
  // half-diagonal: the source group's alone scales the test (a slot's 32 targets are spread over
  // the active ones, so its box is much larger than a group's).
  template <int kI>
  struct Region {
    float4 lo[kI], hi[kI];
  };
  template <int kI>
  static __device__ __forceinline__ Region<kI> region(const Args&, const Target (&t)[kI]) {
    Region<kI> r;
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      float lo[3] = {float(t[k].x), float(t[k].y), float(t[k].z)};
      float hi[3] = {lo[0], lo[1], lo[2]};
      const float reach = newton3::warp_box(lo, hi);
      r.lo[k] = make_float4(lo[0], lo[1], lo[2], 0.f);
      r.hi[k] = make_float4(hi[0], hi[1], hi[2], reach);
    }
    return r;
  }
  template <int kI>
  static __device__ __forceinline__ bool near(const Args& a, const Region<kI>& r, int group) {
    if (group * 32 >= a.n_j) return false;  // pads only
    const float4* const boxes = static_cast<const float4*>(a.boxes);
    const float4 lo = boxes[2 * group], hi = boxes[2 * group + 1];
    bool near = false;
#pragma unroll
    for (int k = 0; k < kI; ++k)
      near = near || newton3::boxes_near(r.lo[k], r.hi[k], lo, hi, a.kappa);
    return near;
  }
  template <int kI>
  static __device__ __forceinline__ void interact_near(const Ctx& ctx, const Source& s,
                                                       const Target (&t)[kI], Accum (&acc)[kI]) {
    evaluate<true>(ctx, s, t, acc);
  }
  template <int kI>
  static __device__ __forceinline__ void end_near_group(Accum (&acc)[kI]) {
    end_tile(acc);
  }

  // One source against the kI targets; kDs: double-single displacements (mixed), else the hi parts
  // (single, double, and mixed's far groups).
  template <bool kDs, int kI>
  static __device__ __forceinline__ void evaluate(const Ctx& ctx, const Source& s,
                                                  const Target (&t)[kI], Accum (&acc)[kI]) {
    const JP& p = s.p;
    const F eps2 = ctx.eps2;
    if constexpr (kPhased) {
      F dx[kI], dy[kI], dz[kI], s2[kI], inv_s[kI];
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        dx[k] = p.x - t[k].x, dy[k] = p.y - t[k].y, dz[k] = p.z - t[k].z;
        if constexpr (kDs) {
          // double-single difference: the hi difference is exact for nearby particles
          dx[k] += s.lo.x - t[k].xl, dy[k] += s.lo.y - t[k].yl, dz[k] += s.lo.z - t[k].zl;
        }
        s2[k] = physics::softened_distance2(dx[k], dy[k], dz[k], eps2);
      }
#pragma unroll
      for (int k = 0; k < kI; ++k) inv_s[k] = pairwise::rsqrt(s2[k]);
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        if constexpr (kJerk) {
          physics::accumulate_accel_jerk_from_rsqrt<kGuard>(dx[k], dy[k], dz[k], s.v.x - t[k].vx,
                                                            s.v.y - t[k].vy, s.v.z - t[k].vz, p.w,
                                                            s2[k], inv_s[k], acc[k].sum);
        } else {
          physics::accumulate_accel_from_rsqrt<kPot, kGuard>(dx[k], dy[k], dz[k], p.w, s2[k],
                                                             inv_s[k], acc[k].sum);
        }
      }
    } else {
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        F dx = p.x - t[k].x, dy = p.y - t[k].y, dz = p.z - t[k].z;
        if constexpr (kDs) dx += s.lo.x - t[k].xl, dy += s.lo.y - t[k].yl, dz += s.lo.z - t[k].zl;
        if constexpr (kJerk) {
          physics::accumulate_accel_jerk<kGuard>(dx, dy, dz, s.v.x - t[k].vx, s.v.y - t[k].vy,
                                                 s.v.z - t[k].vz, p.w, eps2, acc[k].sum);
        } else {
          physics::accumulate_accel<kPot, kGuard>(dx, dy, dz, p.w, eps2, acc[k].sum);
        }
      }
    }
  }

  template <int kI>
  static __device__ __forceinline__ void end_tile(Accum (&acc)[kI]) {
    if constexpr (T::kLo) {  // fold this tile's float sums into double
#pragma unroll
      for (int k = 0; k < kI; ++k) {
#pragma unroll
        for (int c = 0; c < kComponents; ++c) acc[k].total[c] += double(component(acc[k].sum, c));
        acc[k].sum = Sum{};
      }
    }
  }

  static __device__ __forceinline__ Partial partial(const Accum& acc, int c) {
    if constexpr (T::kLo) {
      return acc.total[c];
    } else {
      return component(acc.sum, c);
    }
  }

  static __device__ __forceinline__ void finalize(const Args& a, int k, int c, double sum) {
    a.out[std::size_t(c) * a.n_i + target_slot<kNearFar>(a, k)] =
        finalize_value<P, kNearFar>(a, k, c, sum);
  }

  static __device__ __forceinline__ void after_finalize(const Args& a, int k_begin, int k_end) {
    if (a.predict)
      for (int k = k_begin + int(threadIdx.x); k < k_end; k += kThreads)
        write_predicted<kNearFar>(a, k);
  }
};

using ForceFn = void (*)(ForceArgs);

// The engine's kernel for gravity with register tile kI and residency hint kMinBlocks.
template <Precision P, bool kJerk, bool kPot, bool kGuard, int kI, bool kPhased, int kMinBlocks,
          bool kNearFar = false>
ForceFn forces_kernel() {
  return engine::all_pairs_kernel<GravityPolicy<P, kJerk, kPot, kGuard, kPhased, kNearFar>, kI,
                                  kMinBlocks>;
}

// Small problems (ForcePlan::small, single and mixed precision): one block of kSmallThreads
// threads per 32·kI targets, kI per lane (the same in every warp). Warp w takes a disjoint slice
// of the 32-source chunks; each chunk is loaded into registers one chunk ahead and staged in the
// warp's own shared-memory row (__syncwarp only: no block barrier in the loop), where every read
// is a broadcast LDS.128 serving kI interactions. The 32 warps' sums are then added in a fixed
// tree in shared memory (in double) and written once per target: no grid split, no atomics,
// deterministic. kLo (mixed): the positions are double-single, the low parts staged beside the
// high ones, dx = (xj_hi - xi_hi) + (xj_lo - xi_lo) as in the split path; each warp's float sums
// are folded into double every ForceArgs::small_fold_chunks chunks, and the warps' double sums
// are reduced one component at a time (kComp x 1,024 doubles would not fit beside the sources).
template <bool kLo, bool kJerk, bool kPot, bool kGuard, int kI>
__global__ void __launch_bounds__(kSmallThreads, 1) small_forces_kernel(const ForceArgs a) {
  using F = float;
  constexpr int kWarps = kSmallThreads / 32;
  constexpr int kComp = kJerk ? 7 : 4;
  using Sum = std::conditional_t<kJerk, physics::AccelJerk<F>, physics::Accel<F>>;

  // Sources during the loop ([warp][lane] positions, then velocities), warp sums afterwards.
  __shared__ float4 s_buf[(kJerk ? 2 : 1) * kSmallThreads];
  constexpr int kPairs = 32 * kComp;              // (component, lane) pairs of one target slot
  constexpr int kParts = kSmallThreads / kPairs;  // GA 8, GAJ 4
  constexpr int kWarpsPerPart = kWarps / kParts;  // GA 4, GAJ 8
  // The sources' low parts during the loop (kLo), the parts' double sums afterwards: one buffer,
  // so that mixed GAJ stays within the 48 KB of static shared memory (32 + 16 KB).
  constexpr int kPartFloat4 = kParts * kPairs * int(sizeof(double)) / int(sizeof(float4));
  __shared__ float4 s_lo_part[kLo && kSmallThreads > kPartFloat4 ? kSmallThreads : kPartFloat4];
  double* s_part = reinterpret_cast<double*>(s_lo_part);
  static_assert(kComp * kSmallThreads * sizeof(float) <= sizeof(s_buf), "warp sums fit");

  const int w = int(threadIdx.x) >> 5, lane = int(threadIdx.x) & 31;
  const int i_base = int(blockIdx.x) * 32 * kI + lane;
  const float4* __restrict__ jpos = static_cast<const float4*>(a.jpos);
  const float4* __restrict__ jlo = static_cast<const float4*>(a.jlo);
  const float4* __restrict__ jvel = static_cast<const float4*>(a.jvel);
  float4* s_pos = s_buf + w * 32;
  float4* s_vel = s_buf + (kJerk ? kSmallThreads : 0) + w * 32;
  float4* s_lo = s_lo_part + w * 32;

  float4 pi[kI], vi[kI], li[kI];
#pragma unroll
  for (int k = 0; k < kI; ++k) {
    const int i = min(i_base + 32 * k, a.n_i - 1);
    const int idx = a.i_index ? a.i_index[i] : i;
    pi[k] = jpos[idx];
    vi[k] = li[k] = make_float4(0.f, 0.f, 0.f, 0.f);
    if constexpr (kJerk) vi[k] = jvel[idx];
    if constexpr (kLo) li[k] = jlo[idx];
  }
  const F eps2 = F(a.eps2);

  const int n_chunks = (a.n_j + 31) / 32;
  const int c0 = int((long long)w * n_chunks / kWarps);
  const int c1 = int((long long)(w + 1) * n_chunks / kWarps);
  const float4 far = make_float4(kFar, kFar, kFar, 0.f), zero = make_float4(0.f, 0.f, 0.f, 0.f);
  float4 np = far, nv = zero, nl = zero;  // next chunk, in registers
  if (c0 < c1) {
    const int j = c0 * 32 + lane;
    if (j < a.n_j) {
      np = jpos[j];
      if constexpr (kJerk) nv = jvel[j];
      if constexpr (kLo) nl = jlo[j];
    }
  }
  Sum sum[kI];
  // Mixed: the float sums folded into double every a.small_fold_chunks chunks (0: once, at the
  // end), so that no float sum runs over more than 32 sources by default.
  double total[kLo ? kI : 1][kComp] = {};
  int chunks_since_fold = 0;
  for (int c = c0; c < c1; ++c) {
    __syncwarp();  // the previous chunk has been read by every lane
    s_pos[lane] = np;
    if constexpr (kJerk) s_vel[lane] = nv;
    if constexpr (kLo) s_lo[lane] = nl;
    __syncwarp();
    np = far, nv = nl = zero;
    const int j = (c + 1) * 32 + lane;
    if (c + 1 < c1 && j < a.n_j) {
      np = jpos[j];
      if constexpr (kJerk) nv = jvel[j];
      if constexpr (kLo) nl = jlo[j];
    }
#pragma unroll 8
    for (int u = 0; u < 32; ++u) {
      const float4 p = s_pos[u];
      float4 v, l;
      if constexpr (kJerk) v = s_vel[u];
      if constexpr (kLo) l = s_lo[u];
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        F dx = p.x - pi[k].x, dy = p.y - pi[k].y, dz = p.z - pi[k].z;
        if constexpr (kLo)  // double-single difference: the hi difference is exact nearby
          dx += l.x - li[k].x, dy += l.y - li[k].y, dz += l.z - li[k].z;
        if constexpr (kJerk) {
          physics::accumulate_accel_jerk<kGuard>(dx, dy, dz, v.x - vi[k].x, v.y - vi[k].y,
                                                 v.z - vi[k].z, p.w, eps2, sum[k]);
        } else {
          physics::accumulate_accel<kPot, kGuard>(dx, dy, dz, p.w, eps2, sum[k]);
        }
      }
    }
    if constexpr (kLo) {
      if (++chunks_since_fold == a.small_fold_chunks) {
        chunks_since_fold = 0;
#pragma unroll
        for (int k = 0; k < kI; ++k) {
#pragma unroll
          for (int cc = 0; cc < kComp; ++cc) total[k][cc] += double(component(sum[k], cc));
          sum[k] = Sum{};
        }
      }
    }
  }

  const int t = int(threadIdx.x);
  if constexpr (kLo) {
    // Mixed: the warps' double sums, one component at a time: parts of kWarps / 8 warps, then the
    // 8 parts, in a fixed order.
    double* red_d = reinterpret_cast<double*>(s_buf);  // [warp][lane]
    constexpr int kDParts = 8, kDWarpsPerPart = kWarps / kDParts;
    static_assert(kSmallThreads * sizeof(double) <= sizeof(s_buf), "warp sums fit");
#pragma unroll
    for (int k = 0; k < kI; ++k) {
#pragma unroll
      for (int c = 0; c < kComp; ++c) {
        __syncthreads();  // s_buf and s_part are free
        red_d[w * 32 + lane] = total[k][c] + double(component(sum[k], c));
        __syncthreads();
        if (t < kDParts * 32) {
          const int r = t >> 5, l = t & 31;
          double s = 0;
          for (int ww = 0; ww < kDWarpsPerPart; ++ww)
            s += red_d[(r * kDWarpsPerPart + ww) * 32 + l];
          s_part[t] = s;
        }
        __syncthreads();
        if (t < 32) {
          const int kk = int(blockIdx.x) * 32 * kI + 32 * k + t;
          if (kk < a.n_i) {
            double s = 0;
            for (int r = 0; r < kDParts; ++r) s += s_part[r * 32 + t];
            a.out[std::size_t(c) * a.n_i + kk] = finalize_value<Precision::mixed>(a, kk, c, s);
          }
        }
      }
    }
  } else {
    // Per target slot k: warp sums to shared memory, parts of kWarpsPerPart warps, then the parts.
    float* red = reinterpret_cast<float*>(s_buf);  // [component][warp][lane]
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      __syncthreads();  // s_buf is free (sources read, or the previous slot's sums added)
#pragma unroll
      for (int c = 0; c < kComp; ++c) red[(c * kWarps + w) * 32 + lane] = component(sum[k], c);
      __syncthreads();
      if (t < kParts * kPairs) {  // part r adds warps [r * kWarpsPerPart, (r + 1) * kWarpsPerPart)
        const int r = t / kPairs, pair = t - r * kPairs, c = pair >> 5, l = pair & 31;
        double s = 0;
#pragma unroll
        for (int ww = 0; ww < kWarpsPerPart; ++ww)
          s += double(red[(c * kWarps + r * kWarpsPerPart + ww) * 32 + l]);
        s_part[r * kPairs + pair] = s;
      }
      __syncthreads();
      if (t < kPairs) {
        const int c = t >> 5, kk = int(blockIdx.x) * 32 * kI + 32 * k + (t & 31);
        if (kk < a.n_i) {
          double s = 0;
#pragma unroll
          for (int r = 0; r < kParts; ++r) s += s_part[r * kPairs + t];
          a.out[std::size_t(c) * a.n_i + kk] = finalize_value<Precision::single>(a, kk, c, s);
        }
      }
    }
  }
  if (a.predict && t >= kPairs && t < kPairs + 32 * kI) {
    const int kk = int(blockIdx.x) * 32 * kI + (t - kPairs);
    if (kk < a.n_i) write_predicted(a, kk);
  }
}

template <Precision P>
__global__ void build_j_kernel(const BuildArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using JP = typename T::JP;
  const int q = blockIdx.x * blockDim.x + threadIdx.x;  // the particle
  if (q >= a.n) return;
  const int i = a.inverse ? a.inverse[q] : q;  // its entry
  double x[3], v[3];
  for (int d = 0; d < 3; ++d) {
    x[d] = a.state.p[kX + d][q];
    v[d] = a.state.p[kVx + d][q];
  }
  if (a.predict) {
    const double dt = a.t - a.state.p[kT][q];
    for (int d = 0; d < 3; ++d)
      physics::predict(dt, x[d], v[d], a.state.p[kAx_ + d][q], a.state.p[kJx_ + d][q], x[d], v[d]);
  }
  JP p, vel;
  p.x = F(x[0]), p.y = F(x[1]), p.z = F(x[2]), p.w = F(a.state.p[kM][q]);
  vel.x = F(v[0]), vel.y = F(v[1]), vel.z = F(v[2]), vel.w = F(0);
  static_cast<JP*>(a.jpos)[i] = p;
  static_cast<JP*>(a.jvel)[i] = vel;
  if constexpr (T::kLo) {  // low parts: x - (double)x_hi, exact to about 2^-48 relative
    static_cast<float4*>(a.jlo)[i] = make_float4(
        float(x[0] - double(p.x)), float(x[1] - double(p.y)), float(x[2] - double(p.z)), 0.f);
  }
}

__global__ void commit_kernel(const MasterState s, const double* packed, const int* active, int n) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int i = active[k];
  constexpr int rows[kCommitRows] = {kX,   kY,   kZ,   kVx,  kVy,  kVz, kAx_,
                                     kAy_, kAz_, kJx_, kJy_, kJz_, kT};
#pragma unroll
  for (int r = 0; r < kCommitRows; ++r) s.p[rows[r]][i] = packed[std::size_t(r) * n + k];
}

// Code variants of the single-precision kernels (experiments: PAIRWISE_CUDA_VARIANT), as
// (staged evaluator, __launch_bounds__ minimum blocks per SM, which caps the registers):
//   0 (GA: no, GAJ: yes; 2)  1 (yes, 3)  2 (yes, 4)  3 (no, 3)  4 (yes, 1)  5 (yes, 2)
// Variant 0 is the fastest measured on an H200 (docs/performance.md): 2 blocks of 256 threads per
// SM (<= 128 registers) beat 3 (<= 80) even though fewer warps hide latency; the staged evaluator
// helps GAJ (+3 %), not GA (-1 %). Mixed and double precision use the one-stage evaluator
// without a register cap.
constexpr int kVariants = 6;

template <Precision P, bool kJerk, bool kPot, bool kGuard, int kI>
ForceFn pick_variant(int variant) {
  if constexpr (P != Precision::single) {
    return forces_kernel<P, kJerk, kPot, kGuard, kI, false, 1>();
  } else {
    if constexpr (!kGuard) {
      switch (variant) {
        case 1:
          return forces_kernel<P, kJerk, kPot, kGuard, kI, true, 3>();
        case 2:
          return forces_kernel<P, kJerk, kPot, kGuard, kI, true, 4>();
        case 3:
          return forces_kernel<P, kJerk, kPot, kGuard, kI, false, 3>();
        case 4:
          return forces_kernel<P, kJerk, kPot, kGuard, kI, true, 1>();
        case 5:
          return forces_kernel<P, kJerk, kPot, kGuard, kI, true, 2>();
        default:
          break;
      }
    }
    // The narrow tile (kI = 2) is for small problems: <= 64 registers, 4 blocks per SM.
    return forces_kernel<P, kJerk, kPot, kGuard, kI, kJerk, (kI < Traits<P>::kI ? 4 : 2)>();
  }
}

// Register tiles (targets per thread, kI): the base tile of the precision; GA may use twice it
// (fewer shared-memory loads per interaction), and single and mixed precision half of it (kI = 2:
// more, smaller blocks for small problems; in mixed, 124 registers and 2 blocks per SM where the
// base tile's double sums take 199 and 1: block steps 1-8 % faster at N = 65,536 to 1,048,576,
// docs/performance.md). GAJ has no wide tile (register pressure).
enum class Shape { narrow, base, wide };

template <Precision P, int kI>
ForceFn pick_tile(bool jerk, bool potential, bool guard, int variant) {
  if (jerk) {
    constexpr int kJ = kI > Traits<P>::kI ? Traits<P>::kI : kI;
    return guard ? pick_variant<P, true, true, true, kJ>(variant)
                 : pick_variant<P, true, true, false, kJ>(variant);
  }
  if (potential)
    return guard ? pick_variant<P, false, true, true, kI>(variant)
                 : pick_variant<P, false, true, false, kI>(variant);
  return guard ? pick_variant<P, false, false, true, kI>(variant)
               : pick_variant<P, false, false, false, kI>(variant);
}

template <Precision P>
ForceFn pick(bool jerk, bool potential, bool guard, Shape shape, int variant) {
  if constexpr (P != Precision::double_) {
    if (shape == Shape::narrow)
      return pick_tile<P, Traits<P>::kI / 2>(jerk, potential, guard, variant);
  }
  return shape == Shape::wide ? pick_tile<P, 2 * Traits<P>::kI>(jerk, potential, guard, variant)
                              : pick_tile<P, Traits<P>::kI>(jerk, potential, guard, variant);
}

// Mixed precision with near/far source groups (ForceArgs::boxes: block steps, GAJ with φ), the
// narrow or base tile.
ForceFn pick_near_far(bool guard, Shape shape) {
  constexpr Precision M = Precision::mixed;
  constexpr int kBase = Traits<M>::kI;
  if (shape == Shape::narrow)
    return guard ? forces_kernel<M, true, true, true, kBase / 2, false, 1, true>()
                 : forces_kernel<M, true, true, false, kBase / 2, false, 1, true>();
  return guard ? forces_kernel<M, true, true, true, kBase, false, 1, true>()
               : forces_kernel<M, true, true, false, kBase, false, 1, true>();
}

ForceFn pick(Precision p, bool jerk, bool potential, bool guard, Shape shape, int variant,
             bool near_far = false) {
  if (near_far && p == Precision::mixed && jerk && potential && shape != Shape::wide)
    return pick_near_far(guard, shape);
  switch (p) {
    case Precision::single:
      return pick<Precision::single>(jerk, potential, guard, shape, variant);
    case Precision::mixed:
      return pick<Precision::mixed>(jerk, potential, guard, shape, variant);
    case Precision::double_:
      break;
  }
  return pick<Precision::double_>(jerk, potential, guard, shape, variant);
}

int base_tile(Precision p) {
  switch (p) {
    case Precision::single:
      return Traits<Precision::single>::kI;
    case Precision::mixed:
      return Traits<Precision::mixed>::kI;
    case Precision::double_:
      break;
  }
  return Traits<Precision::double_>::kI;
}

// The shape of a tile size, or false when `tile` is not compiled for (precision, jerk).
bool shape_of(Precision p, bool jerk, int tile, Shape* shape) {
  const int base = base_tile(p);
  if (tile == base) return *shape = Shape::base, true;
  if (tile == 2 * base && !jerk) return *shape = Shape::wide, true;
  if (tile * 2 == base && p != Precision::double_) return *shape = Shape::narrow, true;
  return false;
}

template <bool kLo, int kI>
ForceFn pick_small(bool jerk, bool potential, bool guard) {
  if (jerk)
    return guard ? small_forces_kernel<kLo, true, true, true, kI>
                 : small_forces_kernel<kLo, true, true, false, kI>;
  if (potential)
    return guard ? small_forces_kernel<kLo, false, true, true, kI>
                 : small_forces_kernel<kLo, false, true, false, kI>;
  return guard ? small_forces_kernel<kLo, false, false, true, kI>
               : small_forces_kernel<kLo, false, false, false, kI>;
}

ForceFn pick_small(Precision precision, int k_i, bool jerk, bool potential, bool guard) {
  if (precision == Precision::mixed)
    return k_i == 2 ? pick_small<true, 2>(jerk, potential, guard)
                    : pick_small<true, 1>(jerk, potential, guard);
  return k_i == 2 ? pick_small<false, 2>(jerk, potential, guard)
                  : pick_small<false, 1>(jerk, potential, guard);
}

// The small path is considered up to this many targets and sources: at N = 8,192 it measured
// 4-5 % faster than the split path, at 16,384 and above 2-11 % slower (H200, docs/performance.md).
constexpr int kSmallMaxN = 8192;
// Mixed precision's limits (plan_forces): full GAJ evaluations and active subsets.
constexpr int kSmallMaxMixedJerkN = 4096;
constexpr int kSmallMaxMixedSubsetN = 2048;

// Register tiles of the Newton-3 path (targets per lane), the fastest measured (H200).
constexpr int kNewton3TileGA = 8;
constexpr int kNewton3TileGAJ = 4;

std::size_t acc_bytes(Precision p) {
  return p == Precision::single ? 4 : 8;
}

}  // namespace

std::size_t partial_bytes(Precision precision, const ForcePlan& plan, int n_i) {
  return std::size_t(kComponents) * acc_bytes(precision) * plan.splits * std::size_t(n_i);
}

// Mixed block steps take near/far source groups (the split path's GravityPolicy with kNearFar)
// from this many particles (docs/performance.md, "nbody mixed, session 26").
constexpr int kMixedSplitNearFarMinN = 262144;

bool near_far_groups(Precision precision, int n) {
  if (precision != Precision::mixed) return false;
  // PAIRWISE_CUDA_MIXED_NEARFAR=1 / 0: at any N / never, as for the Newton-3 tiles (read at each
  // call, as the tests set it).
  const char* env = std::getenv("PAIRWISE_CUDA_MIXED_NEARFAR");
  return env ? std::atoi(env) == 1 : n >= kMixedSplitNearFarMinN;
}

ForcePlan plan_forces(Precision precision, bool jerk, bool potential, int n_i, int n_j, int sms,
                      std::size_t max_partial_bytes, bool all_targets, bool near_far) {
  int variant = 0;
  if (const char* env = std::getenv("PAIRWISE_CUDA_VARIANT")) variant = std::atoi(env);
  if (precision != Precision::single || variant < 0 || variant >= kVariants) variant = 0;
  // The split path: the engine's planner (engine/all_pairs_plan.cpp) with gravity's costs. One
  // LDS.128 (two for GAJ) per source per tile of targets; per_pair counts it at kI = 4.
  engine::AllPairsCostModel model;
  model.per_pair = jerk ? 28.0 : 14.2;
  model.loads_per_source = jerk ? 2.0 : 1.0;
  model.components = jerk ? 7 : 4;
  model.partial_bytes_per_target = std::size_t(kComponents) * acc_bytes(precision);
  const long long n_tiles = (std::max(n_j, 1) + kThreads - 1) / kThreads;
  const double per_pair = model.per_pair;
  for (const Shape shape : {Shape::narrow, Shape::base, Shape::wide}) {
    if ((shape == Shape::wide && jerk) ||
        (shape == Shape::narrow && precision == Precision::double_))
      continue;
    const bool wide = shape == Shape::wide;
    engine::AllPairsShape candidate;
    candidate.tile = shape == Shape::narrow ? base_tile(precision) / 2
                     : wide                 ? 2 * base_tile(precision)
                                            : base_tile(precision);
    PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &candidate.blocks_per_sm,
        pick(precision, jerk, potential, false, shape, variant, near_far && !wide), kThreads, 0));
    // Single precision's wide tile measured 5-8 % slower than its base one at N = 262,144
    // (H200); in mixed precision the wide tile is the faster one.
    candidate.cost_factor = wide && precision == Precision::single ? 1.08 : 1.0;
    model.shapes.push_back(candidate);
  }
  double best_cost = 0;
  ForcePlan best = engine::plan_all_pairs(model, n_i, n_j, sms, max_partial_bytes, &best_cost);
  best.variant = variant;
  // The small-problem path (single precision): blocks of kSmallThreads threads (32 warps per SM),
  // kSmallTargets · kI targets per block (kI = 1 or 2), one LDS.128 (two for GAJ) per kI
  // interactions, no split reduction. The model above assumes full issue from 16 warps; with few
  // blocks per SM the split path measures up to ~2x its model (N = 4,096: 18 µs against 9.4),
  // while 32 warps per SM run close to theirs, hence kSplitLatency.
  // PAIRWISE_CUDA_SMALL=0 turns the path off, =1 / =2 forces it with kI = 1 / 2 (experiments).
  // Mixed precision (double-single displacements, double sums) takes it where it measured faster
  // than both the Newton-3 tiles and the split path (H200, docs/performance.md): full evaluations
  // up to N = 8,192 (GA) and 4,096 (GAJ, kI = 1: its kI = 2 tile spills the double sums), and
  // active subsets up to N = 2,048 sources (beyond, the split path's j-splits fill the GPU better).
  if (precision != Precision::double_) {
    const bool mixed = precision == Precision::mixed;
    int force = -1;
    if (const char* env = std::getenv("PAIRWISE_CUDA_SMALL")) force = std::atoi(env);
    const long long chunks = (std::max(n_j, 1) + 31) / 32;
    const double per_warp_chunks = std::ceil(double(chunks) / (kSmallThreads / 32));
    double small_cost = std::numeric_limits<double>::infinity();
    ForcePlan small;
    for (int k_i : {1, 2}) {
      if (mixed && jerk && k_i == 2 && force != 2) continue;
      const int targets = kSmallTargets * k_i;
      const long long blocks = (n_i + targets - 1) / targets;
      const double sm_blocks = std::ceil(double(blocks) / std::max(sms, 1));
      const double pair = per_pair + (jerk ? 2.0 : 1.0) * (1.0 / k_i - 0.25);
      const double cost =
          sm_blocks * (kSmallThreads / 32) * per_warp_chunks * (32.0 * k_i * pair + 40.0) / 4.0 +
          2500.0 * k_i;
      if (force == k_i || (force < 0 && cost < small_cost * 0.999))
        small_cost = cost,
        small = ForcePlan(engine::AllPairsPlan{1, 1, int(blocks), k_i, variant, true});
    }
    constexpr double kSplitLatency = 1.5;
    const bool full = all_targets && n_i == n_j;
    const bool take =
        mixed ? (full ? n_j <= (jerk ? kSmallMaxMixedJerkN : kSmallMaxN)
                      : n_j <= kSmallMaxMixedSubsetN)
              : n_i <= kSmallMaxN && n_j <= kSmallMaxN && small_cost < best_cost * kSplitLatency;
    if (force == 1 || force == 2 || (force < 0 && take)) best = small;
  }
  // The Newton-3 path (cuda_newton3.cu): single precision, full evaluations, by default wherever
  // the small-problem path is not taken (docs/performance.md: it beats the split path from
  // N = 8,192 up). PAIRWISE_CUDA_NEWTON3=0 turns it off, =1 forces it (any N);
  // PAIRWISE_CUDA_NEWTON3_TILE picks its register tile (GA 4 or 8, GAJ 2 or 4; experiments).
  // Mixed precision takes it too (double-single displacements, float sums folded into double
  // every 256 sources): PAIRWISE_CUDA_NEWTON3_MIXED=0 keeps mixed on the split path.
  bool mixed_newton3 = precision == Precision::mixed;
  if (const char* env = std::getenv("PAIRWISE_CUDA_NEWTON3_MIXED"))
    mixed_newton3 = mixed_newton3 && std::atoi(env) != 0;
  if ((precision == Precision::single || mixed_newton3) && all_targets && n_i == n_j && n_i > 0) {
    int mode = -1;
    if (const char* env = std::getenv("PAIRWISE_CUDA_NEWTON3")) mode = std::atoi(env);
    if (mode == 1 || (mode < 0 && !best.small)) {
      int k_i = jerk ? kNewton3TileGAJ : kNewton3TileGA;
      if (const char* env = std::getenv("PAIRWISE_CUDA_NEWTON3_TILE")) {
        const int t = std::atoi(env);
        if (jerk ? (t == 2 || t == 4) : (t == 4 || t == 8)) k_i = t;
      }
      best = ForcePlan(
          engine::AllPairsPlan{1, 1, newton3_blocks(precision, jerk, potential, k_i, n_i, sms), k_i,
                               variant},
          true);
    }
  }
  // Experiments: PAIRWISE_CUDA_PLAN="tile,q,splits" forces a plan (tile 4/8 etc. as compiled).
  if (const char* env = std::getenv("PAIRWISE_CUDA_PLAN")) {
    int tile = 0, q = 0, s = 0;
    Shape forced = Shape::base;
    if (std::sscanf(env, "%d,%d,%d", &tile, &q, &s) == 3 && s >= 1 && s <= n_tiles &&
        shape_of(precision, jerk, tile, &forced) && (q == 1 || q == 2 || q == 4 || q == 8)) {
      const int i_per_block = kThreads / q * tile;
      best = ForcePlan(
          engine::AllPairsPlan{q, s, (n_i + i_per_block - 1) / i_per_block, tile, variant});
    }
  }
  if (std::getenv("PAIRWISE_CUDA_PLAN_DEBUG"))
    std::fprintf(stderr,
                 "plan %s %s n_i=%d n_j=%d: tile %d q %d splits %d i_blocks %d variant %d%s\n",
                 precision == Precision::single  ? "single"
                 : precision == Precision::mixed ? "mixed"
                                                 : "double",
                 jerk        ? "GAJ"
                 : potential ? "GA"
                             : "GA-nopot",
                 n_i, n_j, best.i_per_thread, best.q, best.splits, best.i_blocks, best.variant,
                 best.small     ? " small"
                 : best.newton3 ? " newton3"
                                : "");
  return best;
}

void launch_forces(const ForceArgs& args) {
  if (args.plan.newton3) return launch_newton3(args);
  if (args.plan.small && args.precision != Precision::double_) {
    const ForceFn fn = pick_small(args.precision, args.plan.i_per_thread, args.jerk, args.potential,
                                  args.guard_zero);
    // PAIRWISE_CUDA_SMALL_FOLD (experiments), read once: block steps launch this every step.
    static const int fold_chunks = [] {
      const char* env = std::getenv("PAIRWISE_CUDA_SMALL_FOLD");
      return env ? std::atoi(env) : ForceArgs{}.small_fold_chunks;
    }();
    ForceArgs small_args = args;
    small_args.small_fold_chunks = fold_chunks;
    fn<<<unsigned(args.plan.i_blocks), kSmallThreads, 0, static_cast<cudaStream_t>(args.stream)>>>(
        small_args);
    PW_CUDA_LAUNCH(args.jerk ? "gravity small_forces_kernel (GAJ)"
                             : "gravity small_forces_kernel (GA)");
    return;
  }
  Shape shape = Shape::base;
  shape_of(args.precision, args.jerk, args.plan.i_per_thread, &shape);
  ForceArgs a = args;
  if (a.boxes) a.kappa = mixed_near_far_kappa();
  const ForceFn fn = pick(a.precision, a.jerk, a.potential, a.guard_zero, shape, a.plan.variant,
                          a.boxes != nullptr);
  const dim3 grid(unsigned(args.plan.i_blocks) * unsigned(args.plan.splits));
  fn<<<grid, kThreads, 0, static_cast<cudaStream_t>(args.stream)>>>(a);
  PW_CUDA_LAUNCH(args.jerk ? "gravity forces_kernel (GAJ)" : "gravity forces_kernel (GA)");
}

void launch_build_j(const BuildArgs& args) {
  const dim3 grid(unsigned((args.n + 255) / 256));
  const auto stream = static_cast<cudaStream_t>(args.stream);
  switch (args.precision) {
    case Precision::single:
      build_j_kernel<Precision::single><<<grid, 256, 0, stream>>>(args);
      break;
    case Precision::mixed:
      build_j_kernel<Precision::mixed><<<grid, 256, 0, stream>>>(args);
      break;
    case Precision::double_:
      build_j_kernel<Precision::double_><<<grid, 256, 0, stream>>>(args);
      break;
  }
  PW_CUDA_LAUNCH(args.predict ? "gravity build_j_kernel (predict)" : "gravity build_j_kernel");
}

namespace {
__global__ void gather_active_kernel(const ForceArgs a, const double* full) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.n_i) return;
  const int i = a.i_index[k];
  for (int c = 0; c < 7; ++c) a.out[std::size_t(c) * a.n_i + k] = full[std::size_t(c) * a.n_j + i];
  if (a.predict) write_predicted(a, k);
}
}  // namespace

void launch_gather_active(const ForceArgs& args, const double* full) {
  if (args.n_i <= 0) return;
  gather_active_kernel<<<unsigned((args.n_i + 127) / 128), 128, 0,
                         static_cast<cudaStream_t>(args.stream)>>>(args, full);
  PW_CUDA_LAUNCH("gravity gather_active_kernel");
}

void launch_commit(const MasterState& state, const double* packed, const int* active, int n,
                   void* stream) {
  if (n <= 0) return;
  commit_kernel<<<(n + 127) / 128, 128, 0, static_cast<cudaStream_t>(stream)>>>(state, packed,
                                                                                active, n);
  PW_CUDA_LAUNCH("gravity commit_kernel");
}

}  // namespace pairwise::nbody::cuda
