// The gravity kernel across ranks. Every rank holds the whole particle state (x, v, m and the
// Hermite terms: O(N) memory, 10^8 bodies in 6 GB) and runs the same integrator on it; the O(N²)
// force work is split: rank r computes the forces on its block of targets (parallel::block_of)
// from every source, and the forces are all-gathered, one message of the packed rows per
// evaluation. Block steps split the active list the same way, so only the active particles'
// forces and predicted states travel. A target's sum is the one a single rank makes, so every
// rank ends each step with the same state, and the energies match one rank's (bitwise on the host
// backends). Communication per evaluation: N_targets × (4 or 7) doubles received per rank
// (docs/distributed.md).
//
// On the cuda backend the full evaluations that take the Newton-3 path (single and mixed
// precision, custom potentials) stay on the device instead: the ranks share the pairs and sum the
// exact words through GpuCollectives (NCCL when it loads), see nbody/cuda_ranks.hpp; the other
// kinds (double precision, small N) take target blocks as above, and block steps the active list.
#pragma once

#include <memory>

#include "nbody/cuda_ranks.hpp"
#include "nbody/gravity_kernel.hpp"
#include "parallel/communicator.hpp"
#include "parallel/gpu_collectives.hpp"

namespace pairwise::nbody {

class RankedGravityKernel final : public GravityKernel {
 public:
  RankedGravityKernel(std::unique_ptr<GravityKernel> local, parallel::Communicator& comm);

  std::string device_name() const override;
  BackendKind backend() const override { return local_->backend(); }
  Precision precision() const override { return local_->precision(); }
  void set_particles(const Particles& p) override;
  void compute(ForceKind kind, Forces& out) override;
  void set_hermite_terms(const HermiteTerms& terms) override { local_->set_hermite_terms(terms); }
  void predict_and_compute(double t, std::span<const int> active, Forces& out,
                           Particles& predicted) override;
  void commit(std::span<const int> active, const Particles& corrected,
              const HermiteTerms& terms) override {
    local_->commit(active, corrected, terms);
  }
  // The slowest rank's median seconds per evaluation, the all-gather (or all-reduce) included.
  double time_compute(ForceKind kind, int repeats) override;

 private:
  std::unique_ptr<GravityKernel> local_;
  parallel::Communicator& comm_;
  // The cuda backend: collectives on device memory, and the kernel's own split of full
  // evaluations (null elsewhere).
  std::unique_ptr<parallel::GpuCollectives> gpu_;
  RankSharedEvaluations* shared_ = nullptr;
  std::size_t n_ = 0;
  std::vector<double> packed_;
};

}  // namespace pairwise::nbody
