// CUDA source of a LAMMPS pair_style table (engine/table_pair.hpp) for the run-time compiled pair
// functors of md (md/cuda_custom_pair.cpp) and ljc (ljc/cuda_custom_term.cpp), issue 13: the
// table's interpolation as a __device__ function with the signature of a formula's
// (formula::cuda_device_function: `void name(T x0, ..., T* out)`, x0 = r², out = {E, F/r}), the
// same arithmetic as io::PairTableInterpolator::evaluate (LAMMPS's linear and spline in r²), and
// the internal table as two __device__ arrays in global memory, read with __ldg, one record per
// bin in each (a force kernel reads only the second, so its cache lines hold forces only):
//   linear: {E_k, ΔE_k} and {f_k, Δf_k}                      (f = F/r; float2, or double2)
//   spline: {E_k, E_k+1, E''_k, E''_k+1} and the same of f    (float4, or 2 double2)
// The data are part of the source (exact hexadecimal literals), so the kernel cache's hash covers
// them and the kernels take no extra argument.
#pragma once

#include <string>

#include "engine/radial_pair.hpp"

namespace pairwise::engine {

// `__device__ void <name>(const T x0, ..., const T x<inputs-1>, T* out)` (and its table arrays,
// `<name>_e` and `<name>_f`) for `pair`, which must be a TablePair (else pairwise::Error); T is
// "float" or "double". zero_beyond_cutoff: out = {0, 0} for r² >= rc² (ljc's all-pairs tiles; md's
// functor tests the cutoff itself). Below the inner radius the first bin is extrapolated, as on the
// cpu. Throws pairwise::Error for a non-finite table value.
std::string table_cuda_function(const RadialPair& pair, int inputs, const std::string& name,
                                const std::string& type, bool zero_beyond_cutoff);

// Whether `pair` is a table (a TablePair).
bool is_table(const RadialPair& pair);

}  // namespace pairwise::engine
