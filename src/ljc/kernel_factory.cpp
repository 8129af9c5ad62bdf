#include "ljc/backends.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

std::unique_ptr<LjcKernel> make_ljc_kernel(BackendKind backend, const LjcKernelOptions& options) {
  switch (backend) {
    case BackendKind::reference:
      return make_reference_ljc_kernel(options);
    case BackendKind::cpu:
      return make_cpu_ljc_kernel(options);
    case BackendKind::cuda:
#ifdef PAIRWISE_HAVE_CUDA
      return make_cuda_ljc_kernel(options);
#else
      throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
#endif
    case BackendKind::automatic:
      break;
  }
  throw Error("make_ljc_kernel needs a resolved backend, not auto");
}

}  // namespace pairwise::ljc
