// MPI_COMM_WORLD behind the Communicator interface (built when PAIRWISE_HAVE_MPI).
#include "parallel/mpi_communicator.hpp"

#include <climits>
#include <iostream>

#include "pairwise/error.hpp"

#ifdef PAIRWISE_HAVE_MPI
#include <mpi.h>
#endif

namespace pairwise::parallel {

#ifdef PAIRWISE_HAVE_MPI
namespace {

int checked_count(std::size_t bytes) {
  if (bytes > std::size_t(INT_MAX))
    throw Error("one MPI message of " + std::to_string(bytes) +
                " bytes exceeds MPI's 2 GiB count limit; use more ranks");
  return int(bytes);
}

class MpiWorld final : public Communicator {
 public:
  MpiWorld() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::string v(version, std::size_t(len));
    v = v.substr(0, v.find_first_of(",\n"));  // "Open MPI v4.1.4"
    transport_ = "MPI, " + v;
  }
  ~MpiWorld() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string transport() const override { return transport_; }
  void allreduce_sum(std::span<double> v) override {
    reduce(v.data(), v.size(), MPI_DOUBLE, MPI_SUM);
  }
  void allreduce_max(std::span<double> v) override {
    reduce(v.data(), v.size(), MPI_DOUBLE, MPI_MAX);
  }
  void allreduce_sum(std::span<std::int64_t> v) override {
    reduce(v.data(), v.size(), MPI_INT64_T, MPI_SUM);
  }
  void allreduce_max(std::span<std::int64_t> v) override {
    reduce(v.data(), v.size(), MPI_INT64_T, MPI_MAX);
  }
  void allgatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                  std::span<const std::size_t> recv_bytes) override {
    std::vector<int> counts(size_), displs(size_);
    std::size_t offset = 0;
    for (int r = 0; r < size_; ++r) {
      counts[r] = checked_count(recv_bytes[r]);
      displs[r] = checked_count(offset);
      offset += recv_bytes[r];
    }
    MPI_Allgatherv(send.data(), checked_count(send.size()), MPI_BYTE, recv.data(), counts.data(),
                   displs.data(), MPI_BYTE, MPI_COMM_WORLD);
  }
  void broadcast(std::span<std::byte> data, int root) override {
    MPI_Bcast(data.data(), checked_count(data.size()), MPI_BYTE, root, MPI_COMM_WORLD);
  }
  void sendrecv(std::span<const std::byte> send, int to, std::span<std::byte> recv,
                int from) override {
    MPI_Sendrecv(send.data(), checked_count(send.size()), MPI_BYTE, to, 0, recv.data(),
                 checked_count(recv.size()), MPI_BYTE, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  void barrier() override { MPI_Barrier(MPI_COMM_WORLD); }
  [[noreturn]] void abort_all(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);  // not reached: MPI_Abort does not return
  }

 private:
  void reduce(void* data, std::size_t n, MPI_Datatype type, MPI_Op op) {
    if (n == 0) return;
    MPI_Allreduce(MPI_IN_PLACE, data, checked_count(n), type, op, MPI_COMM_WORLD);
  }
  int rank_ = 0, size_ = 1;
  std::string transport_;
};

}  // namespace

bool mpi_compiled() {
  return true;
}

std::unique_ptr<Communicator> start_mpi(int& argc, char**& argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  return std::make_unique<MpiWorld>();
}

#else

bool mpi_compiled() {
  return false;
}
std::unique_ptr<Communicator> start_mpi(int&, char**&) {
  throw Error("this build has no MPI (PAIRWISE_MPI=OFF)");
}

#endif

}  // namespace pairwise::parallel
