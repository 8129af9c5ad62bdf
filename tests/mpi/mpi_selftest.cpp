// The communicator's collectives and helpers on P ranks (run by ctest under mpirun -np 2 and 3):
// block_of, allgather_blocks, allgather_vectors (a rank with nothing), exchange (a ring),
// allreduce sum and max. Prints "ok" on rank 0 and exits 0, or names the first failure and exits 1.
#include <cstdio>
#include <numeric>

#include "pairwise/backend.hpp"
#include "parallel/communicator.hpp"
#include "parallel/gpu_collectives.hpp"

#ifdef PAIRWISE_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace {
int failures = 0;
void check(bool ok, const char* what, int rank) {
  if (!ok) {
    std::fprintf(stderr, "rank %d: FAILED %s\n", rank, what);
    ++failures;
  }
}
}  // namespace

int main(int argc, char** argv) {
  using namespace pairwise::parallel;
  Session session(argc, argv);
  Communicator& comm = world();
  const int p = comm.size(), r = comm.rank();
  check(p > 1, "launched by mpirun with more than one rank", r);

  // 7 items on 3 ranks: 3, 2, 2; the blocks tile [0, 7).
  std::size_t covered = 0;
  for (int q = 0; q < p; ++q) {
    const Block b = block_of(7, q, p);
    check(b.begin == covered, "blocks are contiguous", r);
    covered = b.end;
  }
  check(covered == 7, "blocks cover every item", r);
  if (p == 3) check(block_of(7, 0, 3).size() == 3 && block_of(7, 2, 3).size() == 2, "7 on 3", r);
  check(block_of(1, p - 1, p).size() == 0, "a rank may own nothing", r);

  // Each rank fills its block of rows with (row, -row); every rank sees every row.
  std::vector<double> rows(2 * 11, 0.0);
  const Block mine = block_of(11, r, p);
  for (std::size_t i = mine.begin; i < mine.end; ++i)
    rows[2 * i] = double(i), rows[2 * i + 1] = -double(i);
  allgather_blocks(comm, std::span<double>(rows), 2);
  for (std::size_t i = 0; i < 11; ++i)
    check(rows[2 * i] == double(i) && rows[2 * i + 1] == -double(i), "allgather_blocks", r);

  // Rank q contributes q copies of q (rank 0: nothing).
  const std::vector<int> ours(std::size_t(r), r);
  const std::vector<int> all = allgather_vectors(comm, ours);
  std::vector<int> expected;
  for (int q = 0; q < p; ++q) expected.insert(expected.end(), std::size_t(q), q);
  check(all == expected, "allgather_vectors", r);

  // A ring: send r+1 copies of r to the right, receive from the left.
  const std::vector<int> got =
      exchange(comm, std::vector<int>(std::size_t(r + 1), r), (r + 1) % p, (r + p - 1) % p);
  const int left = (r + p - 1) % p;
  check(got == std::vector<int>(std::size_t(left + 1), left), "exchange", r);

  double sums[2] = {double(r), 1.0};
  comm.allreduce_sum(std::span<double>(sums, 2));
  check(sums[0] == double(p * (p - 1) / 2) && sums[1] == double(p), "allreduce_sum", r);
  std::int64_t top = r;
  comm.allreduce_max(std::span<std::int64_t>(&top, 1));
  check(top == p - 1, "allreduce_max", r);

#ifdef PAIRWISE_HAVE_CUDA
  // GPU collectives (NCCL when libnccl.so.2 loads, else MPI through host memory) on device
  // memory, when every rank has a GPU; else said and skipped.
  std::int64_t no_gpu = pairwise::cuda_devices().empty() ? 1 : 0;
  comm.allreduce_max(std::span<std::int64_t>(&no_gpu, 1));
  if (!no_gpu) {
    auto gpu = make_gpu_collectives(comm);
    double* d = nullptr;
    cudaMalloc(&d, (2 + std::size_t(p)) * sizeof(double));
    const double mine_values[2] = {double(r + 1), 0.5};
    cudaMemcpy(d, mine_values, sizeof mine_values, cudaMemcpyHostToDevice);
    gpu->allreduce_sum(d, 2, nullptr);
    const double one = double(r);
    cudaMemcpy(d + 2, &one, sizeof one, cudaMemcpyHostToDevice);
    double* gathered = nullptr;
    cudaMalloc(&gathered, std::size_t(p) * sizeof(double));
    gpu->allgather(d + 2, gathered, sizeof(double), nullptr);
    cudaDeviceSynchronize();
    double h[2];
    std::vector<double> g(static_cast<std::size_t>(p));
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(g.data(), gathered, g.size() * sizeof(double), cudaMemcpyDeviceToHost);
    check(h[0] == double(p * (p + 1) / 2) && h[1] == 0.5 * p, "GPU allreduce_sum", r);
    for (int q = 0; q < p; ++q) check(g[std::size_t(q)] == double(q), "GPU allgather", r);
    // Integer sums (the exact words of nbody's shared Newton-3 evaluations): negative values and
    // magnitudes beyond a double's 53 bits stay exact.
    std::int64_t* words = nullptr;
    cudaMalloc(&words, 2 * sizeof(std::int64_t));
    const std::int64_t mine_words[2] = {(std::int64_t(1) << 60) + r, -3 - r};
    cudaMemcpy(words, mine_words, sizeof mine_words, cudaMemcpyHostToDevice);
    gpu->allreduce_sum(words, 2, nullptr);
    cudaDeviceSynchronize();
    std::int64_t summed[2];
    cudaMemcpy(summed, words, sizeof summed, cudaMemcpyDeviceToHost);
    check(summed[0] == p * (std::int64_t(1) << 60) + p * (p - 1) / 2 &&
              summed[1] == -3 * p - p * (p - 1) / 2,
          "GPU allreduce_sum (int64)", r);
    cudaFree(words);
    if (r == 0) std::printf("GPU collectives: %s\n", gpu->name().c_str());
    cudaFree(d), cudaFree(gathered);
  } else if (r == 0) {
    std::printf("GPU collectives: skipped (no GPU on every rank)\n");
  }
#endif

  check(any_rank(r == p - 1) && !any_rank(false), "any_rank", r);

  std::int64_t bad = failures;
  comm.allreduce_sum(std::span<std::int64_t>(&bad, 1));
  if (r == 0 && bad == 0) std::printf("ok: %d ranks\n", p);
  return bad == 0 ? 0 : 1;
}
