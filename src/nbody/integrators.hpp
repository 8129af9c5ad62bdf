// The concrete integrators behind make_integrator (integrator.hpp documents what each does).
#pragma once

#include <vector>

#include "nbody/block_schedule.hpp"
#include "nbody/hermite_corrector.hpp"
#include "nbody/integrator_base.hpp"

namespace pairwise::nbody {

class LeapfrogIntegrator final : public IntegratorBase {
 public:
  LeapfrogIntegrator(double dt, GravityKernel& kernel, Particles initial);
  void advance_to(double t) override;

 private:
  void save_extra(CheckpointWriter& w) const override;
  void load_extra(CheckpointReader& r) override;
  double dt_;
  Forces forces_;  // a at the current positions
};

// 4th-order Hermite with one step shared by all particles: adaptive (the smallest Aarseth step, at
// most dt_max) when eta > 0, fixed dt when eta == 0 (used to measure the order).
class HermiteIntegrator final : public IntegratorBase {
 public:
  HermiteIntegrator(const IntegratorOptions& options, GravityKernel& kernel, Particles initial);
  void advance_to(double t) override;

 private:
  void save_extra(CheckpointWriter& w) const override;
  void load_extra(CheckpointReader& r) override;
  IntegratorOptions options_;
  Forces forces_;  // a, jerk at the current synchronized state
  Particles predicted_;
  Forces new_forces_;
  double next_dt_;  // step chosen at the end of the previous step
};

// 4th-order Hermite with individual block (power-of-two) steps. Particle i lives on times that are
// multiples of its step dt_i; at each block time only the particles due are corrected, from forces
// of j-particles predicted on the backend. Every particle is synchronized at multiples of dt_max.
class BlockHermiteIntegrator final : public IntegratorBase {
 public:
  BlockHermiteIntegrator(const IntegratorOptions& options, GravityKernel& kernel,
                         Particles initial);
  void advance_to(double t) override;

 private:
  void after_potential_evaluation() override { kernel_.set_hermite_terms(terms_); }
  void save_extra(CheckpointWriter& w) const override;
  void load_extra(CheckpointReader& r) override;
  // One block step: the particles due at the earliest next time.
  void block_step();
  // The power-of-two step for a particle at block time t that had step dt and asks for dt_wanted.
  double next_block_step(double t, double dt, double dt_wanted, std::size_t i) const;

  IntegratorOptions options_;
  HermiteTerms terms_;      // a, jerk and t of every particle at its own last time
  std::vector<double> dt_;  // each particle's block step
  BlockSchedule schedule_;  // who is due next
  // Scratch for one block step, indexed by active position.
  std::vector<int> active_;
  Forces active_forces_;
  Particles predicted_, corrected_;
  HermiteTerms corrected_terms_;
};

}  // namespace pairwise::nbody
