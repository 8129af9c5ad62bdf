// The single-process communicator, the world() registry, the session (MPI start and end) and the
// error path that ends every rank.
#include "parallel/communicator.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <streambuf>
#include <thread>

#include "pairwise/error.hpp"
#include "parallel/mpi_communicator.hpp"

namespace pairwise::parallel {
namespace {

// One rank: every collective is the identity (or a copy), so a process without mpirun pays
// nothing and needs no MPI library at run time.
class SingleRank final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string transport() const override { return "single process"; }
  void allreduce_sum(std::span<double>) override {}
  void allreduce_max(std::span<double>) override {}
  void allreduce_sum(std::span<std::int64_t>) override {}
  void allreduce_max(std::span<std::int64_t>) override {}
  void allgatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                  std::span<const std::size_t>) override {
    if (send.data() != recv.data()) std::copy(send.begin(), send.end(), recv.begin());
  }
  void broadcast(std::span<std::byte>, int) override {}
  void sendrecv(std::span<const std::byte> send, int, std::span<std::byte> recv, int) override {
    std::copy(send.begin(), send.end(), recv.begin());
  }
  void barrier() override {}
  [[noreturn]] void abort_all(int code) override { std::exit(code); }
};

std::unique_ptr<Communicator>& slot() {
  static std::unique_ptr<Communicator> comm = std::make_unique<SingleRank>();
  return comm;
}

// Discards everything written to it (std::cout of ranks other than 0).
class NullBuffer final : public std::streambuf {
 protected:
  int overflow(int c) override { return c == EOF ? 0 : c; }
  std::streamsize xsputn(const char*, std::streamsize n) override { return n; }
};

bool launched_by_mpirun() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(var)) return true;
  return false;
}

// One GPU per rank: before the CUDA runtime starts, a rank sees only the GPU of its node-local
// rank (modulo the node's GPUs, counted from the driver's /proc entries), unless the launcher
// or the user set CUDA_VISIBLE_DEVICES already. So `--device 0`, every workload's default, is a
// different GPU on each rank of a node.
void pin_one_gpu_per_rank() {
  if (std::getenv("CUDA_VISIBLE_DEVICES")) return;
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!local) local = std::getenv("MPI_LOCALRANKID");  // MPICH
  if (!local) return;
  std::error_code ec;
  int gpus = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/driver/nvidia/gpus", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++gpus;
  if (gpus == 0) return;
  const std::string device = std::to_string(std::atoi(local) % gpus);
  setenv("CUDA_VISIBLE_DEVICES", device.c_str(), 1);
}

std::streambuf* saved_cout = nullptr;
bool session_started_mpi = false;

// One write(2) for the whole line: std::cerr is unbuffered, so each << is a write of its own, and
// mpirun interleaves other ranks' output between them (CI saw "error: # backend cpu ... (rank 2 of
// # nodes: ... 3)"). A pipe keeps a write of up to PIPE_BUF (4096) bytes in one piece.
void write_whole_line_to_stderr(const std::string& line) {
  std::cout.flush();
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t written = ::write(STDERR_FILENO, data, left);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return;  // stderr is gone: nothing else can report it
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

}  // namespace

Communicator& world() {
  return *slot();
}

void set_world_for_testing(std::unique_ptr<Communicator> comm) {
  slot() = comm ? std::move(comm) : std::make_unique<SingleRank>();
}

Session::Session(int& argc, char**& argv) {
  if (!launched_by_mpirun()) return;
  if (!mpi_compiled()) {
    // A build without MPI under mpirun would run P independent copies that overwrite each
    // other's files: refuse.
    std::cerr << "error: this pairwise was built without MPI (PAIRWISE_MPI=OFF), but it was "
                 "launched by mpirun; rebuild with libopenmpi-dev installed\n";
    std::exit(1);
  }
  pin_one_gpu_per_rank();
  slot() = start_mpi(argc, argv);
  session_started_mpi = true;
  if (world().rank() != 0) {
    static NullBuffer null_buffer;
    saved_cout = std::cout.rdbuf(&null_buffer);
  }
}

Session::~Session() {
  if (saved_cout) std::cout.rdbuf(saved_cout);
  if (session_started_mpi) {
    slot() = std::make_unique<SingleRank>();  // its destructor ends MPI (MPI_Finalize)
  }
}

std::string describe_ranks(int gpus_per_rank) {
  Communicator& comm = world();
  if (comm.size() == 1) return {};
  std::string s = std::to_string(comm.size()) + " ranks (" + comm.transport() +
                  "), GPUs: " + std::to_string(gpus_per_rank * comm.size());
  s += gpus_per_rank > 0 ? ", GPU collectives: " + gpu_transport_note() : ", host transfers: MPI";
  return s;
}

void fail_all(const std::string& message) {
  Communicator& comm = world();
  std::string line = "error: " + message;
  if (comm.size() > 1) {
    line += " (rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size()) + ")";
  }
  line += "\n";
  write_whole_line_to_stderr(line);
  if (comm.size() > 1) {
    // mpirun forwards a rank's stderr asynchronously and MPI_Abort kills the job at once: give
    // the message a moment to reach the user before it does.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    comm.abort_all(1);
  }
}

bool any_rank(bool flag) {
  Communicator& comm = world();
  if (comm.size() == 1) return flag;
  std::int64_t value = flag ? 1 : 0;
  comm.allreduce_max(std::span<std::int64_t>(&value, 1));
  return value != 0;
}

namespace {
thread_local int rank_local_depth = 0;
}  // namespace
RankLocalWork::RankLocalWork() {
  ++rank_local_depth;
}
RankLocalWork::~RankLocalWork() {
  --rank_local_depth;
}
bool split_across_ranks() {
  return world().size() > 1 && rank_local_depth == 0;
}

Block block_of(std::size_t n, int rank, int ranks) {
  const std::size_t p = std::size_t(ranks), r = std::size_t(rank);
  const std::size_t base = n / p, extra = n % p;
  Block b;
  b.begin = r * base + std::min(r, extra);
  b.end = b.begin + base + (r < extra ? 1 : 0);
  return b;
}

}  // namespace pairwise::parallel
