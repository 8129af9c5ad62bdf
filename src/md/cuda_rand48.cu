// rand48 on the GPU: thread t of T computes draws t, t + T, t + 2T, ... (van Meel et al.): it
// starts at X_{t+1} (one leap by t + 1 from the seed state) and leaps by T (A = a^T, C = c (a^T −
// 1)/(a − 1) mod 2^48), so consecutive threads write consecutive draws (coalesced stores).
#include <cuda_runtime.h>

#include <string>

#include "core/cuda_check.cuh"
#include "md/rand48.hpp"
#include "pairwise/random/rand48.hpp"

namespace pairwise::md {
namespace {

__global__ void rand48_kernel(std::uint64_t x0, std::size_t count, random::Rand48Leap stride,
                              std::uint64_t* __restrict__ out) {
  const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  if (t >= count) return;
  std::uint64_t x = random::rand48_next(x0, random::rand48_leap(t + 1));
  for (std::size_t k = t; k < count; k += threads) {
    out[k] = x;
    x = random::rand48_next(x, stride);
  }
}

}  // namespace

std::vector<std::uint64_t> rand48_states_cuda(std::uint64_t seed, std::size_t count,
                                              double* kernel_seconds) {
  std::string why;
  if (cuda_devices(&why).empty()) throw Error("no usable CUDA device: " + why, "--backend cuda");
  std::vector<std::uint64_t> out(count);
  if (count == 0) return out;
  std::uint64_t* d = nullptr;
  PW_CUDA(cudaMalloc(&d, count * sizeof(std::uint64_t)));
  int sms = 0;
  PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int block = 256;
  const std::size_t want = std::min<std::size_t>(count, std::size_t(sms) * 2048);
  const int grid = int((want + block - 1) / block);
  const std::size_t threads = std::size_t(grid) * block;
  const auto stride = random::rand48_leap(threads);
  cudaEvent_t a, b;
  PW_CUDA(cudaEventCreate(&a));
  PW_CUDA(cudaEventCreate(&b));
  rand48_kernel<<<grid, block>>>(random::rand48_seed_state(seed), count, stride, d);  // warm-up
  PW_CUDA_LAUNCH("rand48_kernel");
  PW_CUDA(cudaEventRecord(a));
  rand48_kernel<<<grid, block>>>(random::rand48_seed_state(seed), count, stride, d);
  PW_CUDA_LAUNCH("rand48_kernel");
  PW_CUDA(cudaEventRecord(b));
  PW_CUDA(cudaEventSynchronize(b));
  float ms = 0;
  PW_CUDA(cudaEventElapsedTime(&ms, a, b));
  if (kernel_seconds) *kernel_seconds = ms * 1e-3;
  PW_CUDA(cudaMemcpy(out.data(), d, count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
  cudaFree(d);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return out;
}

}  // namespace pairwise::md
