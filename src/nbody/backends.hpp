// Factories of the individual backends; make_gravity_kernel (kernel_factory.cpp) dispatches to
// them.
#pragma once

#include <memory>

#include "nbody/gravity_kernel.hpp"

namespace pairwise::nbody {

std::unique_ptr<GravityKernel> make_reference_gravity_kernel(const KernelOptions& options);
std::unique_ptr<GravityKernel> make_cpu_gravity_kernel(const KernelOptions& options);
// options.custom set (custom_gravity.cpp): reference or cpu, else an Error.
std::unique_ptr<GravityKernel> make_custom_gravity_kernel(BackendKind backend,
                                                          const KernelOptions& options);
// Defined only in CUDA builds (cuda_kernel.cu); make_gravity_kernel never calls it otherwise.
std::unique_ptr<GravityKernel> make_cuda_gravity_kernel(const KernelOptions& options);

}  // namespace pairwise::nbody
