// Shared host side of the reference and cpu ljc backends: the prepared system, positions, bonds and
// timing; a backend supplies `nonbonded`, the all-pairs loop.
#pragma once

#include "ljc/ljc_kernel.hpp"

namespace pairwise::ljc {

class HostLjcKernel : public LjcKernel {
 public:
  explicit HostLjcKernel(const LjcKernelOptions& options) : options_(options) {}
  void set_system(const Molecule& m, const NonbondedOptions& nb) override;
  void set_positions(const double* x, const double* y, const double* z) override;
  void compute(LjcForces& out) override;
  double time_compute(int repeats) override;

 protected:
  // Adds the nonbonded forces and energies (out is sized and zeroed).
  virtual void nonbonded(LjcForces& out) = 0;

  LjcKernelOptions options_;
  PreparedSystem system_;
  std::vector<double> x_, y_, z_;
};

}  // namespace pairwise::ljc
