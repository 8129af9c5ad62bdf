// Checks every CUDA runtime call and kernel launch (DESIGN.md: CUDA errors are checked after every
// call and launch, with the kernel's name in the message). Failures throw pairwise::Error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "pairwise/error.hpp"

namespace pairwise::cuda {

// " (the device has F of T bytes free)", or "" when the runtime cannot tell.
inline std::string free_memory_note() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return "";
  return " (the device has " + std::to_string(free_bytes) + " of " + std::to_string(total_bytes) +
         " bytes free)";
}

// The kernel launched last on this thread (PW_CUDA_LAUNCH), nullptr before the first: a fault
// inside a kernel (illegal address, ECC error) is reported by the next synchronizing call, whose
// message then names this kernel too.
inline thread_local const char* last_kernel_launched = nullptr;

// Throws pairwise::Error("CUDA error in <what>: <cudaGetErrorString> (<cudaGetErrorName>); the
// last kernel launched was <name>"), with the device's free memory for an allocation failure.
// (The CLI adds the last checkpoint's path to any error of a run that wrote one:
// apps/pairwise/run_command.cpp.)
inline void check(cudaError_t status, const char* what, const char* file, int line) {
  if (status == cudaSuccess) return;
  std::string message = std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status) +
                        " (" + cudaGetErrorName(status) + ")";
  if (status == cudaErrorMemoryAllocation) message += free_memory_note();
  if (last_kernel_launched && std::string(what).find(last_kernel_launched) == std::string::npos)
    message += std::string("; the last kernel launched was ") + last_kernel_launched;
  throw Error(message, std::string(file) + ":" + std::to_string(line));
}

// An allocation of `bytes`: "out of GPU memory: <what> asked for N bytes (the device has F of T
// bytes free)".
inline void check_alloc(cudaError_t status, std::size_t bytes, const char* what, const char* file,
                        int line) {
  if (status == cudaSuccess) return;
  if (status != cudaErrorMemoryAllocation) check(status, what, file, line);
  cudaGetLastError();  // an allocation error is not sticky: clear it
  throw Error(std::string("out of GPU memory: ") + what + " asked for " + std::to_string(bytes) +
                  " bytes" + free_memory_note(),
              std::string(file) + ":" + std::to_string(line));
}

// After a launch: a bad configuration shows up in cudaGetLastError at once; faults inside the
// kernel appear at the next synchronizing call, which is itself checked.
inline void check_launch(const char* kernel, const char* file, int line) {
  last_kernel_launched = kernel;  // the callers pass string literals
  check(cudaGetLastError(), (std::string("launch of ") + kernel).c_str(), file, line);
}

}  // namespace pairwise::cuda

// PW_CUDA(cudaMemcpy(...)) : the call's text names it in the error message.
#define PW_CUDA(call) ::pairwise::cuda::check((call), #call, __FILE__, __LINE__)
// PW_CUDA_ALLOC(cudaMalloc(&p, bytes), bytes): the bytes asked for and free in the message.
#define PW_CUDA_ALLOC(call, bytes) \
  ::pairwise::cuda::check_alloc((call), (bytes), #call, __FILE__, __LINE__)
// PW_CUDA_LAUNCH("gravity_forces") right after kernel<<<...>>>(...).
#define PW_CUDA_LAUNCH(kernel_name) ::pairwise::cuda::check_launch(kernel_name, __FILE__, __LINE__)
