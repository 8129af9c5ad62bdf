#include "nbody/cuda_formula.cuh"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/cuda_check.cuh"
#include "engine/all_pairs.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "engine/formula/runtime_library.cuh"
#include "nbody/cuda_formula_split.hpp"
#include "nbody/cuda_newton3_kernel.cuh"
#include "nbody/custom_gravity.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody::cuda {

namespace {

// Stand-ins for the std names the embedded headers use (NVRTC has no standard library headers).
constexpr const char* kPrelude = R"(
#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
namespace std {
typedef decltype(sizeof(0)) size_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
template <bool B, class T, class F> struct conditional { using type = T; };
template <class T, class F> struct conditional<false, T, F> { using type = F; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;
}  // namespace std
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
)";

constexpr const char* kKernelName = "pairwise_nbody_formula_newton3";

}  // namespace

FormulaKernels::FormulaKernels(const CustomGravity& potential) : program_(potential.radial()) {
  const std::vector<double> at_inf = program_.evaluate(std::numeric_limits<double>::infinity());
  vanishes_ = true;
  for (double v : at_inf) vanishes_ = vanishes_ && v == 0.0;
}

std::string FormulaKernels::source(bool jerk, bool potential, bool unit, int mode, int k_i) const {
  std::ostringstream s;
  char shift[40];
  std::snprintf(shift, sizeof shift, "%.9g", program_.shifted ? program_.shift : 0.0);
  auto b = [](bool v) { return v ? "true" : "false"; };
  s << kPrelude << newton3_kernel_source() << "\nnamespace pairwise::nbody::cuda {\n"
    << program_.cuda_function("pairwise_formula", "float")
    << "struct GeneratedFormula {\n  static constexpr float kShift = float(" << shift << ");\n"
    << "  static __device__ __forceinline__ void eval(float s, float* out) { "
       "pairwise_formula(s, out); }\n};\n}  // namespace pairwise::nbody::cuda\n"
    << "extern \"C\" __global__ void __launch_bounds__(pairwise::nbody::cuda::newton3::"
       "kBlockThreads, pairwise::nbody::cuda::newton3::min_blocks("
    << b(jerk) << ", " << b(potential) << ", " << b(unit) << ", " << mode << ", " << k_i << "))\n"
    << kKernelName
    << "(const pairwise::nbody::cuda::Newton3Args a, const pairwise::nbody::cuda::Newton3Grid g) "
       "{\n  pairwise::nbody::cuda::newton3::newton3_body<pairwise::nbody::cuda::FormulaPair<"
       "pairwise::nbody::cuda::GeneratedFormula>, "
    << b(jerk) << ", " << b(potential) << ", false, " << b(unit) << ", " << mode << ", " << k_i
    << ">(a, g);\n}\n";
  return s.str();
}

FormulaKernels::Kernel FormulaKernels::get(bool jerk, bool potential, bool unit, int mode,
                                           int k_i) {
  const auto key = std::make_tuple(jerk, potential, unit, mode, k_i);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  const formula::CompiledKernel compiled =
      formula::compile_cuda_source(source(jerk, potential, unit, mode, k_i));
  count(compiled.seconds, compiled.from_cache);
  Kernel k;
  k.fn = load(compiled, kKernelName);
  k.blocks_per_sm = formula::resident_blocks_per_sm(
      k.fn, newton3::kBlockThreads, newton3::min_blocks(jerk, potential, unit, mode, k_i));
  return kernels_[key] = k;
}

FormulaKernels::~FormulaKernels() = default;

const void* FormulaKernels::load(const formula::CompiledKernel& compiled, const std::string& name) {
  libraries_.push_back(std::make_unique<formula::RuntimeLibrary>(compiled.cubin));
  return libraries_.back()->kernel(name);
}

void FormulaKernels::count(double seconds, bool from_cache) {
  last_seconds_ = seconds;
  last_from_cache_ = from_cache;
  seconds_ += seconds;
}

FormulaKernels::Kernel FormulaKernels::split(Precision precision, bool jerk, bool potential) {
  const auto key = std::make_tuple(int(precision), jerk, potential);
  if (auto it = split_kernels_.find(key); it != split_kernels_.end()) return it->second;
  FormulaSplitVariant v;
  v.precision = precision;
  v.jerk = jerk;
  v.potential = potential;
  v.tile = formula_split_tile(precision);
  const formula::CompiledProgram compiled =
      formula::compile_cuda_program(formula_split_program(program_, v));
  count(compiled.seconds, compiled.from_cache);
  Kernel k;
  k.fn = load(compiled, compiled.lowered.at(0));
  k.blocks_per_sm = formula::resident_blocks_per_sm(k.fn, engine::kAllPairsThreads, 1);
  return split_kernels_[key] = k;
}

}  // namespace pairwise::nbody::cuda
