#include "nbody/ranked_kernel.hpp"

#include <array>
#include <cstdlib>
#include <string>

#include "core/timing.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {
namespace {

// The arrays of one row (a target): the forces, then (block steps) the predicted state.
std::vector<std::vector<double>*> force_columns(Forces& f, bool jerk) {
  if (jerk) return {&f.ax, &f.ay, &f.az, &f.jx, &f.jy, &f.jz, &f.pot};
  return {&f.ax, &f.ay, &f.az, &f.pot};
}
std::vector<std::vector<double>*> state_columns(Particles& p) {
  return {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
}

// Rows [block.begin, block.end) of `columns` come from `local` (block-relative rows); after the
// all-gather every rank has every row. One message: the rows packed row-major.
void gather_rows(parallel::Communicator& comm, const std::vector<std::vector<double>*>& local,
                 const std::vector<std::vector<double>*>& full, std::size_t rows,
                 std::vector<double>& packed) {
  const std::size_t k = full.size();
  const parallel::Block mine = parallel::block_of(rows, comm.rank(), comm.size());
  packed.assign(rows * k, 0.0);
  for (std::size_t i = 0; i < mine.size(); ++i)
    for (std::size_t c = 0; c < k; ++c) packed[(mine.begin + i) * k + c] = (*local[c])[i];
  parallel::allgather_blocks(comm, std::span<double>(packed), k);
  for (std::size_t c = 0; c < k; ++c) full[c]->resize(rows);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t c = 0; c < k; ++c) (*full[c])[i] = packed[i * k + c];
}

// Whether the cuda kernel's full evaluations share the Newton-3 pair tiles (the default: each pair
// once; the partial sums all-reduced, 32 bytes per particle for GA) or take target blocks (the
// split path, each pair twice, at about half the Newton-3 rate; 32 bytes per target
// all-gathered): PAIRWISE_NBODY_RANK_SPLIT = tiles | targets.
bool share_tiles() {
  const char* env = std::getenv("PAIRWISE_NBODY_RANK_SPLIT");
  const std::string choice = env ? env : "";
  if (choice == "tiles") return true;
  if (choice == "targets") return false;
  if (!choice.empty())
    throw Error("PAIRWISE_NBODY_RANK_SPLIT must be tiles or targets, got \"" + choice + "\"",
                "environment");
  return true;
}

}  // namespace

RankedGravityKernel::RankedGravityKernel(std::unique_ptr<GravityKernel> local,
                                         parallel::Communicator& comm)
    : local_(std::move(local)), comm_(comm) {
  // The kernel has made its GPU current: make_gpu_collectives sees which GPU each rank drives.
  shared_ = dynamic_cast<RankSharedEvaluations*>(local_.get());
  if (shared_) {
    gpu_ = parallel::make_gpu_collectives(comm_);
    if (share_tiles())
      shared_->share_across_ranks(comm_, *gpu_);
    else
      shared_ = nullptr;
  }
}

std::string RankedGravityKernel::device_name() const {
  const bool cuda = local_->backend() == BackendKind::cuda;
  return local_->device_name() + "; " + parallel::describe_ranks(cuda ? 1 : 0) +
         (shared_ ? ", Newton-3 pair tiles shared, sums all-reduced on the GPUs (" + gpu_->name() +
                        "); else target blocks of the forces all-gathered"
                  : ", target blocks of the forces all-gathered");
}

void RankedGravityKernel::set_particles(const Particles& p) {
  n_ = p.size();
  local_->set_particles(p);
}

void RankedGravityKernel::compute(ForceKind kind, Forces& out) {
  if (shared_ && shared_->splits_evaluation(kind)) return local_->compute(kind, out);
  const bool jerk = kind == ForceKind::accel_jerk;
  const parallel::Block mine = parallel::block_of(n_, comm_.rank(), comm_.size());
  Forces part;
  part.resize(0, jerk);
  if (mine.size() > 0) local_->compute_range(kind, mine.begin, mine.end, part);
  out.resize(n_, jerk);
  gather_rows(comm_, force_columns(part, jerk), force_columns(out, jerk), n_, packed_);
}

void RankedGravityKernel::predict_and_compute(double t, std::span<const int> active, Forces& out,
                                              Particles& predicted) {
  const parallel::Block mine = parallel::block_of(active.size(), comm_.rank(), comm_.size());
  Forces part;
  Particles part_state;
  part.resize(0, true);
  // Every rank calls the backend, also with no active particle of its own: the prediction of
  // the whole set happens inside (and the backend may keep per-call state).
  local_->predict_and_compute(t, active.subspan(mine.begin, mine.size()), part, part_state);
  auto local_columns = force_columns(part, true), full_columns = force_columns(out, true);
  for (auto* c : state_columns(part_state)) local_columns.push_back(c);
  for (auto* c : state_columns(predicted)) full_columns.push_back(c);
  gather_rows(comm_, local_columns, full_columns, active.size(), packed_);
}

double RankedGravityKernel::time_compute(ForceKind kind, int repeats) {
  Forces out;
  // Shared Newton-3 tiles: the kernel times its tiles, the all-reduce and the finalize with device
  // events, as one GPU's record times its kernel (no download: both runs download the same N).
  double seconds = shared_ && shared_->splits_evaluation(kind)
                       ? local_->time_compute(kind, repeats)
                       : median_wall_seconds([&] { compute(kind, out); }, repeats);
  comm_.allreduce_max(std::span<double>(&seconds, 1));
  return seconds;
}

}  // namespace pairwise::nbody
