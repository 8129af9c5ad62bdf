// A pair formula in r rewritten for the GPU tile kernels (issue 13): the kernels have r² and
// compute 1/r with one reciprocal square root (the built-in pair's rsqrt), so the formula is
// rebuilt in those two inputs instead of r = sqrt(r²) and divisions by r:
//   r → r²·(1/r),   a / r^k → a·(1/r)^k,   r^-k → (1/r)^k,   r^2k → (r²)^k,
// every other node rebuilt as it is (the graph's simplifying constructors). Exact algebra: the
// values differ from the sqrt-and-divide form by rounding only, and one special-function operation
// per pair replaces a square root and a reciprocal per division.
#pragma once

#include "engine/formula/expression.hpp"

namespace pairwise::formula {

// `root` with variable r_index (r) replaced as above by variables r2_index (r²) and rinv_index
// (1/r); rinv_index may equal r_index (the slot is then 1/r in the result).
NodeId in_r2_and_inverse_r(Graph& g, NodeId root, int r_index, int r2_index, int rinv_index);

}  // namespace pairwise::formula
