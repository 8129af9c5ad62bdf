// Shared host-side machinery of the reference and cpu backends: particle storage, the Hermite
// predictor for block steps and timing. A backend only supplies `evaluate`, the pair loop.
#pragma once

#include <span>
#include <vector>

#include "nbody/gravity_kernel.hpp"

namespace pairwise::nbody {

class HostGravityKernel : public GravityKernel {
 public:
  explicit HostGravityKernel(const KernelOptions& options) : options_(options) {}

  void set_particles(const Particles& p) override;
  void compute(ForceKind kind, Forces& out) override;
  void compute_range(ForceKind kind, std::size_t begin, std::size_t end, Forces& out) override;
  void set_hermite_terms(const HermiteTerms& terms) override;
  void predict_and_compute(double t, std::span<const int> active, Forces& out,
                           Particles& predicted) override;
  void commit(std::span<const int> active, const Particles& corrected,
              const HermiteTerms& terms) override;
  double time_compute(ForceKind kind, int repeats) override;

 protected:
  // Forces on `targets` (their x, v) from every particle of `sources`. self[k] is the index of
  // target k among the sources, whose pair with itself contributes nothing; -1 when it is not a
  // source.
  virtual void evaluate(const Particles& sources, const Particles& targets,
                        std::span<const int> self, ForceKind kind, Forces& out) = 0;

  KernelOptions options_;

 private:
  Particles particles_;
  HermiteTerms terms_;
  Particles predicted_all_;
  Particles range_targets_;
  std::vector<int> identity_;
};

}  // namespace pairwise::nbody
