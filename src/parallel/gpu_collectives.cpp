// NCCL loaded with dlopen, or MPI through host memory (see gpu_collectives.hpp). Only nccl.h's
// types are used at build time (the CUDA toolkit ships it); every NCCL function comes from dlsym,
// typed by decltype of its declaration, so a signature change in nccl.h is a compile error.
#include "parallel/gpu_collectives.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <type_traits>
#include <vector>

#include "pairwise/error.hpp"
#include "parallel/mpi_communicator.hpp"

#if defined(PAIRWISE_HAVE_CUDA)
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include "engine/device_buffer.cuh"
#endif
#if defined(PAIRWISE_HAVE_CUDA) && defined(PAIRWISE_HAVE_NCCL_HEADER)
#include <nccl.h>
#endif

namespace pairwise::parallel {

#if defined(PAIRWISE_HAVE_CUDA)
namespace {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw Error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Device → host, the host collective, host → device: correct everywhere, as fast as PCIe allows.
class HostStaged final : public GpuCollectives {
 public:
  explicit HostStaged(Communicator& comm) : comm_(comm) {}
  std::string name() const override { return "MPI through host memory"; }
  void allreduce_sum(double* d, std::size_t n, void* stream) override {
    std::vector<double> h(n);
    auto s = static_cast<cudaStream_t>(stream);
    check_cuda(cudaMemcpyAsync(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost, s),
               "allreduce (download)");
    check_cuda(cudaStreamSynchronize(s), "allreduce (download)");
    comm_.allreduce_sum(h);
    check_cuda(cudaMemcpyAsync(d, h.data(), n * sizeof(double), cudaMemcpyHostToDevice, s),
               "allreduce (upload)");
    check_cuda(cudaStreamSynchronize(s), "allreduce (upload)");
  }
  void allreduce_sum(std::int64_t* d, std::size_t n, void* stream) override {
    // In pieces of 2^26 values (512 MB): MPI counts are int, and the host copy stays bounded.
    constexpr std::size_t kPiece = std::size_t(1) << 26;
    auto s = static_cast<cudaStream_t>(stream);
    std::vector<std::int64_t> h(std::min(n, kPiece));
    for (std::size_t at = 0; at < n; at += kPiece) {
      const std::size_t m = std::min(kPiece, n - at);
      check_cuda(
          cudaMemcpyAsync(h.data(), d + at, m * sizeof(std::int64_t), cudaMemcpyDeviceToHost, s),
          "allreduce (download)");
      check_cuda(cudaStreamSynchronize(s), "allreduce (download)");
      comm_.allreduce_sum(std::span<std::int64_t>(h.data(), m));
      check_cuda(
          cudaMemcpyAsync(d + at, h.data(), m * sizeof(std::int64_t), cudaMemcpyHostToDevice, s),
          "allreduce (upload)");
      check_cuda(cudaStreamSynchronize(s), "allreduce (upload)");
    }
  }
  void allgather(const void* d_send, void* d_recv, std::size_t bytes, void* stream) override {
    const int p = comm_.size();
    auto s = static_cast<cudaStream_t>(stream);
    std::vector<std::byte> send(bytes), recv(bytes * std::size_t(p));
    check_cuda(cudaMemcpyAsync(send.data(), d_send, bytes, cudaMemcpyDeviceToHost, s),
               "allgather (download)");
    check_cuda(cudaStreamSynchronize(s), "allgather (download)");
    std::vector<std::size_t> counts(std::size_t(p), bytes);
    comm_.allgatherv(send, recv, counts);
    check_cuda(cudaMemcpyAsync(d_recv, recv.data(), recv.size(), cudaMemcpyHostToDevice, s),
               "allgather (upload)");
    check_cuda(cudaStreamSynchronize(s), "allgather (upload)");
  }
  void sendrecv(const void* d_send, std::size_t send_bytes, int to, void* d_recv,
                std::size_t recv_bytes, int from, void* stream) override {
    auto s = static_cast<cudaStream_t>(stream);
    send_host_.reserve(send_bytes), recv_host_.reserve(recv_bytes);
    std::byte* send = send_host_.as<std::byte>();
    std::byte* recv = recv_host_.as<std::byte>();
    if (send_bytes) {
      check_cuda(cudaMemcpyAsync(send, d_send, send_bytes, cudaMemcpyDeviceToHost, s),
                 "sendrecv (download)");
      check_cuda(cudaStreamSynchronize(s), "sendrecv (download)");
    }
    comm_.sendrecv(std::span<const std::byte>(send, send_bytes), to,
                   std::span<std::byte>(recv, recv_bytes), from);
    if (recv_bytes) {
      check_cuda(cudaMemcpyAsync(d_recv, recv, recv_bytes, cudaMemcpyHostToDevice, s),
                 "sendrecv (upload)");
      check_cuda(cudaStreamSynchronize(s), "sendrecv (upload)");
    }
  }

