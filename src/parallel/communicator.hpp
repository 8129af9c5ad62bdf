// Ranks and host messages (DESIGN.md principle 9): a workload's driver talks to world() for
// anything that crosses ranks. With one rank (no mpirun, or a build without MPI) world() is a
// SingleRank communicator whose collectives are copies or nothing, so one process costs nothing
// and needs no MPI at run time. Under mpirun (an MPI build) it is MPI_COMM_WORLD.
//
// Errors: a rank that throws prints "error: <what>, <where> (rank r of P)" and calls
// abort_all(), which is MPI_Abort: every rank exits non-zero, none waits forever in a collective.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace pairwise::parallel {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "single process" or "MPI (Open MPI v4.1.4)".
  virtual std::string transport() const = 0;

  // In place over every rank: element-wise sum / max, the result identical on every rank.
  virtual void allreduce_sum(std::span<double> values) = 0;
  virtual void allreduce_max(std::span<double> values) = 0;
  virtual void allreduce_sum(std::span<std::int64_t> values) = 0;
  virtual void allreduce_max(std::span<std::int64_t> values) = 0;
  // Every rank's `send` bytes, in rank order, into `recv` (recv_bytes[r] from rank r; the sum is
  // recv's size). Every rank ends with the same `recv`.
  virtual void allgatherv(std::span<const std::byte> send, std::span<std::byte> recv,
                          std::span<const std::size_t> recv_bytes) = 0;
  virtual void broadcast(std::span<std::byte> data, int root) = 0;
  // Sends `send` to rank `to` and receives from rank `from` (sizes agreed by the caller; a
  // receive of unknown size goes through sendrecv_sizes first). Self-messages are copies.
  virtual void sendrecv(std::span<const std::byte> send, int to, std::span<std::byte> recv,
                        int from) = 0;
  virtual void barrier() = 0;
  // Ends every rank with `code` (MPI_Abort); with one rank, std::exit(code).
  [[noreturn]] virtual void abort_all(int code) = 0;
};

// The communicator of this process (SingleRank until Session starts MPI).
Communicator& world();

// One per process, in main(): starts MPI when the process was launched by mpirun (Open MPI,
// MPICH/PMI or PMIx environment) in an MPI build; otherwise does nothing. Ranks other than 0 have
// their std::cout silenced (rank 0 prints the logs) and write no files (io::AtomicFile).
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
};

// True on the rank that writes output files and prints logs (rank 0).
inline bool is_writer() {
  return world().rank() == 0;
}

// "3 ranks (MPI (Open MPI v4.1.4)), GPUs: 0, GPU collectives: none" — for the run logs; empty
// with one rank, so single-process logs are unchanged.
std::string describe_ranks(int gpus_per_rank = 0);

// Prints "error: <message>" on stderr; with many ranks adds " (rank r of P)" and ends every rank
// with exit code 1 (MPI_Abort). With one rank it returns: the caller exits 1 as before.
void fail_all(const std::string& message);

// True on every rank when `flag` is true on any rank (an all-reduce; with one rank, `flag`). For
// decisions that every rank must take at the same step, e.g. stopping after a signal (mpirun
// forwards SIGINT/SIGTERM to every rank, but each may notice it at a different step): call it at
// the same points on every rank, as the workload drivers' diagnostic intervals are.
bool any_rank(bool flag);

// While one is alive on this thread, a workload entry point that splits its work across ranks
// does its rank-local part instead (the slab of a potential map calls compute_map again).
class RankLocalWork {
 public:
  RankLocalWork();
  ~RankLocalWork();
  RankLocalWork(const RankLocalWork&) = delete;
  RankLocalWork& operator=(const RankLocalWork&) = delete;
};
// True when work should be split across ranks here: more than one rank and no RankLocalWork.
bool split_across_ranks();

// ---- helpers shared by the workloads ------------------------------------------------------

// The contiguous block [begin, end) of n items that rank r of p owns: the first n % p ranks get
// one more (7 items on 3 ranks: 3, 2, 2). A rank may own nothing (n < p).
struct Block {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};
Block block_of(std::size_t n, int rank, int ranks);

// Each rank has filled its block_of(n / items_per, ...) rows of `full` (items_per values per row);
// afterwards every rank holds every row. T is trivially copyable.
template <class T>
void allgather_blocks(Communicator& comm, std::span<T> full, std::size_t values_per_row = 1) {
  const int p = comm.size();
  if (p == 1) return;
  const std::size_t rows = full.size() / values_per_row;
  std::vector<std::size_t> bytes(p);
  for (int r = 0; r < p; ++r) bytes[r] = block_of(rows, r, p).size() * values_per_row * sizeof(T);
  const Block mine = block_of(rows, comm.rank(), p);
  std::vector<std::byte> send(bytes[comm.rank()]);
  if (!send.empty())  // a rank may own no rows (memcpy from/to null is undefined behaviour)
    std::memcpy(send.data(), full.data() + mine.begin * values_per_row, send.size());
  comm.allgatherv(send, std::as_writable_bytes(full), bytes);
}

// Every rank's vector, concatenated in rank order (sizes may differ, also be zero).
template <class T>
std::vector<T> allgather_vectors(Communicator& comm, const std::vector<T>& mine) {
  const int p = comm.size();
  if (p == 1) return mine;
  std::vector<std::int64_t> counts(p, 0);
  counts[comm.rank()] = std::int64_t(mine.size());
  comm.allreduce_sum(counts);
  std::vector<std::size_t> bytes(p);
  std::size_t total = 0;
  for (int r = 0; r < p; ++r) total += std::size_t(counts[r]);
  for (int r = 0; r < p; ++r) bytes[r] = std::size_t(counts[r]) * sizeof(T);
  std::vector<T> all(total);
  comm.allgatherv(std::as_bytes(std::span<const T>(mine)),
                  std::as_writable_bytes(std::span<T>(all)), bytes);
  return all;
}

// Sends `mine` to rank `to` and returns what rank `from` sent (sizes exchanged first).
template <class T>
std::vector<T> exchange(Communicator& comm, const std::vector<T>& mine, int to, int from) {
  std::int64_t n_send = std::int64_t(mine.size()), n_recv = 0;
  comm.sendrecv(std::as_bytes(std::span<const std::int64_t>(&n_send, 1)), to,
                std::as_writable_bytes(std::span<std::int64_t>(&n_recv, 1)), from);
  std::vector<T> got(static_cast<std::size_t>(n_recv));
  comm.sendrecv(std::as_bytes(std::span<const T>(mine)), to,
                std::as_writable_bytes(std::span<T>(got)), from);
  return got;
}

// Used by tests: replaces world() (nullptr restores the default).
void set_world_for_testing(std::unique_ptr<Communicator> comm);

}  // namespace pairwise::parallel
