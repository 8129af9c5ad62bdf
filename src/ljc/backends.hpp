// Factories of the individual ljc backends; make_ljc_kernel (kernel_factory.cpp) dispatches.
#pragma once

#include <memory>
#include <string>

#include "ljc/ljc_kernel.hpp"

namespace pairwise::ljc {

std::unique_ptr<LjcKernel> make_reference_ljc_kernel(const LjcKernelOptions& options);
std::unique_ptr<LjcKernel> make_cpu_ljc_kernel(const LjcKernelOptions& options);
// Defined only in CUDA builds (cuda_kernel.cu).
std::unique_ptr<LjcKernel> make_cuda_ljc_kernel(const LjcKernelOptions& options);
// Seconds per full MD step with the whole step on the device (CUDA graphs), velocity Verlet at dt
// fs over `steps` steps; -1 when `kernel` is not the cuda backend. CUDA builds only.
double cuda_time_md_steps(LjcKernel& kernel, double dt, std::int64_t steps);
// "persistent" or "graph": how the cuda backend's advance runs steps; "" for other backends.
std::string cuda_step_kernel(const LjcKernel& kernel);

}  // namespace pairwise::ljc
