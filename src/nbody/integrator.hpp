// Time integrators for direct N-body gravity. All of them advance a synchronized state to a
// requested time and can then report φ for diagnostics.
//
//  leapfrog       kick-drift-kick, fixed dt (2nd order, symplectic)
//  hermite        4th-order Hermite predictor-corrector (Makino & Aarseth 1992), one shared
//  adaptive
//                 step from the Aarseth criterion, the smallest over all particles
//  hermite_block  Hermite with individual power-of-two (block) steps; at each block time only the
//                 active particles' forces are computed, from j-particles predicted on the backend
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "nbody/gravity_kernel.hpp"

namespace pairwise {
class CheckpointWriter;
class CheckpointReader;
}  // namespace pairwise

namespace pairwise::nbody {

enum class IntegratorKind { leapfrog, hermite, hermite_block };
IntegratorKind parse_integrator(std::string_view text);  // throws pairwise::Error
std::string_view to_string(IntegratorKind k);

struct IntegratorOptions {
  IntegratorKind kind = IntegratorKind::hermite_block;
  double dt = 1.0 / 128;               // leapfrog: fixed step
  double eta = 0.01;                   // Hermite: Aarseth accuracy parameter
  double dt_max = 1.0 / 16;            // Hermite: largest step (block steps: a power of two)
  double dt_min = 1.0 / (1ull << 40);  // Hermite: smallest step before the run stops with an error
};

struct IntegratorStats {
  std::uint64_t steps = 0;           // leapfrog/hermite: steps; block: block steps (distinct times)
  std::uint64_t particle_steps = 0;  // Σ active particles over all force evaluations
  double interactions = 0;           // Σ n_active × N
};

class Integrator {
 public:
  virtual ~Integrator() = default;
  // Advances to time t (> time()); returns with every particle synchronized at t. Throws
  // pairwise::Error when the state becomes NaN/inf (naming the particle) or a step underflows
  // dt_min.
  virtual void advance_to(double t) = 0;
  virtual double time() const = 0;
  // The synchronized state and φ_i (computed at the last synchronized time).
  virtual const Particles& state() const = 0;
  virtual std::span<const double> potential() = 0;
  virtual const IntegratorStats& stats() const = 0;
  // Checkpoints (src/nbody/checkpoint.cpp): the synchronized state with everything the integrator
  // carries from step to step (forces, Hermite terms, block steps), so that a restarted run
  // continues bitwise. Valid after advance_to() returned.
  virtual void save_checkpoint(CheckpointWriter& w) const = 0;
  // Replaces the state by a checkpoint's (made by an integrator of the same options and N).
  virtual void load_checkpoint(CheckpointReader& r) = 0;
};

// The kernel must outlive the integrator. The initial forces are computed here.
std::unique_ptr<Integrator> make_integrator(const IntegratorOptions& options, GravityKernel& kernel,
                                            Particles initial);

}  // namespace pairwise::nbody
