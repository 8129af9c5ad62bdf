// CUDA source of a LAMMPS pair_style table (engine/table_pair.hpp) for the run-time compiled pair
// functors of md (md/cuda_custom_pair.cpp) and ljc (ljc/cuda_custom_term.cpp), issue 13: the
// table's interpolation as a __device__ function with the signature of a formula's
// (formula::cuda_device_function: `void name(T x0, ..., T* out)`, x0 = r², out = {E, F/r}), the
// same arithmetic as io::PairTableInterpolator::evaluate (LAMMPS's linear and spline in r²), and
// the internal table as a __device__ array in global memory, one record per bin read with __ldg:
//   linear: {E_k, ΔE_k, (F/r)_k, Δ(F/r)_k}                      (float4, or 2 double2)
//   spline: {E_k, E_k+1, E''_k, E''_k+1}, {f_k, f_k+1, f''_k, f''_k+1}   (f = F/r; 2 float4 / 4
//   double2)
// so one pair costs one 16-byte load (linear, FP32) or two (spline) from a table that stays in
// L1/L2. The data are part of the source (exact hexadecimal literals), so the kernel cache's hash
// covers them and the kernels take no extra argument.
#pragma once

#include <string>

#include "engine/radial_pair.hpp"

namespace pairwise::engine {

// `__device__ void <name>(const T x0, ..., const T x<inputs-1>, T* out)` (and its table array,
// `<name>_table`) for `pair`, which must be a TablePair (else pairwise::Error); T is "float" or
// "double". zero_beyond_cutoff: out = {0, 0} for r² >= rc² (ljc's all-pairs tiles; md's functor
// tests the cutoff itself). Below the inner radius the first bin is extrapolated, as on the cpu.
// Throws pairwise::Error for a non-finite table value.
std::string table_cuda_function(const RadialPair& pair, int inputs, const std::string& name,
                                const std::string& type, bool zero_beyond_cutoff);

// Whether `pair` is a table (a TablePair).
bool is_table(const RadialPair& pair);

}  // namespace pairwise::engine
