// Custom Fredholm kernels (formulas, issue 13) on the cuda backend: the engine's all-pairs kernel
// with the matvec policy of cuda_matvec_policy.cuh (the same tiles, register tiles, j-splits,
// deterministic reduction and precision modes as the built-in kernels), compiled at run time by
// NVRTC with a kernel functor generated from the formulas (formula::cuda_device_function), and
// cached on disk (formula::compile_cuda_program). Plain C++ (g++): the CPU tests check the
// generated source and that NVRTC compiles it; cuda_matvec.cu loads and launches it.
#pragma once

#include <string>
#include <vector>

#include "engine/formula/nvrtc_loader.hpp"
#include "fredholm/custom_kernel.hpp"

namespace pairwise::fredholm {

// One instantiation of all_pairs_kernel<MatvecPolicy<FormulaKernel, F, mixed, dim>, tile, 1>.
struct FormulaMatvecVariant {
  std::string f = "float";  // the pair type: "float" (single, mixed) or "double"
  bool mixed = false;       // FP32 tiles folded into FP64 sums
  int dim = 1;              // 1, or 3 for 2-D and 3-D problems
  int tile = 4;             // targets per thread (kI)
};

// The generated translation unit: the policy header, the formulas as a __device__ function and
// the functor FormulaKernel (K, or Complex<F>{Re K, Im K}).
std::string formula_matvec_source(const CustomKernel& kernel, const FormulaMatvecVariant& v);
// The kernel's C++ name expression (NVRTC reports its mangled name).
std::string formula_matvec_kernel_name(const FormulaMatvecVariant& v);
// The whole program (embedded headers, the name expression), for formula::compile_cuda_program;
// arch 0: device 0's.
formula::CudaProgram formula_matvec_program(const CustomKernel& kernel,
                                            const FormulaMatvecVariant& v, int arch = 0);

}  // namespace pairwise::fredholm
