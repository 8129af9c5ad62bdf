// The md cuda engine's thermo reductions: per-block sums of ½ U, ½ r·f and ½ m v² over the
// full list, then one fixed-order sum of the block partials (deterministic).
// Included by cuda_md.cu, where the whole step is described, and cuda_domain_engine.cu
// (sum_partials).
#pragma once

#include <cstddef>

#include "md/cuda_md_common.cuh"
#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

// Thermo: per block Σ (½ U, ½ r·f, ½ m v²) over the full list, in double.
template <class R, class P, bool SF, class Pair = BuiltInPair>
__global__ void __launch_bounds__(kBlock)
    energy_terms(int n, const typename Vec4<R>::type* __restrict__ pos,
                 const typename Vec4<R>::type* __restrict__ vel, const int* __restrict__ nbr,
                 const int* __restrict__ nbr_count, int capacity, std::size_t si, std::size_t sk,
                 BoxP<R> box, int types, double* __restrict__ partial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double e = 0, w = 0, ke = 0;
  if (i < n) {
    const auto p = pos[i];
    const int ti = int(p.w);
    const int count = min(nbr_count[i], capacity);
    for (int k = 0; k < count; ++k) {
      const int j = nbr[std::size_t(i) * si + std::size_t(k) * sk];
      const auto q = pos[j];
      const P dx = P(min_image(p.x - q.x, box.L[0], box.half[0]));
      const P dy = P(min_image(p.y - q.y, box.L[1], box.half[1]));
      const P dz = P(min_image(p.z - q.z, box.L[2], box.half[2]));
      const P r2 = dx * dx + dy * dy + dz * dz;
      if constexpr (Pair::custom) {
        P energy, force_over_r;
        if (Pair::energy_force(ti * types + int(q.w), r2, energy, force_over_r))
          e += double(energy), w += double(force_over_r * r2);
        continue;
      }
      const auto& pp = pair_params<P>(ti * types + int(q.w));
      if (r2 < pp.rc2) {
        const auto t = physics::lj_truncated<SF>(r2, pp);
        e += double(t.energy), w += double(t.force_over_r2 * r2);
      }
    }
    const auto v = vel[i];
    ke = double(v.x * v.x + v.y * v.y + v.z * v.z) / double(v.w);
  }
  double vals[3] = {0.5 * e, 0.5 * w, 0.5 * ke};
  __shared__ double s[3][kBlock / 32];
  for (int c = 0; c < 3; ++c) {
    for (int o = 16; o > 0; o >>= 1) vals[c] += __shfl_down_sync(0xffffffffu, vals[c], o);
    if ((threadIdx.x & 31) == 0) s[c][threadIdx.x >> 5] = vals[c];
  }
  __syncthreads();
  if (threadIdx.x < 3) {
    double t = 0;
    for (int k = 0; k < kBlock / 32; ++k) t += s[threadIdx.x][k];
    partial[3 * blockIdx.x + threadIdx.x] = t;
  }
}

__global__ void sum_partials(int blocks, const double* __restrict__ partial, double* out) {
  __shared__ double s[3][256];
  double t[3] = {0, 0, 0};
  for (int b = threadIdx.x; b < blocks; b += blockDim.x)
    for (int c = 0; c < 3; ++c) t[c] += partial[3 * b + c];
  for (int c = 0; c < 3; ++c) s[c][threadIdx.x] = t[c];
  __syncthreads();
  if (threadIdx.x < 3) {
    double r = 0;
    for (int k = 0; k < 256; ++k) r += s[threadIdx.x][k];  // fixed order: deterministic
    out[threadIdx.x] = r;
  }
}

}  // namespace
}  // namespace pairwise::md
