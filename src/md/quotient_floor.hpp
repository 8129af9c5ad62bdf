// floor(a / b · scale) as the FP64 division gives it, mostly without the division (the md domain
// engine's wraps, owners and cells, cuda_domain_kernels.cuh; host and device).
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define PW_QUOTIENT_HD __host__ __device__ __forceinline__
#else
#define PW_QUOTIENT_HD inline
#endif

namespace pairwise::md {

// floor(a / b · scale) exactly as `std::floor(a / b * scale)` gives it (scale an integer, here 1
// or a domain count), the division skipped when q = a · inv_b · scale (inv_b = 1 / b, rounded)
// lies clear of an integer, farther than 1e-9 · (1 + |q|): q and the division's result are both
// within a few ulps (≈ 1e-15 relative) of the real quotient, so no integer lies between them and
// their floors agree. Only values within ~1e-9 of a boundary (in units of the quotient), NaN and
// infinities pay the division (an FP64 division is a software sequence of ≈ 10 dependent
// instructions on sm_90; four an atom in the migration's flags kernel).
PW_QUOTIENT_HD double quotient_floor(double a, double b, double inv_b, double scale = 1) {
  const double q = a * inv_b * scale, f = std::floor(q), margin = 1e-9 * (1 + std::fabs(q));
  if (q - f > margin && f + 1 - q > margin) return f;
  return std::floor(a / b * scale);
}

}  // namespace pairwise::md
