// What the three integrators share: the synchronized state, a fresh φ for diagnostics, statistics
// and the NaN/inf check.
#pragma once

#include <string>

#include "nbody/integrator.hpp"

namespace pairwise::nbody {

class IntegratorBase : public Integrator {
 public:
  IntegratorBase(GravityKernel& kernel, Particles initial)
      : kernel_(kernel), state_(std::move(initial)) {}

  double time() const override { return time_; }
  const Particles& state() const override { return state_; }
  const IntegratorStats& stats() const override { return stats_; }
  // φ of the synchronized state, evaluated afresh (the forces of the last step belong to predicted
  // positions): one GA evaluation per call, cached until the state moves.
  std::span<const double> potential() override;
  void save_checkpoint(CheckpointWriter& w) const override;
  void load_checkpoint(CheckpointReader& r) override;

 protected:
  // Hook for integrators that keep extra state on the kernel and must restore it after the GA call.
  virtual void after_potential_evaluation() {}
  // The integrator's own carried state (checkpoint.cpp).
  virtual void save_extra(CheckpointWriter& w) const = 0;
  virtual void load_extra(CheckpointReader& r) = 0;
  // Throws pairwise::Error when particle i's position or velocity is NaN or infinite.
  void check_finite(std::size_t i) const;
  // Bookkeeping after a step that moved `active` particles (force evaluations on active × N pairs)
  // and brought the integrator to `new_time`.
  void record_step(double new_time, std::size_t active);

  GravityKernel& kernel_;
  Particles state_;
  double time_ = 0.0;
  IntegratorStats stats_;

 private:
  Forces potential_forces_;
  bool potential_valid_ = false;
};

// Fraction of a step below which a remaining interval counts as zero (rounding of t sums).
inline constexpr double kTimeSlack = 1e-9;

}  // namespace pairwise::nbody