 private:
  Communicator& comm_;
  // sendrecv's staging, grown on demand: pinned copies run at the link's speed; pageable ones go
  // through the driver's bounce buffer, ~3× slower for the md ghosts.
  engine::PinnedBuffer send_host_, recv_host_;
};

std::string& nccl_missing_reason() {
  static std::string why = "not tried";
  return why;
}

#if defined(PAIRWISE_HAVE_NCCL_HEADER) && defined(PAIRWISE_HAVE_MPI)
// Empty when every rank drives a GPU of its own; else which GPU two ranks share ("GPU
// 0000:19:00.0 of host gpu-7 has ranks 0 and 1"). NCCL refuses two ranks on one GPU (more ranks
// than GPUs: testing the decomposition on one GPU), so they take the MPI fallback.
std::string shared_gpu(Communicator& comm) {
  struct Where {
    char host[64] = {};
    char bus[32] = {};
  } mine;
  ::gethostname(mine.host, sizeof mine.host - 1);
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetPCIBusId(mine.bus, sizeof mine.bus - 1, device), "cudaDeviceGetPCIBusId");
  const std::vector<Where> all = allgather_vectors(comm, std::vector<Where>{mine});
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = a + 1; b < all.size(); ++b)
      if (std::strcmp(all[a].host, all[b].host) == 0 && std::strcmp(all[a].bus, all[b].bus) == 0)
        return "GPU " + std::string(all[a].bus) + " of host " + all[a].host + " has ranks " +
               std::to_string(a) + " and " + std::to_string(b);
  return {};
}

// The NCCL entry points this transport uses, resolved from libnccl.so.2.
struct NcclApi {
  void* handle = nullptr;
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&ncclCommDestroy) comm_destroy = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclAllGather) all_gather = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;

  // Empty on success, else why not.
  std::string load() {
    handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return dlerror();
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
      return fn != nullptr;
    };
    if (!sym(get_version, "ncclGetVersion") || !sym(get_unique_id, "ncclGetUniqueId") ||
        !sym(comm_init_rank, "ncclCommInitRank") || !sym(comm_destroy, "ncclCommDestroy") ||
        !sym(all_reduce, "ncclAllReduce") || !sym(all_gather, "ncclAllGather") ||
        !sym(error_string, "ncclGetErrorString") || !sym(send, "ncclSend") ||
        !sym(recv, "ncclRecv") || !sym(group_start, "ncclGroupStart") ||
        !sym(group_end, "ncclGroupEnd"))
      return "libnccl.so.2 lacks an entry point (" + std::string(dlerror()) + ")";
    return {};
  }
};

