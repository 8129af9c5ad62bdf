// The part of a backend kernel in RankedGravityKernel (ranked_kernel.hpp) that keeps the work on
// the device: the cuda kernel's full evaluations on the Newton-3 path (single and mixed precision,
// and custom potentials). Rank r of P evaluates the tiles [T·r/P, T·(r+1)/P) of the triangle of
// T pair tiles (cut at multiples of a block's warps), each pair once for both particles; the
// exact fixed-point words of every particle's sums (engine/pair_tiles.cuh) are then summed across
// ranks on the device (GpuCollectives: NCCL, or MPI through host memory), and every rank rounds
// them to double as one GPU does. Integer sums do not depend on the order, so the result is the
// same on every rank; it equals one rank's up to the grouping of the float partial sums that a
// warp makes before each exact add (a warp's chunk of tiles starts elsewhere): within float
// rounding, not bitwise. Traffic: comps × 20 words × 8 bytes per particle (640 MB per GA
// evaluation at N = 2^20), against N²/2P pair evaluations (docs/distributed.md).
#pragma once

#include "nbody/gravity_kernel.hpp"

namespace pairwise::parallel {
class Communicator;
class GpuCollectives;
}  // namespace pairwise::parallel

namespace pairwise::nbody {

class RankSharedEvaluations {
 public:
  virtual ~RankSharedEvaluations() = default;
  // From now on compute() of a kind for which splits_evaluation(kind) is true returns every
  // particle's forces, this rank evaluating its share of the pairs; every rank must then call
  // compute() at the same points (a collective). `comm` and `gpu` must outlive the kernel.
  virtual void share_across_ranks(parallel::Communicator& comm, parallel::GpuCollectives& gpu) = 0;
  virtual bool splits_evaluation(ForceKind kind) = 0;
};

}  // namespace pairwise::nbody
