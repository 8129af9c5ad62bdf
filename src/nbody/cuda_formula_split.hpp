// A custom potential's split-path kernels (issue 13): the all-pairs engine's kernel with
// FormulaSplitPolicy (nbody/cuda_formula_split.cuh) over the formula's φ, G, G' (formula::
// RadialProgram::cuda_function, in float or double), compiled at run time by NVRTC with the
// embedded headers and cached on disk (formula::compile_cuda_program), as fredholm's formula
// kernels are (fredholm/cuda_formula_matvec.hpp). Plain C++ (g++): the CPU tests check that NVRTC
// compiles the program; nbody/cuda_formula.cu loads and launches it.
#pragma once

#include <string>

#include "engine/formula/nvrtc_loader.hpp"
#include "engine/formula/radial_program.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::nbody::cuda {

// One instantiation of all_pairs_kernel<FormulaSplitPolicy<GeneratedSplitFormula, mode, jerk,
// potential>, tile, 1>.
struct FormulaSplitVariant {
  Precision precision = Precision::single;  // single, mixed (double-single x, float pairs), double
  bool jerk = false, potential = true;
  int tile = 4;  // targets per thread (kI)
};

// The register tile of a precision's split formula kernels: 4 (FP32 pairs), 2 (FP64), as
// gravity's base tiles.
int formula_split_tile(Precision precision);

// The generated translation unit: the policy header and the formula as GeneratedSplitFormula.
std::string formula_split_source(const formula::RadialProgram& program,
                                 const FormulaSplitVariant& v);
// The kernel's C++ name expression (NVRTC reports its mangled name).
std::string formula_split_kernel_name(const FormulaSplitVariant& v);
// The whole program, for formula::compile_cuda_program; arch 0: device 0's.
formula::CudaProgram formula_split_program(const formula::RadialProgram& program,
                                           const FormulaSplitVariant& v, int arch = 0);

}  // namespace pairwise::nbody::cuda
