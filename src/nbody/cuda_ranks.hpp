// The part of a backend kernel in RankedGravityKernel (ranked_kernel.hpp) that keeps the work on
// the device: the cuda kernel's full evaluations on the Newton-3 path (single and mixed precision,
// and custom potentials). Rank r of P evaluates the tiles [T·r/P, T·(r+1)/P) of the triangle of
// T pair tiles (cut at multiples of a block's warps), each pair once for both particles, into the
// exact accumulator (engine/pair_tiles.cuh); each rank rounds its partial sums to double (rank 0
// alone removes the self term of φ) and the ranks sum them on the device (GpuCollectives::
// allreduce_sum: NCCL, or MPI through host memory; both give every rank the same sums: NCCL's ring
// and tree reduce each value once and broadcast it, MPI's reductions are commutative per pair).
// The result equals one rank's within float rounding, not bitwise: a warp's float partial sums
// group differently when its chunk of tiles starts elsewhere, and the P partials are rounded to
// double before they are added. Traffic: 4 (GA) or 7 (GAJ) doubles per particle all-reduced
// (32 MB per GA evaluation at N = 2^20), against N²/2P pair evaluations (docs/distributed.md).
// (All-reducing the exact words instead would be bitwise the same on every rank by construction,
// but 20 times the bytes: 315 ms per GA evaluation at N = 262,144 through host memory on one
// H200, against 24 ms of pairs.)
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
