// CUDA kernels of direct N-body gravity (see cuda_gravity.cuh for layouts and the plan).
//
// forces_kernel: each block owns i_per_block = (kThreads / q) * kI targets held in registers
// (kI per thread, fully unrolled) and walks j-tiles of kThreads sources staged in shared memory;
// every source read is a warp-wide broadcast LDS (float4), amortized over kI targets. The pair
// arithmetic is physics::accumulate_accel / accumulate_accel_jerk, unchanged.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/cuda_check.cuh"
#include "nbody/cuda_gravity.cuh"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody::cuda {
namespace {

struct alignas(32) D4 {
  double x, y, z, w;
};

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

// A source far away with zero mass: pads the last tile, contributes exactly zero (m = 0) with a
// finite 1/s (s ~ 1e18, so s² stays inside FP32 range).
constexpr float kFar = 1e18f;

template <class A>
__device__ __forceinline__ auto component(const A& acc, int c) {
  if constexpr (sizeof(A) / sizeof(acc.ax) == 7) {
    switch (c) {
      case kAx:
        return acc.ax;
      case kAy:
        return acc.ay;
      case kAz:
        return acc.az;
      case kPot:
        return acc.pot;
      case kJx:
        return acc.jx;
      case kJy:
        return acc.jy;
      default:
        return acc.jz;
    }
  } else {
    switch (c) {
      case kAx:
        return acc.ax;
      case kAy:
        return acc.ay;
      case kAz:
        return acc.az;
      default:
        return acc.pot;
    }
  }
}

template <Precision P, bool kJerk, bool kPot, bool kGuard, int kI>
__global__ void __launch_bounds__(kThreads) forces_kernel(const ForceArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using Acc = typename T::Acc;
  using JP = typename T::JP;
  using JV = JP;
  constexpr int kComp = kJerk ? 7 : 4;
  using Sum = std::conditional_t<kJerk, physics::AccelJerk<F>, physics::Accel<F>>;

  __shared__ JP s_pos[kThreads];
  __shared__ float4 s_lo[T::kLo ? kThreads : 1];
  __shared__ JV s_vel[kJerk ? kThreads : 1];
  __shared__ Acc s_red[kThreads * kI];

  const int q = a.plan.q;
  const int group_size = kThreads / q;  // >= 32: a warp lies inside one group
  const int g = threadIdx.x / group_size;
  const int lane = threadIdx.x - g * group_size;
  const int i_block = blockIdx.x % a.plan.i_blocks;  // neighbouring blocks share the j-range (L2)
  const int split = blockIdx.x / a.plan.i_blocks;
  const int i_base = i_block * group_size * kI + lane;

  const JP* __restrict__ jpos = static_cast<const JP*>(a.jpos);
  const float4* __restrict__ jlo = static_cast<const float4*>(a.jlo);
  const JV* __restrict__ jvel = static_cast<const JV*>(a.jvel);

  // Targets in registers: position (and low part, velocity).
  F xi[kI], yi[kI], zi[kI], vxi[kI], vyi[kI], vzi[kI];
  float xl[kI], yl[kI], zl[kI];
#pragma unroll
  for (int k = 0; k < kI; ++k) {
    const int i = min(i_base + k * group_size, a.n_i - 1);
    const int idx = a.i_index ? a.i_index[i] : i;
    const JP p = jpos[idx];
    xi[k] = p.x, yi[k] = p.y, zi[k] = p.z;
    if constexpr (T::kLo) {
      const float4 l = jlo[idx];
      xl[k] = l.x, yl[k] = l.y, zl[k] = l.z;
    }
    if constexpr (kJerk) {
      const JV v = jvel[idx];
      vxi[k] = v.x, vyi[k] = v.y, vzi[k] = v.z;
    }
  }

  Sum sum[kI];
  Acc total[T::kLo ? kI : 1][kComp];  // mixed: double accumulators
  if constexpr (T::kLo) {
#pragma unroll
    for (int k = 0; k < kI; ++k)
#pragma unroll
      for (int c = 0; c < kComp; ++c) total[k][c] = 0;
  }
  const F eps2 = F(a.eps2);

  const long long n_tiles = (a.n_j + kThreads - 1) / kThreads;
  const int t0 = int(split * n_tiles / a.plan.splits);
  const int t1 = int((split + 1) * n_tiles / a.plan.splits);
  const int j_begin = g * group_size, j_end = j_begin + group_size;

  for (int tile = t0; tile < t1; ++tile) {
    const int j = tile * kThreads + threadIdx.x;
    if (j < a.n_j) {
      s_pos[threadIdx.x] = jpos[j];
      if constexpr (T::kLo) s_lo[threadIdx.x] = jlo[j];
      if constexpr (kJerk) s_vel[threadIdx.x] = jvel[j];
    } else {
      JP far;
      far.x = F(kFar), far.y = F(kFar), far.z = F(kFar), far.w = F(0);
      s_pos[threadIdx.x] = far;
      if constexpr (T::kLo) s_lo[threadIdx.x] = make_float4(0.f, 0.f, 0.f, 0.f);
      if constexpr (kJerk) {
        JV zero;
        zero.x = zero.y = zero.z = zero.w = F(0);
        s_vel[threadIdx.x] = zero;
      }
    }
    __syncthreads();
    // Chunks of kUnroll sources, fully unrolled: kUnroll LDS.128 broadcasts and one loop test per
    // kUnroll·kI interactions (group_size is a multiple of 32).
    constexpr int kUnroll = 8;
    for (int jc = j_begin; jc < j_end; jc += kUnroll) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int jj = jc + u;
        const JP p = s_pos[jj];
        float4 l;
        JV v;
        if constexpr (T::kLo) l = s_lo[jj];
        if constexpr (kJerk) v = s_vel[jj];
#pragma unroll
        for (int k = 0; k < kI; ++k) {
          F dx = p.x - xi[k], dy = p.y - yi[k], dz = p.z - zi[k];
          if constexpr (T::kLo) {
            // double-single difference: the hi difference is exact for nearby particles
            dx += l.x - xl[k], dy += l.y - yl[k], dz += l.z - zl[k];
          }
          if constexpr (kJerk) {
            physics::accumulate_accel_jerk<kGuard>(dx, dy, dz, v.x - vxi[k], v.y - vyi[k],
                                                   v.z - vzi[k], p.w, eps2, sum[k]);
          } else {
            physics::accumulate_accel<kPot, kGuard>(dx, dy, dz, p.w, eps2, sum[k]);
          }
        }
      }
    }
    if constexpr (T::kLo) {  // fold this tile's float sums into double
#pragma unroll
      for (int k = 0; k < kI; ++k) {
#pragma unroll
        for (int c = 0; c < kComp; ++c) total[k][c] += double(component(sum[k], c));
        sum[k] = Sum{};
      }
    }
    __syncthreads();
  }

  // Partial sums of this (i-block, split): in-block groups reduced in order g = 0..q-1.
  Acc* __restrict__ partial = static_cast<Acc*>(a.partial);
