// Collectives on device memory for the CUDA backend, one GPU per rank: NCCL when libnccl.so.2
// loads at run time (dlopen: the GPU machine has NCCL in its system library path, the binary does
// not link it), else MPI through host memory, said once in the log ("GPU collectives: MPI through
// host memory (NCCL not loaded: libnccl.so.2: cannot open shared object file)").
// Pointers are device pointers; `stream` is a cudaStream_t (void* keeps this header g++-only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "parallel/communicator.hpp"

namespace pairwise::parallel {

class GpuCollectives {
 public:
  virtual ~GpuCollectives() = default;
  virtual std::string name() const = 0;  // "NCCL 2.28.3" or "MPI through host memory"
  // In place: sum over ranks of n doubles at `device_values`.
  virtual void allreduce_sum(double* device_values, std::size_t n, void* stream) = 0;
  // In place: the sum over ranks of n int64 at `device_values` (two's complement: exact while the
  // total fits, e.g. the words of an exact fixed-point accumulator, engine/pair_tiles.cuh).
  virtual void allreduce_sum(std::int64_t* device_values, std::size_t n, void* stream) = 0;
  // Rank r's `bytes_per_rank` bytes at `device_send` land at device_recv + r·bytes_per_rank on
  // every rank (equal blocks: callers pad to the largest, as NCCL requires).
  virtual void allgather(const void* device_send, void* device_recv, std::size_t bytes_per_rank,
                         void* stream) = 0;
  // Point to point: send_bytes at device_send go to rank `to` while recv_bytes from rank `from`
  // land at device_recv (the md domain engine's ghost and migration exchanges). Both sides must
  // agree on the sizes (exchange them first); either may be 0. Returns when the receive is done.
  virtual void sendrecv(const void* device_send, std::size_t send_bytes, int to, void* device_recv,
                        std::size_t recv_bytes, int from, void* stream) = 0;
  // As sendrecv, but may return before the receive has landed: the transfer is ordered on
  // `stream` (work queued there after it sees the data) and the host does not wait (NCCL); the
  // MPI fallback stages through host memory and returns when done, as sendrecv.
  virtual void sendrecv_async(const void* device_send, std::size_t send_bytes, int to,
                              void* device_recv, std::size_t recv_bytes, int from, void* stream) {
    sendrecv(device_send, send_bytes, to, device_recv, recv_bytes, from, stream);
  }
};

// Needs the CUDA backend; throws pairwise::Error in a build without it. With one rank, returns
// host-MPI collectives that are copies (no NCCL needed). Call it with the rank's GPU current
// (cudaSetDevice): ranks that share a GPU (more ranks than GPUs on a node) get the MPI fallback,
// since NCCL refuses two ranks on one GPU.
std::unique_ptr<GpuCollectives> make_gpu_collectives(Communicator& comm);

}  // namespace pairwise::parallel
