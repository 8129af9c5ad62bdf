// The Nyström product across ranks: rank r computes the rows of its block (parallel::block_of)
// with its backend's kernel sum, then every rank all-gathers the rows, so each holds the whole
// product. Row i is the same sum over j as on one rank (each backend sums a row independently of
// the other rows), so the solution does not depend on the number of ranks beyond the
// all-gather (bitwise on the cpu and reference backends). The solvers' vectors stay replicated:
// their O(N) work per iteration is small next to the O(N²/P) rows of the product.
// Communication per product: N·sizeof(S) bytes received by each rank (docs/distributed.md).
//
// With the cuda backend (DeviceRows, device_rows.hpp) the rows stay on the GPU: the product's
// rows are all-gathered on the device through GpuCollectives (NCCL when it loads, else MPI
// through host memory), and the distributed solvers' product uploads only the rank's rows of x,
// all-gathers x on the device and downloads only its rows of y; the benchmark times the device
// product (pack, rows, all-gather), as one GPU's time_apply times its kernel.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/timing.hpp"
#include "fredholm/device_rows.hpp"
#include "fredholm/matvec.hpp"
#include "parallel/communicator.hpp"
#include "parallel/gpu_collectives.hpp"

namespace pairwise::fredholm {

template <class S>
class RowBlockMatvec final : public Matvec<S> {
 public:
  RowBlockMatvec(std::unique_ptr<Matvec<S>> rows, const Nodes& nodes, parallel::Communicator& comm)
      : rows_(std::move(rows)), nodes_(nodes), comm_(comm) {
    device_ = dynamic_cast<DeviceRows<S>*>(rows_.get());
    if (device_) {  // the backend made its GPU current: the collectives see each rank's GPU
      gpu_ = parallel::make_gpu_collectives(comm_);
      device_->set_device_rows(block().begin, block().end);
    }
  }

  std::string device_name() const override {
    return rows_->device_name() + "; " + parallel::describe_ranks(gpus_per_rank()) +
           ", row blocks of the product all-gathered" +
           (gpu_ ? " on the GPUs (" + gpu_->name() + ")" : std::string());
  }
  BackendKind backend() const override { return rows_->backend(); }
  Precision precision() const override { return rows_->precision(); }
  void apply(std::span<const S> g, std::span<S> y) override { apply_at(nodes_.p, g, y); }
  void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) override {
    if (device_ && targets.data() == nodes_.p.data() && targets.size() == nodes_.size()) {
      device_->copy(device_->device_vector(), g.data(), sizeof(S) * g.size(), false);
      device_->copy(y.data(), gather_rows_on_device(), sizeof(S) * y.size(), true);
      return;
    }
    const parallel::Block mine = parallel::block_of(targets.size(), comm_.rank(), comm_.size());
    if (mine.size() > 0)
      rows_->apply_at(targets.subspan(mine.begin, mine.size()), g,
                      y.subspan(mine.begin, mine.size()));
    parallel::allgather_blocks(comm_, y);
  }
  // This rank's rows of the product (block()), from the whole vector g: the distributed solvers'
  // product (solve.cpp), whose vectors are row blocks.
  void apply_rows(std::span<const S> g, std::span<S> y_rows) {
    const parallel::Block mine = block();
    if (mine.size() > 0)
      rows_->apply_at(std::span<const Point>(nodes_.p).subspan(mine.begin, mine.size()), g, y_rows);
  }
  // The distributed solvers' product from this rank's rows of x (block()): on the device path x
  // is all-gathered on the GPUs (only the rows travel to and from the host); else through the
  // host and apply_rows.
  void apply_from_rows(std::span<const S> x_rows, std::span<S> y_rows) {
    if (device_) {
      S* whole = device_->device_vector();
      allgather_on_device(x_rows.data(), whole);
      device_->copy(y_rows.data(), device_->apply_device_rows(), sizeof(S) * y_rows.size(), true);
      return;
    }
    whole_.resize(nodes_.size());
    std::copy(x_rows.begin(), x_rows.end(), whole_.begin() + long(block().begin));
    parallel::allgather_blocks(comm_, std::span<S>(whole_));
    apply_rows(whole_, y_rows);
  }
  parallel::Block block() const {
    return parallel::block_of(nodes_.size(), comm_.rank(), comm_.size());
  }
  parallel::Communicator& communicator() { return comm_; }

  double time_apply(std::span<const S> g, int repeats) override {
    std::vector<S> y(nodes_.size());
    if (device_) {  // g once to the device; the device product (pack, rows, all-gather) timed
      device_->copy(device_->device_vector(), g.data(), sizeof(S) * g.size(), true);
      double seconds = median_wall_seconds(
          [&] {
            gather_rows_on_device();
            device_->copy(nullptr, nullptr, 0, true);
          },
          repeats);
      comm_.allreduce_max(std::span<double>(&seconds, 1));
      return seconds;
    }
    // The slowest rank's median: the product is done when every rank's block is.
    double seconds = median_wall_seconds([&] { apply(g, y); }, repeats);
    comm_.allreduce_max(std::span<double>(&seconds, 1));
    return seconds;
  }

 private:
  int gpus_per_rank() const { return rows_->backend() == BackendKind::cuda ? 1 : 0; }

  // Every rank's rows of the product of device_vector(), whole (N values of S) in device scratch.
  const S* gather_rows_on_device() {
    S* whole = static_cast<S*>(device_->device_scratch(sizeof(S) * padded_size()));
    allgather_on_device(device_->apply_device_rows(), whole + padded_size() - nodes_.size());
    return whole + padded_size() - nodes_.size();
  }
  // Room for the all-gather's equal blocks (NCCL's rule): P × the largest block, plus the whole.
  std::size_t padded_size() const {
    return std::size_t(comm_.size()) * block_of(0).size() + nodes_.size();
  }
  parallel::Block block_of(int rank) const {
    return parallel::block_of(nodes_.size(), rank, comm_.size());
  }
  // This rank's rows (host or device memory) all-gathered into `whole` (device, N values, after
  // the scratch's blocks or elsewhere): equal blocks of the largest size into the front of the
  // scratch (NCCL in place), then each block to its place.
  void allgather_on_device(const S* rows, S* whole) {
    const std::size_t most = block_of(0).size();
    S* blocks = static_cast<S*>(device_->device_scratch(sizeof(S) * padded_size()));
    S* mine = blocks + std::size_t(comm_.rank()) * most;
    device_->copy(mine, rows, sizeof(S) * block().size(), false);
    gpu_->allgather(mine, blocks, sizeof(S) * most, device_->device_stream());
    for (int r = 0; r < comm_.size(); ++r) {
      const parallel::Block b = block_of(r);
      device_->copy(whole + b.begin, blocks + std::size_t(r) * most, sizeof(S) * b.size(), false);
    }
  }
  std::unique_ptr<Matvec<S>> rows_;
  const Nodes& nodes_;
  parallel::Communicator& comm_;
  DeviceRows<S>* device_ = nullptr;                // the cuda backend's device product, or null
  std::unique_ptr<parallel::GpuCollectives> gpu_;  // with device_
  std::vector<S> whole_;                           // the host path's gathered x
};

}  // namespace pairwise::fredholm
