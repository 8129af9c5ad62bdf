// Custom pair styles (formulas and tables, issue 13) on the md cuda engine: the engine's own force
// and thermo kernels (cuda_md_forces.cuh, cuda_md_reductions.cuh: the same Verlet lists, threads
// per atom, vector index loads, fixed-point positions and precision modes as the built-in LJ)
// compiled at run time by NVRTC with a pair functor generated from the formulas or tables
// (CustomPair, see cuda_md_common.cuh). Plain C++ (g++): the launches go through the driver API
// (formula/nvrtc_loader), so the CPU tests check the generated source and that it compiles.
#pragma once

#include <memory>
#include <string>

#include "engine/formula/nvrtc_loader.hpp"
#include "md/custom_force_field.hpp"

namespace pairwise::md {

// Which instantiation of forces_kick (template arguments R, P, A, OneType, TPA, Vec, MinBlocks,
// Fixed; SF and Fast are false: truncation is inside the formula, and the approximate division is
// an NVRTC option, `fast_math`).
struct CustomMdVariant {
  std::string r = "float", p = "float", a = "float";  // position, pair and sum types
  bool one_type = true;
  int tpa = 4;
  bool vec = true;
  int min_blocks = 16;
  bool fixed = false;
  bool fast_math = false;  // single: approximate division and square root (-prec-div/sqrt=false)
  std::string key() const;
};

// The CUDA source of the CustomPair functor for every type pair of `pairs`, in T (`float` or
// `double`), with the includes and the explicit kernel instantiations of `v`. A table pair
// (style = "table") becomes its interpolation with the table in device memory
// (engine/table_cuda.hpp).
std::string md_custom_pair_source(const CustomPairs& pairs, const CustomMdVariant& v);
// The name expressions of the program above: forces_kick, energy_terms.
std::vector<std::string> md_custom_kernel_names(const CustomMdVariant& v);
// The whole program (headers embedded, options), for NVRTC.
formula::CudaProgram md_custom_program(const CustomPairs& pairs, const CustomMdVariant& v,
                                       int arch = 0);

// Whether a formula pair is truncated with shifted_force: its F/r near rc is a difference of
// nearly equal terms, so single precision keeps IEEE division and square root there (as the
// built-in kernels keep the exact reciprocal for lj/sf).
bool any_shifted_force(const CustomPairs& pairs);

// The compiled and loaded kernels of one variant.
struct CustomMdKernels {
  CustomMdKernels(const CustomPairs& pairs, const CustomMdVariant& v);
  formula::CompiledProgram compiled;
  std::unique_ptr<formula::DeviceKernel> forces, energy;
};

}  // namespace pairwise::md
