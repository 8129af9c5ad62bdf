#include "md/rand48.hpp"

#include <omp.h>
#include <chrono>

#include "pairwise/error.hpp"
#include "pairwise/random/rand48.hpp"

namespace pairwise::md {

std::vector<std::uint64_t> rand48_states_cpu(std::uint64_t seed, std::size_t count) {
  std::vector<std::uint64_t> out(count);
  const std::uint64_t x0 = random::rand48_seed_state(seed);
#pragma omp parallel
  {
    const std::size_t t = std::size_t(omp_get_thread_num()),
                      nt = std::size_t(omp_get_num_threads());
    const std::size_t begin = count * t / nt, end = count * (t + 1) / nt;
    if (begin < end) {
      // Leap to X_begin, then step sequentially: a contiguous block per thread.
      std::uint64_t x = random::rand48_next(x0, random::rand48_leap(begin));
      for (std::size_t k = begin; k < end; ++k) {
        x = random::rand48_next(x);
        out[k] = x;
      }
    }
  }
  return out;
}

#ifndef PAIRWISE_HAVE_CUDA
std::vector<std::uint64_t> rand48_states_cuda(std::uint64_t, std::size_t, double*) {
  throw Error("this build has no CUDA backend", "--backend cuda");
}
#endif

std::vector<std::uint64_t> rand48_states(BackendKind backend, std::uint64_t seed, std::size_t count,
                                         double* seconds) {
  if (backend == BackendKind::cuda) return rand48_states_cuda(seed, count, seconds);
  const auto t0 = std::chrono::steady_clock::now();
  auto out = rand48_states_cpu(seed, count);
  if (seconds)
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace pairwise::md
