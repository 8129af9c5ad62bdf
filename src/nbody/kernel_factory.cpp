#include "nbody/backends.hpp"
#include "nbody/custom_gravity.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

std::unique_ptr<GravityKernel> make_gravity_kernel(BackendKind backend,
                                                   const KernelOptions& options) {
  if (options.custom) return make_custom_gravity_kernel(backend, options);
  switch (backend) {
    case BackendKind::reference:
      return make_reference_gravity_kernel(options);
    case BackendKind::cpu:
      return make_cpu_gravity_kernel(options);
    case BackendKind::cuda:
#ifdef PAIRWISE_HAVE_CUDA
      return make_cuda_gravity_kernel(options);
#else
      throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
#endif
    case BackendKind::automatic:
      break;
  }
  throw Error("make_gravity_kernel needs a resolved backend, not auto");
}

}  // namespace pairwise::nbody
