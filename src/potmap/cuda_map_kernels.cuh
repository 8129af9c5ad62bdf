// The summation kernels of the cuda potential maps (cuda_map.cu explains the decomposition), in a
// header of their own so that NVRTC compiles the same kernels with φ(r) generated from a formula
// (custom φ, issue 13: cuda_custom_phi.cpp). Embedded as text for NVRTC
// (engine/formula/embed_cuda_headers.cmake); under NVRTC <utility> is the small stand-in of
// cuda_custom_phi.cpp.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>
#include <utility>

#include "pairwise/physics/coulomb_potential.hpp"

namespace pairwise::potmap::device {

constexpr int kR = 8;              // region edge in points (x and y: threads; z: points a thread)
constexpr int kP = kR;             // points per thread along z
constexpr int kThreads = kR * kR;  // threads per block
constexpr int kMaxNeighbors = 2048;

__constant__ int4 c_neighbors[kMaxNeighbors];  // (dcx, dcy, dcz_lo, dcz_hi) from a region's cell

enum Mode { kPlain = 0, kWide = 1, kKahan = 2 };

// Four doubles in one 32-byte load (CUDA 13 deprecates double4 for double4_16a/_32a).
struct alignas(32) D4 {
  double x, y, z, w;
};

template <class T>
struct Vec4;
template <>
struct Vec4<float> {
  using type = float4;
};
template <>
struct Vec4<double> {
  using type = D4;
};
template <class T>
using vec4_t = typename Vec4<T>::type;

struct CellGrid {
  int ncx = 0, ncy = 0, ncz = 0;
  int offx = 0, offy = 0, offz = 0;  // cell index of the lattice origin
  int m = 1, mz = 1;                 // cells per region edge (xy, z)
  double c = 0, cz = 0;              // cell edges (Å)
  __host__ __device__ long long cells() const { return (long long)ncx * ncy * ncz; }
};

struct Slab {
  int nx = 0, ny = 0, nz = 0;  // the whole lattice
  int i0 = 0, planes = 0;      // this slab: planes [i0, i0 + planes)
};

// Accumulators of P points in mode M.
template <class T, int M, int P = kP>
struct Acc {
  T s[P];
  T c[M == kKahan ? P : 1];
  double w[M == kWide ? P : 1];
  __device__ void zero() {
#pragma unroll
    for (int k = 0; k < P; ++k) {
      s[k] = 0;
      if constexpr (M == kKahan) c[k] = 0;
      if constexpr (M == kWide) w[k] = 0;
    }
  }
  // s[k] += w · rinv (one FFMA in plain mode).
  __device__ void fma(int k, T w, T rinv) {
    if constexpr (M == kKahan) {
      add(k, w * rinv);
    } else {
      s[k] = fmadd(w, rinv, s[k]);
    }
  }
  __device__ void add(int k, T v) {
    if constexpr (M == kKahan) {
      const T y = v - c[k];
      const T t = s[k] + y;
      c[k] = (t - s[k]) - y;
      s[k] = t;
    } else {
      s[k] += v;
    }
  }
  // Mixed: FP32 partial sums of a few atoms go to FP64 sums.
  __device__ void flush() {
    if constexpr (M == kWide) {
#pragma unroll
      for (int k = 0; k < P; ++k) {
        w[k] += double(s[k]);
        s[k] = 0;
      }
    }
  }
  __device__ double value(int k) const {
    if constexpr (M == kWide) return w[k] + double(s[k]);
    return double(s[k]);
  }
};

__device__ __forceinline__ float mul_ru(float a, float b) {
  return __fmul_ru(a, b);
}
__device__ __forceinline__ double mul_ru(double a, double b) {
  return __dmul_ru(a, b);
}

// Cutoff summation: the atom carries σ = ±sqrt|q| (physics::scaled_switch_square): per point
// dz, r², t_σ, max, t_σ², ±t_σ²/r accumulated (6 FP32 + 1 rsqrt). The sign of q is the same for
// every thread (all read the same atom), so the branch on it does not diverge; the r = 0 guard is
// needed only when the atom lies on the thread's column (dxy2 = 0), a branch that almost never
// diverges either.
template <bool kNegative, bool kGuard, class T, int M>
__device__ __forceinline__ void cutoff_points(Acc<T, M>& acc, T dxy2, T dz0, T h, T sigma,
                                              T sigma_inv) {
#pragma unroll
  for (int k = 0; k < kP; ++k) {
    const T dz = fmadd(T(-k), h, dz0);
    const T r2 = fmadd(dz, dz, dxy2);
    const T w = physics::scaled_switch_square(r2, sigma, sigma_inv);
    const T rinv = kGuard ? physics::guarded_rinv(r2) : pairwise::rsqrt(r2);
    acc.fma(k, kNegative ? -w : w, rinv);
  }
}

template <class T, int M>
__device__ __forceinline__ void add_atom_cutoff(Acc<T, M>& acc, const vec4_t<T>& a, T px, T py,
                                                T pz0, T h, T inv_rc2) {
  const T dx = a.x - px, dy = a.y - py;
  const T dxy2 = fmadd(dx, dx, dy * dy);
  const T dz0 = a.z - pz0;
  const T sigma = a.w < T(0) ? -a.w : a.w;
  const T sigma_inv = mul_ru(sigma, inv_rc2);
  if (dxy2 > T(0)) {
    if (a.w < T(0)) {
      cutoff_points<true, false>(acc, dxy2, dz0, h, sigma, sigma_inv);
    } else {
      cutoff_points<false, false>(acc, dxy2, dz0, h, sigma, sigma_inv);
    }
  } else {
    if (a.w < T(0)) {
      cutoff_points<true, true>(acc, dxy2, dz0, h, sigma, sigma_inv);
    } else {
      cutoff_points<false, true>(acc, dxy2, dz0, h, sigma, sigma_inv);
    }
  }
}

template <class T, class Out, int M, int P>
__device__ void store(const Acc<T, M, P>& acc, Out* out, const Slab& s, int i, int j, int k0) {
  if (i >= s.i0 + s.planes || i >= s.nx || j >= s.ny) return;
  Out* row = out + ((long long)(i - s.i0) * s.ny + j) * s.nz;
#pragma unroll
  for (int k = 0; k < P; ++k) {
    if (k0 + k < s.nz) row[k0 + k] = Out(acc.value(k));
  }
}

// Direct summation. A block's 64 threads own 8 x 8 columns of kDirectP points along z; all of them
// share the z-range, so dz² of an atom at the block's kDirectP points is the same for every
// thread: the block stages a tile of kThreads atoms in shared memory, each thread one atom's
// (x, y, q) and its kDirectP values dz_k², and then every thread reads them back with broadcast
// vector loads (LDS.128). Per point: r² = dxy² + dz_k² (1 FADD), 1/r, s += q/r (1 FFMA); per atom
// and thread: 1 + kDirectP/4 loads, dx, dy, dxy², the r = 0 test (a branch that diverges only
// when the atom lies on a thread's column: the guarded loop then gives 0 at r = 0).
//
// The reciprocal square roots: kSoft of every kDirectP points (spread evenly) use
// physics::rsqrt_fma on the FMA and integer pipes (9 issue slots, as accurate as MUFU), the rest
// MUFU.RSQ (1 issue slot, 1/8 of a warp an SM sub-partition clock): with only MUFU the kernel is
// bound by the MUFU pipe at 16 evaluations a clock per SM with issue slots to spare; moving a
// quarter of the evaluations to the FMA pipe balances the two (docs/potmap.md, Performance).
constexpr int kDirectP = 16;

template <class T, int M>
constexpr int direct_soft() {  // FP32 plain and mixed sums only: Kahan leaves few issue slots
  return std::is_same_v<T, float> && M != kKahan ? 4 : 0;
}

template <int kSoft, int k>
constexpr bool soft_point() {  // kSoft of the kDirectP points, evenly spread
  return ((k + 1) * kSoft) / kDirectP != (k * kSoft) / kDirectP;
}

template <class T, int M, int kSoft, int k>
__device__ __forceinline__ void direct_point(Acc<T, M, kDirectP>& acc, T q, T r2) {
  if constexpr (std::is_same_v<T, float> && soft_point<kSoft, k>()) {
    acc.fma(k, q, physics::rsqrt_fma(r2));
  } else {
    acc.fma(k, q, pairwise::rsqrt(r2));
  }
}

template <class T, int M, int kSoft, int... k>
__device__ __forceinline__ void direct_points(Acc<T, M, kDirectP>& acc, T q, T dxy2,
                                              const T (&dz2)[kDirectP],
                                              std::integer_sequence<int, k...>) {
  (direct_point<T, M, kSoft, k>(acc, q, dxy2 + dz2[k]), ...);
}

// Phi: CoulombPhi (the built-in 1/r, above) or a functor generated from a formula (custom φ,
// potmap/cuda_custom_phi.cpp): `static constexpr bool kBuiltin = false;` and
// `static __device__ T eval(T r2)` = φ(r); r = 0 gives 0 (the select below, whatever φ(0) is).
struct CoulombPhi {
  static constexpr bool kBuiltin = true;
};

// A formula's φ at one point; in FP32 the kSoft points take eval_soft (its rsqrts on the FMA
// pipe), as direct_point does for 1/r.
template <class Phi, class T, int M, int kSoft, int k>
__device__ __forceinline__ void phi_point(Acc<T, M, kDirectP>& acc, T q, T r2) {
  if constexpr (std::is_same_v<T, float> && soft_point<kSoft, k>()) {
    acc.fma(k, q, Phi::eval_soft(r2));
  } else {
    acc.fma(k, q, Phi::eval(r2));
  }
}

template <class Phi, class T, int M, int kSoft, int... k>
__device__ __forceinline__ void phi_points(Acc<T, M, kDirectP>& acc, T q, T dxy2,
                                           const T (&dz2)[kDirectP],
                                           std::integer_sequence<int, k...>) {
  (phi_point<Phi, T, M, kSoft, k>(acc, q, dxy2 + dz2[k]), ...);
}

template <class T, class Out, int M, class Phi = CoulombPhi, int kSoft = direct_soft<T, M>()>
__global__ void __launch_bounds__(kThreads)
    direct_regions(const vec4_t<T>* __restrict__ atoms, int n, Slab s, T h, Out* out) {
  __shared__ vec4_t<T> s_xyq[kThreads];                // x, y, q, 0
  __shared__ vec4_t<T> s_dz2[kThreads][kDirectP / 4];  // dz_k², k = 0 .. kDirectP - 1
  const int tx = threadIdx.x % kR, ty = threadIdx.x / kR;
  const int i = s.i0 + blockIdx.x * kR + tx, j = blockIdx.y * kR + ty, k0 = blockIdx.z * kDirectP;
  const T px = T(i) * h, py = T(j) * h, pz0 = T(k0) * h;
  Acc<T, M, kDirectP> acc;
  acc.zero();
  for (int a0 = 0; a0 < n; a0 += kThreads) {  // mixed: FP32 partial sums of 64 atoms
    const int tile = min(n - a0, kThreads);
    __syncthreads();
    if (int(threadIdx.x) < tile) {
      const vec4_t<T> a = atoms[a0 + threadIdx.x];
      vec4_t<T> xyq;
      xyq.x = a.x, xyq.y = a.y, xyq.z = a.w, xyq.w = 0;
      s_xyq[threadIdx.x] = xyq;
      const T dz0 = a.z - pz0;
#pragma unroll
      for (int v = 0; v < kDirectP / 4; ++v) {
        T d[4];
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const T dz = fmadd(T(-(4 * v + c)), h, dz0);
          d[c] = dz * dz;
        }
        vec4_t<T> d4;
        d4.x = d[0], d4.y = d[1], d4.z = d[2], d4.w = d[3];
        s_dz2[threadIdx.x][v] = d4;
      }
    }
    __syncthreads();
#pragma unroll 2
    for (int b = 0; b < tile; ++b) {
      const vec4_t<T> a = s_xyq[b];
      const T dx = a.x - px, dy = a.y - py;
      const T dxy2 = fmadd(dx, dx, dy * dy);
      T dz2[kDirectP];
#pragma unroll
      for (int v = 0; v < kDirectP / 4; ++v) {
        const vec4_t<T> d = s_dz2[b][v];
        dz2[4 * v] = d.x, dz2[4 * v + 1] = d.y, dz2[4 * v + 2] = d.z, dz2[4 * v + 3] = d.w;
      }
      if constexpr (Phi::kBuiltin) {
        if (dxy2 > T(0)) {
          direct_points<T, M, kSoft>(acc, a.z, dxy2, dz2,
                                     std::make_integer_sequence<int, kDirectP>{});
        } else {
#pragma unroll
          for (int k = 0; k < kDirectP; ++k) acc.fma(k, a.z, physics::guarded_rinv(dxy2 + dz2[k]));
        }
      } else {
        if (dxy2 > T(0)) {
          phi_points<Phi, T, M, kSoft>(acc, a.z, dxy2, dz2,
                                       std::make_integer_sequence<int, kDirectP>{});
        } else {
#pragma unroll
          for (int k = 0; k < kDirectP; ++k) {
            const T r2 = dxy2 + dz2[k];
            const T v = Phi::eval(r2);
            acc.fma(k, a.z, r2 > T(0) ? v : T(0));
          }
        }
      }
    }
    acc.flush();
  }
  store(acc, out, s, i, j, k0);
}

