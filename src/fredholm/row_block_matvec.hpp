// The Nyström product across ranks: rank r computes the rows of its block (parallel::block_of)
// with its backend's kernel sum, then every rank all-gathers the rows, so each holds the whole
// product. Row i is the same sum over j as on one rank (each backend sums a row independently of
// the other rows), so the solution does not depend on the number of ranks beyond the
// all-gather (bitwise on the cpu and reference backends). The solvers' vectors stay replicated:
// their O(N) work per iteration is small next to the O(N²/P) rows of the product.
// Communication per product: N·sizeof(S) bytes received by each rank (docs/distributed.md).
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "core/timing.hpp"
#include "fredholm/matvec.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::fredholm {

template <class S>
class RowBlockMatvec final : public Matvec<S> {
 public:
  RowBlockMatvec(std::unique_ptr<Matvec<S>> rows, const Nodes& nodes, parallel::Communicator& comm)
      : rows_(std::move(rows)), nodes_(nodes), comm_(comm) {}

  std::string device_name() const override {
    return rows_->device_name() + "; " + parallel::describe_ranks(gpus_per_rank()) +
           ", row blocks of the product all-gathered";
  }
  BackendKind backend() const override { return rows_->backend(); }
  Precision precision() const override { return rows_->precision(); }
  void apply(std::span<const S> g, std::span<S> y) override { apply_at(nodes_.p, g, y); }
  void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) override {
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
  parallel::Block block() const {
    return parallel::block_of(nodes_.size(), comm_.rank(), comm_.size());
  }
  parallel::Communicator& communicator() { return comm_; }

  double time_apply(std::span<const S> g, int repeats) override {
    std::vector<S> y(nodes_.size());
    // The slowest rank's median: the product is done when every rank's block is.
    double seconds = median_wall_seconds([&] { apply(g, y); }, repeats);
    comm_.allreduce_max(std::span<double>(&seconds, 1));
    return seconds;
  }

 private:
  int gpus_per_rank() const { return rows_->backend() == BackendKind::cuda ? 1 : 0; }
  std::unique_ptr<Matvec<S>> rows_;
  const Nodes& nodes_;
  parallel::Communicator& comm_;
};

}  // namespace pairwise::fredholm
