// A spatial order of the particles for the mixed-precision Newton-3 path (cuda_newton3_kernel.cuh:
// positions as FP32 offsets from each row tile's origin, accurate when the 32·kI particles of a row
// are close together): 30-bit Morton keys (10 bits per axis) of the master positions in their
// bounding box, sorted with thrust's radix sort. The order affects accuracy only, never
// correctness: the origins are exact double-single positions of the particles themselves.
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/sort.h>

#include <algorithm>

#include "core/cuda_check.cuh"
#include "nbody/cuda_gravity.cuh"

namespace pairwise::nbody::cuda {
namespace {

// The 10 low bits of v spread to every third bit.
__device__ unsigned spread_bits(unsigned v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

__global__ void morton_keys_kernel(const MasterState s, int n, double3 lo, double scale,
                                   unsigned* keys, int* order) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto cell = [&](double x, double l) { return unsigned(min(max((x - l) * scale, 0.0), 1023.0)); };
  keys[i] = spread_bits(cell(s.p[kX][i], lo.x)) | (spread_bits(cell(s.p[kY][i], lo.y)) << 1) |
            (spread_bits(cell(s.p[kZ][i], lo.z)) << 2);
  order[i] = i;
}

}  // namespace

void morton_order(const MasterState& s, int n, int* order, unsigned* keys, void* stream_ptr) {
  if (n <= 0) return;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  const auto policy = thrust::cuda::par.on(stream);
  double lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    const double* x = s.p[kX + d];
    const auto mm = thrust::minmax_element(policy, x, x + n);
    PW_CUDA(cudaMemcpyAsync(&lo[d], mm.first, sizeof(double), cudaMemcpyDeviceToHost, stream));
    PW_CUDA(cudaMemcpyAsync(&hi[d], mm.second, sizeof(double), cudaMemcpyDeviceToHost, stream));
  }
  PW_CUDA(cudaStreamSynchronize(stream));
  const double extent = std::max({hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-300});
  morton_keys_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(
      s, n, make_double3(lo[0], lo[1], lo[2]), 1024.0 / extent, keys, order);
  PW_CUDA_LAUNCH("gravity morton_keys_kernel");
  thrust::sort_by_key(policy, keys, keys + n, order);
}

}  // namespace pairwise::nbody::cuda