// A custom φ with a cutoff: plain truncation (the cpu backend's custom map), a.w = q. As in
// cutoff_points, the r = 0 guard only where the atom lies on the thread's column (dxy2 = 0).
template <class Phi, bool kGuard, class T, int M>
__device__ __forceinline__ void phi_cutoff_points(Acc<T, M>& acc, T q, T dxy2, T dz0, T h, T rc2) {
#pragma unroll
  for (int k = 0; k < kP; ++k) {
    const T dz = fmadd(T(-k), h, dz0);
    const T r2 = fmadd(dz, dz, dxy2);
    const T v = Phi::eval(r2);
    acc.fma(k, q, r2 < rc2 && (!kGuard || r2 > T(0)) ? v : T(0));
  }
}

template <class Phi, class T, int M>
__device__ __forceinline__ void add_atom_phi_cutoff(Acc<T, M>& acc, const vec4_t<T>& a, T px, T py,
                                                    T pz0, T h, T rc2) {
  const T dx = a.x - px, dy = a.y - py;
  const T dxy2 = fmadd(dx, dx, dy * dy);
  if (dxy2 > T(0)) {
    phi_cutoff_points<Phi, false>(acc, a.w, dxy2, a.z - pz0, h, rc2);
  } else {
    phi_cutoff_points<Phi, true>(acc, a.w, dxy2, a.z - pz0, h, rc2);
  }
}

