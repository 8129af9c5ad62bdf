// A custom potential (issue 13) on gravity's split path: the all-pairs engine's kernel
// (engine/all_pairs.cuh) with a policy whose pair term is a formula's φ, G = φ'/r and G' = dG/d(r²)
// (formula::RadialProgram), in every precision: targets listed by i_index (block steps: the
// active particles only) or all of them (double precision's full evaluations). The layouts, and
// the code that loads targets and sources, are GravityPolicy's (nbody/cuda_gravity_sources.cuh):
// sources pos (x, y, z, m) as float4 or a double quadruple, the low parts of x (mixed) and the
// velocities (GAJ). Compiled at run time by NVRTC with the formula's function
// (nbody/cuda_formula_split.cpp), so this header is embedded as text
// (engine/formula/embed_cuda_headers.cmake) and includes only embedded headers.
//
// The pair (i, j) adds  φ_i += m_j φ(s),  a_i += m_j G(s) d,  jerk_i += m_j (G u + 2 G' (d·u) d)
// with d = x_j - x_i, u = v_j - v_i and s = |d|² + shift (Formula::kShift). Zero masses (the pads
// of the last tile) add exactly nothing, whatever the formula's value there. The pair (i, i): where
// φ, G, G' are finite at r = 0 (Formula::kFiniteAtZero: softened formulas) it is summed like any
// other (it adds nothing to a and jerk, d = u = 0) and its m_i φ(shift) is removed from φ in
// finalize, in the loop's precision, as gravity's split path does (coincident particles i != j
// then count); elsewhere pairs at d = 0 exactly are skipped (only i = j may be at zero distance
// then, as on the Newton-3 path).
#pragma once

#include <cstddef>

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#include <type_traits>

#include "engine/all_pairs.cuh"
#include "nbody/cuda_gravity_sources.cuh"
#include "pairwise/physics/gravity.hpp"
#else
#include "engine/all_pairs.hpp"
#endif

namespace pairwise::nbody::cuda {

// Positions and arithmetic of the split formula kernels (gravity's Traits<P>).
enum FormulaSplitMode { kSplitSingle = 0, kSplitMixed = 1, kSplitDouble = 2 };

// The launch's parameters (a plain struct: the host fills it from ForceArgs, nbody/cuda_kernel.cu).
struct FormulaSplitArgs {
  int n_i = 0, n_j = 0;
  engine::AllPairsPlan plan;
  void* partial = nullptr;
  unsigned* tickets = nullptr;
  const void* jpos = nullptr;    // float4 or GravityD4 [n_j]
  const void* jlo = nullptr;     // float4 [n_j] (mixed)
  const void* jvel = nullptr;    // float4 or GravityD4 [n_j] (GAJ)
  const int* i_index = nullptr;  // target k is source i_index[k]; nullptr: k
  double* out = nullptr;         // out[c · n_i + k], c < 4 (GA) or 7 (GAJ); predicted: rows 7..12
  // The master state (double, particle order) for the targets' predicted x, v when `predict`.
  const double* x[3] = {};
  const double* v[3] = {};
  const double* a[3] = {};
  const double* j[3] = {};
  const double* t_last = nullptr;
  bool predict = false;
  double t = 0;
};

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
template <int kMode>
struct FormulaSplitTraits {
  using F = float;
  using JP = float4;
  using Partial = std::conditional_t<kMode == kSplitMixed, double, float>;
  static constexpr bool kLo = kMode == kSplitMixed;
};
template <>
struct FormulaSplitTraits<kSplitDouble> {
  using F = double;
  using JP = GravityD4;
  using Partial = double;
  static constexpr bool kLo = false;
};

// Formula::eval(s, out) writes φ, G, G' at s (type F); Formula::kShift is the input's shift;
// Formula::kFiniteAtZero: the values at s = kShift (r = 0) are finite.
template <class Formula, int kMode, bool kJerk, bool kPot>
struct FormulaSplitPolicy {
  using T = FormulaSplitTraits<kMode>;
  using F = typename T::F;
  using JP = typename T::JP;
  static constexpr int kComponents = kJerk ? 7 : 4;  // ax, ay, az, φ (, jx, jy, jz)
  using Args = FormulaSplitArgs;
  using Source = GravitySource<JP, T::kLo, kJerk>;
  using Partial = typename T::Partial;
  using Target = GravityTarget<F>;
  struct Accum {
    F s[kComponents] = {};
    double total[T::kLo ? kComponents : 1] = {};  // mixed: double sums of the tiles' float sums
  };
  struct Ctx {};