#pragma unroll
  for (int c = 0; c < kComp; ++c) {
    Acc value[kI];
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      if constexpr (T::kLo) {
        value[k] = total[k][c];
      } else {
        value[k] = component(sum[k], c);
      }
    }
    if (q > 1) {
#pragma unroll
      for (int k = 0; k < kI; ++k) s_red[k * kThreads + threadIdx.x] = value[k];
      __syncthreads();
      if (g == 0) {
#pragma unroll
        for (int k = 0; k < kI; ++k) {
          Acc s = value[k];
          for (int gg = 1; gg < q; ++gg) s += s_red[k * kThreads + gg * group_size + lane];
          value[k] = s;
        }
      }
      __syncthreads();
    }
    if (g == 0) {
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        const int i = i_base + k * group_size;
        if (i < a.n_i) partial[(std::size_t(c) * a.plan.splits + split) * a.n_i + i] = value[k];
      }
    }
  }
}

template <Precision P>
__global__ void finalize_kernel(const FinalizeArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using Acc = typename T::Acc;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.n_i) return;
  const int i = a.i_index ? a.i_index[k] : k;
  const Acc* partial = static_cast<const Acc*>(a.partial);
  const int n_comp = a.jerk ? 7 : 4;
  for (int c = 0; c < n_comp; ++c) {
    double s = 0;  // fixed order over the splits: deterministic
    for (int sp = 0; sp < a.splits; ++sp)
      s += double(partial[(std::size_t(c) * a.splits + sp) * a.n_i + k]);
    if (c == kPot) s -= double(physics::self_potential(F(a.state.p[kM][i]), F(a.eps2)));
    a.out[std::size_t(c) * a.n_i + k] = s;
  }
  if (a.predict) {
    const double dt = a.t - a.state.p[kT][i];
    for (int d = 0; d < 3; ++d) {
      double xp, vp;
      physics::predict(dt, a.state.p[kX + d][i], a.state.p[kVx + d][i], a.state.p[kAx_ + d][i],
                       a.state.p[kJx_ + d][i], xp, vp);
      a.out[std::size_t(7 + d) * a.n_i + k] = xp;
      a.out[std::size_t(10 + d) * a.n_i + k] = vp;
    }
  }
}

