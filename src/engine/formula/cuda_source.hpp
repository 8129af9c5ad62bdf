// CUDA C++ source of a formula graph (issue 13, first piece of the GPU path): the outputs as a
// __device__ function in SSA form, one `const T vK = ...;` per node, integer powers as multiplies,
// run-time compiled with NVRTC (nvrtc_loader.hpp).
#pragma once

#include <string>
#include <vector>

#include "engine/formula/expression.hpp"

namespace pairwise::formula {

// `__device__ inline void <name>(T x0, T x1, ..., T* out)` computing out[k] = outputs[k], for
// `inputs` variables (T is float or double, spelled by `type`).
// The CUDA expression of a call node (a function of the formula language, step or select) on the
// argument expressions a, b, c (unused ones empty) in `type`: the formula's name except where
// CUDA's differs (fabs, fmin, fmax). Throws pairwise::Error for an operator.
std::string cuda_call(Op op, const std::string& a, const std::string& b, const std::string& c,
                      const std::string& type);

std::string cuda_device_function(const Graph& g, const std::vector<NodeId>& outputs, int inputs,
                                 const std::string& name, const std::string& type);

// A test kernel over arrays: out_k[i] = outputs[k](in[i]) for the one-input pair formulas
// (input r²): extern "C" __global__ void <name>(const T* r2, T* out0, T* out1, int n).
std::string cuda_pair_eval_kernel(const Graph& g, NodeId energy, NodeId force_over_r,
                                  const std::string& name, const std::string& type);

}  // namespace pairwise::formula
