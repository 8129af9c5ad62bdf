// Custom φ(r) maps (formulas, issue 13) on the cuda backend: the built-in direct and cutoff
// summation kernels (cuda_map_kernels.cuh: the same regions, atom tiles, cell bins, precision
// modes) compiled at run time by NVRTC with φ generated from the formula and cached on disk
// (formula::compile_cuda_program). φ goes through formula::radial_program, so 1/r costs one
// rsqrt as in the built-in kernel; in FP32 plain and mixed sums a quarter of the direct kernel's
// reciprocal square roots run on the FMA pipe (physics::rsqrt_fma), as the built-in's do.
// Plain C++ (g++): the CPU tests check the generated source and that NVRTC compiles it; cuda_map.cu
// loads and launches the kernels.
#pragma once

#include <string>
#include <vector>

#include "engine/formula/nvrtc_loader.hpp"
#include "potmap/custom_phi.hpp"

namespace pairwise::potmap {

// The kernels' template arguments: T (pair type), Out (map type), M (0 plain, 1 wide = mixed,
// 2 Kahan).
struct PhiVariant {
  std::string t = "float", out = "float";
  int mode = 0;
};

// The generated translation unit: the kernel header, φ as __device__ functions and the functor
// FormulaPhi.
std::string custom_phi_source(const CustomPhi& phi, const PhiVariant& v);
// Name expressions: direct_regions, then cutoff_regions.
std::vector<std::string> custom_phi_kernel_names(const PhiVariant& v);
// The program for formula::compile_cuda_program (arch 0: device 0's).
formula::CudaProgram custom_phi_program(const CustomPhi& phi, const PhiVariant& v, int arch = 0);

}  // namespace pairwise::potmap
