// An NVRTC-compiled cubin (formula::compile_cuda_program / compile_cuda_source) loaded with the
// CUDA runtime's library API, cudaLibraryLoadData. Such a library is context-independent: its
// kernels launch on whichever device is current, which is what one GPU per MPI rank needs. (The
// driver-API formula::DeviceKernel of nvrtc_loader.hpp is bound to device 0's primary context.)
// Unloaded on destruction. Used by the formula kernels of nbody, fredholm and potmap.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "core/cuda_check.cuh"

namespace pairwise::formula {

class RuntimeLibrary {
 public:
  explicit RuntimeLibrary(const std::vector<char>& cubin) {
    PW_CUDA(cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  }
  ~RuntimeLibrary() {
    if (library_) cudaLibraryUnload(library_);
  }
  RuntimeLibrary(const RuntimeLibrary&) = delete;
  RuntimeLibrary& operator=(const RuntimeLibrary&) = delete;

  // The kernel `name` (an extern "C" name or one of CompiledProgram::lowered), as a cudaKernel_t
  // that cudaLaunchKernel takes in place of a function pointer.
  const void* kernel(const std::string& name) const {
    cudaKernel_t k = nullptr;
    PW_CUDA(cudaLibraryGetKernel(&k, library_, name.c_str()));
    return reinterpret_cast<const void*>(k);
  }

 private:
  cudaLibrary_t library_ = nullptr;
};

// Blocks of `threads` threads resident per multiprocessor (no dynamic shared memory) for a library
// kernel, or `fallback` where the runtime's occupancy query does not support the handle: then its
// error is cleared, as it is not an error of the computation.
inline int resident_blocks_per_sm(const void* kernel, int threads, int fallback) {
  int per_sm = 0;
  const bool known =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) == cudaSuccess &&
      per_sm > 0;
  cudaGetLastError();
  return known ? per_sm : fallback;
}

}  // namespace pairwise::formula