// The neighborhood comes from constant memory (c_neighbors, the built-in) or, for kernels
// compiled by NVRTC (another module: no access to this one's constant bank), from `neighbors`.
template <class T, class Out, int M, class Phi = CoulombPhi>
__global__ void __launch_bounds__(kThreads)
    cutoff_regions(const vec4_t<T>* __restrict__ atoms, const int* __restrict__ cell_start,
                   CellGrid g, int n_neighbors, const int4* __restrict__ neighbors, Slab s, T h,
                   physics::SwitchParams<T> sw, Out* out) {
  const int tx = threadIdx.x % kR, ty = threadIdx.x / kR;
  const int rx = s.i0 / kR + blockIdx.x;  // the region's index in the whole lattice
  const int i = rx * kR + tx, j = blockIdx.y * kR + ty, k0 = blockIdx.z * kP;
  const T px = T(i) * h, py = T(j) * h, pz0 = T(k0) * h;
  const int bcx = rx * g.m + g.offx, bcy = blockIdx.y * g.m + g.offy,
            bcz = blockIdx.z * g.mz + g.offz;
  Acc<T, M> acc;
  acc.zero();
  for (int c = 0; c < n_neighbors; ++c) {
    int4 nb;
    if constexpr (Phi::kBuiltin) {
      nb = c_neighbors[c];
    } else {
      nb = __ldg(neighbors + c);
    }
    const int cx = bcx + nb.x, cy = bcy + nb.y;
    if (cx < 0 || cx >= g.ncx || cy < 0 || cy >= g.ncy) continue;
    const int z_lo = max(bcz + nb.z, 0), z_hi = min(bcz + nb.w, g.ncz - 1);
    if (z_lo > z_hi) continue;
    const int column = (cx * g.ncy + cy) * g.ncz;
    const int a0 = __ldg(cell_start + column + z_lo), a1 = __ldg(cell_start + column + z_hi + 1);
    if constexpr (Phi::kBuiltin) {
      for (int a = a0; a < a1; ++a) add_atom_cutoff(acc, atoms[a], px, py, pz0, h, sw.inv_rc2);
    } else {
      for (int a = a0; a < a1; ++a) add_atom_phi_cutoff<Phi>(acc, atoms[a], px, py, pz0, h, sw.rc2);
    }
    acc.flush();
  }
  store(acc, out, s, i, j, k0);
}

}  // namespace pairwise::potmap::device
