// Factories of the individual ljc backends; make_ljc_kernel (kernel_factory.cpp) dispatches.
#pragma once

#include <memory>

#include "ljc/ljc_kernel.hpp"

namespace pairwise::ljc {

std::unique_ptr<LjcKernel> make_reference_ljc_kernel(const LjcKernelOptions& options);
std::unique_ptr<LjcKernel> make_cpu_ljc_kernel(const LjcKernelOptions& options);
// Defined only in CUDA builds (cuda_kernel.cu).
std::unique_ptr<LjcKernel> make_cuda_ljc_kernel(const LjcKernelOptions& options);

}  // namespace pairwise::ljc
