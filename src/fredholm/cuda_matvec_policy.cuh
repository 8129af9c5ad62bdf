// The Fredholm matrix-vector product as a policy of the all-pairs engine (engine/all_pairs.cuh):
// the layouts and the pair function of cuda_matvec.cu, in a header of its own so that NVRTC
// compiles the same kernel with a kernel functor generated from formulas (custom kernels, issue 13:
// cuda_formula_matvec.cpp). Embedded as text for NVRTC (engine/formula/embed_cuda_headers.cmake):
// it includes only headers that are embedded too.
//
//   targets  F[kDim · n_i]                       (kDim = 1 for 1-D problems, 3 for 2-D and 3-D)
//   sources  Source{F c[kDim]; F w[kC]}[n_j]     (kC = 1 real, 2 complex: w_j g_j)
#pragma once

#include <cstddef>
#include <type_traits>

#include "engine/all_pairs.cuh"
#include "pairwise/physics/fredholm.hpp"

namespace pairwise::fredholm::device {

namespace ph = physics::fredholm;
using engine::AllPairsPlan;

template <class F, int kDim, int kC>
struct Source {
  F c[kDim];
  F w[kC];
};

template <class K>
struct MatvecArgs {
  int n_i = 0, n_j = 0;
  AllPairsPlan plan;
  void* partial = nullptr;
  unsigned* tickets = nullptr;
  const void* targets = nullptr;
  const void* sources = nullptr;
  double* out = nullptr;  // [kC][n_i]
  K kernel;
};

// 2^x on the special-function unit (MUFU.EX2, ~2 ulp, flushes denormals).
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// How a kernel is evaluated for one (target, source) pair. The generic form calls the library
// functor with 3-D points; e^{ts} in FP32 uses exp2 of a prescaled target.
template <class K, class F, int kDim>
struct Eval {
  using Target = ph::Point<F>;
  static __device__ __forceinline__ Target target(const ph::Point<F>& p) { return p; }
  static __device__ __forceinline__ auto value(const K& k, const Target& t, const F (&c)[kDim]) {
    ph::Point<F> s;
    s.x = c[0];
    if constexpr (kDim > 1) s.y = c[1], s.z = c[2];
    return k(t, s);
  }
};

template <>
struct Eval<ph::ExpTs, float, 1> {
  struct Target {
    float t2;  // t · log2(e)
  };
  static __device__ __forceinline__ Target target(const ph::Point<float>& p) {
    return {p.x * 1.4426950408889634f};
  }
  static __device__ __forceinline__ float value(const ph::ExpTs&, const Target& t,
                                                const float (&c)[1]) {
    return exp2_approx(t.t2 * c[0]);
  }
};

// The engine's interaction policy (see the interface at the top of engine/all_pairs.cuh).
template <class K, class F, bool kMixed, int kDim>
struct MatvecPolicy {
  static constexpr int kC = K::kComplex ? 2 : 1;
  static constexpr int kComponents = kC;
  using Args = MatvecArgs<K>;
  using Source = device::Source<F, kDim, kC>;
  using E = Eval<K, F, kDim>;
  using Target = typename E::Target;
  using Partial = std::conditional_t<kMixed, double, F>;
  struct Accum {
    F s[kC] = {};
    double total[kMixed ? kC : 1] = {};  // mixed: the tiles' float sums added in double
  };
  struct Ctx {
    K kernel;
  };

  static __device__ __forceinline__ Ctx context(const Args& a) { return {a.kernel}; }
  static __device__ __forceinline__ Target load_target(const Args& a, int k) {
    const F* t = static_cast<const F*>(a.targets) + std::size_t(k) * kDim;
    ph::Point<F> p;
    p.x = t[0];
    if constexpr (kDim > 1) p.y = t[1], p.z = t[2];
    return E::target(p);
  }
  static __device__ __forceinline__ Source load_source(const Args& a, int j) {
    return static_cast<const Source*>(a.sources)[j];
  }
  static __device__ __forceinline__ Source pad_source(const Args&) {
    return Source{};  // s = 0 with weight 0: every library kernel is finite there
  }
  template <int kI>
  static __device__ __forceinline__ void interact(const Ctx& ctx, const Source& s,
                                                  const Target (&t)[kI], Accum (&acc)[kI]) {
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      const auto v = E::value(ctx.kernel, t[k], s.c);
      if constexpr (K::kComplex) {
        acc[k].s[0] = fma(s.w[0], v.re, fma(-s.w[1], v.im, acc[k].s[0]));
        acc[k].s[1] = fma(s.w[0], v.im, fma(s.w[1], v.re, acc[k].s[1]));
      } else {
        acc[k].s[0] = fma(s.w[0], v, acc[k].s[0]);
      }
    }
  }
  template <int kI>
  static __device__ __forceinline__ void end_tile(Accum (&acc)[kI]) {
    if constexpr (kMixed) {
#pragma unroll
      for (int k = 0; k < kI; ++k)
#pragma unroll
        for (int c = 0; c < kC; ++c) acc[k].total[c] += double(acc[k].s[c]), acc[k].s[c] = 0;
    }
  }
  static __device__ __forceinline__ Partial partial(const Accum& acc, int c) {
    if constexpr (kMixed) {
      return acc.total[c];
    } else {
      return acc.s[c];
    }
  }
  static __device__ __forceinline__ void finalize(const Args& a, int k, int c, double sum) {
    a.out[std::size_t(c) * a.n_i + k] = sum;
  }
  static __device__ __forceinline__ void after_finalize(const Args&, int, int) {}
};

}  // namespace pairwise::fredholm::device