template <Precision P>
__global__ void build_j_kernel(const BuildArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using JP = typename T::JP;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  double x[3], v[3];
  for (int d = 0; d < 3; ++d) {
    x[d] = a.state.p[kX + d][i];
    v[d] = a.state.p[kVx + d][i];
  }
  if (a.predict) {
    const double dt = a.t - a.state.p[kT][i];
    for (int d = 0; d < 3; ++d)
      physics::predict(dt, x[d], v[d], a.state.p[kAx_ + d][i], a.state.p[kJx_ + d][i], x[d], v[d]);
  }
  JP p, vel;
  p.x = F(x[0]), p.y = F(x[1]), p.z = F(x[2]), p.w = F(a.state.p[kM][i]);
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

using ForceFn = void (*)(ForceArgs);

// GA may use twice the base register tile (kI): fewer shared-memory loads and loop instructions
// per interaction for large N; GAJ keeps the base tile (register pressure).
template <Precision P, int kI>
ForceFn pick_tile(bool jerk, bool potential, bool guard) {
  if (jerk) {
    constexpr int kJ = Traits<P>::kI;
    return guard ? forces_kernel<P, true, true, true, kJ> : forces_kernel<P, true, true, false, kJ>;
  }
  if (potential)
    return guard ? forces_kernel<P, false, true, true, kI>
                 : forces_kernel<P, false, true, false, kI>;
  return guard ? forces_kernel<P, false, false, true, kI>
               : forces_kernel<P, false, false, false, kI>;
}

template <Precision P>
ForceFn pick(bool jerk, bool potential, bool guard, bool wide) {
  return wide ? pick_tile<P, 2 * Traits<P>::kI>(jerk, potential, guard)
              : pick_tile<P, Traits<P>::kI>(jerk, potential, guard);
}

ForceFn pick(Precision p, bool jerk, bool potential, bool guard, bool wide) {
  switch (p) {
    case Precision::single:
      return pick<Precision::single>(jerk, potential, guard, wide);
    case Precision::mixed:
      return pick<Precision::mixed>(jerk, potential, guard, wide);
    case Precision::double_:
      break;
  }
  return pick<Precision::double_>(jerk, potential, guard, wide);
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

std::size_t acc_bytes(Precision p) {
  return p == Precision::single ? 4 : 8;
}

constexpr int kFinalizeThreads = 128;

}  // namespace

std::size_t partial_bytes(Precision precision, const ForcePlan& plan, int n_i) {
  return std::size_t(kComponents) * plan.splits * std::size_t(n_i) * acc_bytes(precision);
}

ForcePlan plan_forces(Precision precision, bool jerk, bool potential, int n_i, int n_j, int sms,
                      std::size_t max_partial_bytes) {
  ForcePlan best;
  // Cost model in units of one interaction on one thread: a block runs ceil(tiles/S) tiles of
  // (kThreads/q)·kI interactions per thread plus ~64 per tile (load, barriers) and a fixed
  // ~200 + 40·q·components (start, in-block reduction, partial writes); blocks run in waves of
  // `capacity` resident blocks. The finalize pass reads S·n_i·components partials.
  double best_cost = std::numeric_limits<double>::infinity();
  const long long n_tiles = (std::max(n_j, 1) + kThreads - 1) / kThreads;
  const int n_comp = jerk ? 7 : 4;
  for (const bool wide : {false, true}) {
    if (wide && jerk) continue;
    const int tile = base_tile(precision) * (wide ? 2 : 1);
    int per_sm = 1;
    PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, pick(precision, jerk, potential, false, wide), kThreads, 0));
    per_sm = std::max(per_sm, 1);
    const double capacity = double(per_sm) * std::max(sms, 1);
    // Throughput per resident block falls with fewer warps per SM (latency of the pair chain).
    const double slowdown = per_sm * kThreads >= 512 ? 1.0 : 1.15;
    for (int q : {1, 2, 4, 8}) {
      const int i_per_block = kThreads / q * tile;
      const long long i_blocks = (n_i + i_per_block - 1) / i_per_block;
      for (long long s = 1; s <= n_tiles; ++s) {
        const ForcePlan trial{q, int(s), int(i_blocks), tile};
        if (s > 1 && partial_bytes(precision, trial, n_i) > max_partial_bytes) break;
        const double blocks = double(i_blocks * s);
        const double waves = std::ceil(blocks / capacity);
        const double tiles = std::ceil(double(n_tiles) / double(s));
        const double per_block =
            tiles * (double(kThreads / q) * tile * (jerk ? 2.0 : 1.0) * slowdown + 64.0 +
                     (tile < 8 ? 16.0 * kThreads / q : 0.0)) +
            200.0 + 40.0 * q * n_comp;
        const double reduce = double(s) * n_i * n_comp * 0.25 / (capacity * kThreads) * per_sm;
        const double cost = waves * per_block + reduce;
        if (cost < best_cost * 0.999) best_cost = cost, best = trial;
      }
    }
  }
  // Experiments: PAIRWISE_CUDA_PLAN="tile,q,splits" forces a plan (tile 4/8 etc. as compiled).
  if (const char* env = std::getenv("PAIRWISE_CUDA_PLAN")) {
    int tile = 0, q = 0, s = 0;
    if (std::sscanf(env, "%d,%d,%d", &tile, &q, &s) == 3 && s >= 1 && s <= n_tiles &&
        (tile == base_tile(precision) || (!jerk && tile == 2 * base_tile(precision))) &&
        (q == 1 || q == 2 || q == 4 || q == 8)) {
      const int i_per_block = kThreads / q * tile;
      best = ForcePlan{q, s, (n_i + i_per_block - 1) / i_per_block, tile};
    }
  }
  if (std::getenv("PAIRWISE_CUDA_PLAN_DEBUG"))
    std::fprintf(stderr, "plan %s %s n_i=%d n_j=%d: tile %d q %d splits %d i_blocks %d\n",
                 precision == Precision::single  ? "single"
                 : precision == Precision::mixed ? "mixed"
                                                 : "double",
                 jerk        ? "GAJ"
                 : potential ? "GA"
                             : "GA-nopot",
                 n_i, n_j, best.i_per_thread, best.q, best.splits, best.i_blocks);
  return best;
}

