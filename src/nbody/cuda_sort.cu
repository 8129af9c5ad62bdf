// A spatial order of the particles for mixed precision's near/far kernels (the Newton-3 tiles,
// cuda_newton3_kernel.cuh, and the split path's source groups of block steps, cuda_gravity.cu):
// 30-bit Morton keys (10 bits per axis) of the master positions in their bounding box, sorted with
// thrust's radix sort; and a block step's listed targets in that order (cub's radix sort of their
// entries). The order affects accuracy and speed only, never correctness.
#include <cuda_runtime.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>

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

__global__ void inverse_kernel(const int* order, int n, int* inverse) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) inverse[order[k]] = k;
}

// keys[k] = inverse[active[k]] (the target's entry in the spatial order), values[k] = k.
__global__ void target_keys_kernel(const int* active, int n_a, const int* inverse, int* keys,
                                   int* values) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n_a) return;
  keys[k] = inverse[active[k]];
  values[k] = k;
}

// Bits of the sort keys for entries below n.
int key_bits(int n) {
  int bits = 1;
  while (bits < 31 && (1 << bits) < n) ++bits;
  return bits;
}

std::size_t radix_sort_bytes(int n_a) {
  std::size_t bytes = 0;
  PW_CUDA(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr),
      static_cast<const int*>(nullptr), static_cast<int*>(nullptr), n_a, 0, 31));
  return bytes;
}

std::size_t align_up(std::size_t bytes) {
  return (bytes + 255) / 256 * 256;
}

}  // namespace

std::size_t sorted_targets_bytes(int n_a) {
  return 2 * align_up(sizeof(int) * std::max(n_a, 1)) + align_up(radix_sort_bytes(n_a));
}

void sorted_targets(const int* active, int n_a, const int* inverse, int n, int* entries, int* slot,
                    void* scratch, void* stream_ptr) {
  if (n_a <= 0) return;
  const auto stream = static_cast<cudaStream_t>(stream_ptr);
  char* const base = static_cast<char*>(scratch);
  int* const keys = reinterpret_cast<int*>(base);
  int* const values = reinterpret_cast<int*>(base + align_up(sizeof(int) * n_a));
  void* const temp = base + 2 * align_up(sizeof(int) * n_a);
  target_keys_kernel<<<unsigned((n_a + 255) / 256), 256, 0, stream>>>(active, n_a, inverse, keys,
                                                                      values);
  PW_CUDA_LAUNCH("gravity target_keys_kernel");
  std::size_t temp_bytes = radix_sort_bytes(n_a);
  PW_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, entries, values, slot, n_a, 0,
                                          key_bits(n), stream));
}

void morton_order(const MasterState& s, int n, int* order, int* inverse, unsigned* keys,
                  void* stream_ptr) {
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
  if (inverse) {
    inverse_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(order, n, inverse);
    PW_CUDA_LAUNCH("gravity inverse_kernel");
  }
}

}  // namespace pairwise::nbody::cuda
