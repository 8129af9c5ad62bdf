#include "ljc/backends.hpp"
#include "ljc/custom_nonbonded.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

std::unique_ptr<LjcKernel> make_ljc_kernel(BackendKind backend, const LjcKernelOptions& options) {
  // The built-in kernel plus a formula term; the cuda backend runs the term in its own tile
  // kernel (cuda_custom_term.hpp).
  if (options.custom && backend != BackendKind::cuda) {
    LjcKernelOptions plain = options;
    plain.custom = nullptr;
    return with_custom_nonbonded(make_ljc_kernel(backend, plain), options.custom);
  }
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