  static __device__ __forceinline__ Ctx context(const Args&) { return Ctx{}; }

  static __device__ __forceinline__ Target load_target(const Args& a, int k) {
    return load_gravity_target<F, JP, T::kLo, kJerk>(a, k);
  }

  static __device__ __forceinline__ Source load_source(const Args& a, int j) {
    return load_gravity_source<JP, T::kLo, kJerk>(a, j);
  }

  // Zero mass far away: adds exactly nothing (zero masses are skipped).
  static __device__ __forceinline__ Source pad_source(const Args&) {
    return gravity_pad_source<F, JP, T::kLo, kJerk>(F(1e18f));
  }

  template <int kI>
  static __device__ __forceinline__ void interact(const Ctx&, const Source& s,
                                                  const Target (&t)[kI], Accum (&acc)[kI]) {
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      F dx = s.p.x - t[k].x, dy = s.p.y - t[k].y, dz = s.p.z - t[k].z;
      if constexpr (T::kLo) {  // double-single difference
        dx += s.lo.x - t[k].xl, dy += s.lo.y - t[k].yl, dz += s.lo.z - t[k].zl;
      }
      const F s2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, F(Formula::kShift))));
      F v[3];
      Formula::eval(s2, v);
      bool skip = s.p.w == F(0);
      if constexpr (!Formula::kFiniteAtZero)
        skip = skip || (dx == F(0) && dy == F(0) && dz == F(0));
      const F g = skip ? F(0) : s.p.w * v[1];
      F* sum = acc[k].s;
      sum[0] = fma(g, dx, sum[0]);
      sum[1] = fma(g, dy, sum[1]);
      sum[2] = fma(g, dz, sum[2]);
      if constexpr (kPot) sum[3] += skip ? F(0) : s.p.w * v[0];
      if constexpr (kJerk) {
        const F dvx = s.v.x - t[k].vx, dvy = s.v.y - t[k].vy, dvz = s.v.z - t[k].vz;
        const F c = skip ? F(0) : F(2) * s.p.w * v[2] * fma(dx, dvx, fma(dy, dvy, dz * dvz));
        sum[4] = fma(c, dx, fma(g, dvx, sum[4]));
        sum[5] = fma(c, dy, fma(g, dvy, sum[5]));
        sum[6] = fma(c, dz, fma(g, dvz, sum[6]));
      }
    }
  }

  template <int kI>
  static __device__ __forceinline__ void end_tile(Accum (&acc)[kI]) {
    if constexpr (T::kLo) {  // fold this tile's float sums into double
#pragma unroll
      for (int k = 0; k < kI; ++k)
#pragma unroll
        for (int c = 0; c < kComponents; ++c)
          acc[k].total[c] += double(acc[k].s[c]), acc[k].s[c] = F(0);
    }
  }

  static __device__ __forceinline__ Partial partial(const Accum& acc, int c) {
    if constexpr (T::kLo) {
      return acc.total[c];
    } else {
      return acc.s[c];
    }
  }

  static __device__ __forceinline__ void finalize(const Args& a, int k, int c, double sum) {
    if (Formula::kFiniteAtZero && kPot && c == 3) {  // the pair (i, i) as the loop added it
      const int i = a.i_index ? a.i_index[k] : k;
      const F m = static_cast<const JP*>(a.jpos)[i].w;
      F v[3];
      Formula::eval(F(Formula::kShift), v);
      if (m != F(0)) sum -= double(m * v[0]);
    }
    a.out[std::size_t(c) * a.n_i + k] = sum;
  }

  // The targets' predicted x, v (block steps), from the master state in double.
  static __device__ __forceinline__ void after_finalize(const Args& a, int k_begin, int k_end) {
    if (!a.predict) return;
    for (int k = k_begin + int(threadIdx.x); k < k_end; k += engine::kAllPairsThreads) {
      const int i = a.i_index ? a.i_index[k] : k;
      const double dt = a.t - a.t_last[i];
      for (int d = 0; d < 3; ++d) {
        double xp, vp;
        physics::predict(dt, a.x[d][i], a.v[d][i], a.a[d][i], a.j[d][i], xp, vp);
        a.out[std::size_t(7 + d) * a.n_i + k] = xp;
        a.out[std::size_t(10 + d) * a.n_i + k] = vp;
      }
    }
  }
};
#endif  // __CUDACC__ || __CUDACC_RTC__

}  // namespace pairwise::nbody::cuda
