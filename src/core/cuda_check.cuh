// Checks every CUDA runtime call and kernel launch (DESIGN.md: CUDA errors are checked after every
// call and launch, with the kernel's name in the message). Failures throw pairwise::Error.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "pairwise/error.hpp"

namespace pairwise::cuda {

// Throws pairwise::Error("CUDA error in <what>: <cudaGetErrorString> (<cudaGetErrorName>)").
inline void check(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status) + " (" +
                  cudaGetErrorName(status) + ")",
              std::string(file) + ":" + std::to_string(line));
}

// After a launch: a bad configuration shows up in cudaGetLastError at once; faults inside the
// kernel appear at the next synchronizing call, which is itself checked.
inline void check_launch(const char* kernel, const char* file, int line) {
  check(cudaGetLastError(), (std::string("launch of ") + kernel).c_str(), file, line);
}

}  // namespace pairwise::cuda

// PW_CUDA(cudaMemcpy(...)) : the call's text names it in the error message.
#define PW_CUDA(call) ::pairwise::cuda::check((call), #call, __FILE__, __LINE__)
// PW_CUDA_LAUNCH("gravity_forces") right after kernel<<<...>>>(...).
#define PW_CUDA_LAUNCH(kernel_name) ::pairwise::cuda::check_launch(kernel_name, __FILE__, __LINE__)