class Nccl final : public GpuCollectives {
 public:
  Nccl(Communicator& comm, NcclApi api) : api_(api) {
    int version = 0;
    check(api_.get_version(&version), "ncclGetVersion");
    version_ = std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
               std::to_string(version % 100);
    ncclUniqueId id{};
    if (comm.rank() == 0) check(api_.get_unique_id(&id), "ncclGetUniqueId");
    comm.broadcast(std::as_writable_bytes(std::span<ncclUniqueId>(&id, 1)), 0);
    check(api_.comm_init_rank(&comm_, comm.size(), id, comm.rank()), "ncclCommInitRank");
  }
  ~Nccl() override {
    if (comm_) api_.comm_destroy(comm_);
  }
  std::string name() const override { return "NCCL " + version_; }
  void allreduce_sum(double* d, std::size_t n, void* stream) override {
    check(api_.all_reduce(d, d, n, ncclFloat64, ncclSum, comm_, static_cast<cudaStream_t>(stream)),
          "ncclAllReduce");
  }
  void allreduce_sum(std::int64_t* d, std::size_t n, void* stream) override {
    check(api_.all_reduce(d, d, n, ncclInt64, ncclSum, comm_, static_cast<cudaStream_t>(stream)),
          "ncclAllReduce");
  }
  void allgather(const void* d_send, void* d_recv, std::size_t bytes, void* stream) override {
    check(
        api_.all_gather(d_send, d_recv, bytes, ncclUint8, comm_, static_cast<cudaStream_t>(stream)),
        "ncclAllGather");
  }
  void sendrecv(const void* d_send, std::size_t send_bytes, int to, void* d_recv,
                std::size_t recv_bytes, int from, void* stream) override {
    sendrecv_async(d_send, send_bytes, to, d_recv, recv_bytes, from, stream);
    check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "sendrecv (NCCL)");
  }
  void sendrecv_async(const void* d_send, std::size_t send_bytes, int to, void* d_recv,
                      std::size_t recv_bytes, int from, void* stream) override {
    auto s = static_cast<cudaStream_t>(stream);
    check(api_.group_start(), "ncclGroupStart");
    if (send_bytes) check(api_.send(d_send, send_bytes, ncclUint8, to, comm_, s), "ncclSend");
    if (recv_bytes) check(api_.recv(d_recv, recv_bytes, ncclUint8, from, comm_, s), "ncclRecv");
    check(api_.group_end(), "ncclGroupEnd");
  }

 private:
  void check(ncclResult_t r, const char* what) const {
    if (r != ncclSuccess) throw Error(std::string(what) + " failed: " + api_.error_string(r));
  }
  NcclApi api_;
  ncclComm_t comm_ = nullptr;
  std::string version_;
};
#endif

}  // namespace

std::unique_ptr<GpuCollectives> make_gpu_collectives(Communicator& comm) {
  if (comm.size() == 1) return std::make_unique<HostStaged>(comm);
#if defined(PAIRWISE_HAVE_NCCL_HEADER) && defined(PAIRWISE_HAVE_MPI)
  // NVLink multicast (NVLS) stays off unless the user turns it on: on shared GPU hosts a program
  // using it can put the host's GPUs out of service (docs/distributed.md).
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  // The connections between the GPUs made in ncclCommInitRank, not lazily at each kind of
  // operation's first call (NCCL >= 2.22's default), so that a run's first all-gather or
  // send/recv costs what every later one does (measured: the first 131 MB all-gather of a potmap
  // on 2 H200s took ~170 ms with lazy connections). The user's setting wins.
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  NcclApi api;
  const std::string shared = shared_gpu(comm);  // the same on every rank
  std::string why = shared.empty() ? api.load() : shared + ": NCCL needs one GPU per rank";
  // Every rank must agree, or the ranks that found NCCL would wait in ncclCommInitRank for the
  // others: take NCCL only if it loaded everywhere.
  std::int64_t failed = why.empty() ? 0 : 1;
  comm.allreduce_max(std::span<std::int64_t>(&failed, 1));
  if (!failed) {
    nccl_missing_reason().clear();
    return std::make_unique<Nccl>(comm, api);
  }
  nccl_missing_reason() = why.empty() ? "missing on another rank" : why;
#else
  nccl_missing_reason() = "built without nccl.h";
#endif
  if (comm.rank() == 0)
    std::cerr << "note: NCCL not loaded (" << nccl_missing_reason()
              << "); GPU collectives fall back to MPI through host memory\n";
  return std::make_unique<HostStaged>(comm);
}

std::string gpu_transport_note() {
  const std::string& why = nccl_missing_reason();
  if (why.empty()) return "NCCL";
  return "MPI through host memory (NCCL " + why + ")";
}

#else  // no CUDA backend

std::unique_ptr<GpuCollectives> make_gpu_collectives(Communicator&) {
  throw Error("GPU collectives need the CUDA backend (this build has none)");
}
std::string gpu_transport_note() {
  return "none (no CUDA backend)";
}

#endif

}  // namespace pairwise::parallel
