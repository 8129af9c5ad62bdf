// Single precision's general-mass GA kernel with φ at kI = 8 (issue 15's general-mass row): the
// Newton-3 body (cuda_newton3_kernel.cuh) with the Plummer pair term under its own register cap,
// __maxnreg__(newton3::kMaxRegisters), in place of a block count (CUDA takes one of the two).
//
// It has a translation unit of its own because the speed of this kernel follows ptxas's register
// allocation (caps 136-152 spread 2.42-2.50 T/s around the chosen 144, and 4 blocks an SM ran 1-8 %
// slower than 3): compiled beside cuda_newton3.cu's other kernels, NVVM hoists two address
// instructions of its tile loop and the allocation that follows ran 2.495 T/s at N = 262,144;
// alone, its PTX is the stand-alone harness's, which ran 2.555 (H200, docs/performance.md "nbody,
// session 28").
#include <cuda_runtime.h>

#include "nbody/cuda_gravity.cuh"
#include "nbody/cuda_newton3_kernel.cuh"

namespace pairwise::nbody::cuda {
namespace {

constexpr int kMaxRegisters =
    newton3::kMaxRegisters<false, true, false, newton3::kSingle, /*kI=*/8>;
static_assert(kMaxRegisters > 0);

template <bool kGuard>
__global__ void __maxnreg__(kMaxRegisters)
    general_ga_kernel(const Newton3Args a, const Newton3Grid g) {
  newton3::newton3_body<PlummerPair, /*kJerk=*/false, /*kPot=*/true, kGuard, /*kUnit=*/false,
                        newton3::kSingle, /*kI=*/8>(a, g);
}

}  // namespace

Newton3KernelFn newton3_general_ga_kernel(bool guard) {
  return guard ? general_ga_kernel<true> : general_ga_kernel<false>;
}

}  // namespace pairwise::nbody::cuda