void launch_forces(const ForceArgs& args) {
  const ForceFn fn = pick(args.precision, args.jerk, args.potential, args.guard_zero,
                          args.plan.i_per_thread != base_tile(args.precision));
  const dim3 grid(unsigned(args.plan.i_blocks) * unsigned(args.plan.splits));
  fn<<<grid, kThreads, 0, static_cast<cudaStream_t>(args.stream)>>>(args);
  PW_CUDA_LAUNCH(args.jerk ? "gravity forces_kernel (GAJ)" : "gravity forces_kernel (GA)");
}

void launch_finalize(const FinalizeArgs& args) {
  const dim3 grid(unsigned((args.n_i + kFinalizeThreads - 1) / kFinalizeThreads));
  const auto stream = static_cast<cudaStream_t>(args.stream);
  switch (args.precision) {
    case Precision::single:
      finalize_kernel<Precision::single><<<grid, kFinalizeThreads, 0, stream>>>(args);
      break;
    case Precision::mixed:
      finalize_kernel<Precision::mixed><<<grid, kFinalizeThreads, 0, stream>>>(args);
      break;
    case Precision::double_:
      finalize_kernel<Precision::double_><<<grid, kFinalizeThreads, 0, stream>>>(args);
      break;
  }
  PW_CUDA_LAUNCH("gravity finalize_kernel");
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

void launch_commit(const MasterState& state, const double* packed, const int* active, int n,
                   void* stream) {
  if (n <= 0) return;
  commit_kernel<<<(n + 127) / 128, 128, 0, static_cast<cudaStream_t>(stream)>>>(state, packed,
                                                                                active, n);
  PW_CUDA_LAUNCH("gravity commit_kernel");
}

}  // namespace pairwise::nbody::cuda
