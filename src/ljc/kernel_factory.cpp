#include "core/backend_factory.hpp"
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
  return make_for_backend(
      backend, "make_ljc_kernel", [&] { return make_reference_ljc_kernel(options); },
      [&] { return make_cpu_ljc_kernel(options); }, [&] { return make_cuda_ljc_kernel(options); });
}

}  // namespace pairwise::ljc
