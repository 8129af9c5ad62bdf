// The abstract gravity kernel every backend implements (OpenMM's Platform/Kernel split):
// integrators and benchmarks talk to this interface only. Arrays cross it in double precision on
// the host; each backend computes in its own precision (see pairwise/precision.hpp).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "nbody/particles.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::nbody {

enum class ForceKind { accel, accel_jerk };  // GA and GAJ of Elsen et al.

class CustomGravity;  // nbody/custom_gravity.hpp: φ(r) from a formula

struct KernelOptions {
  Precision precision = Precision::mixed;
  double eps2 = 0.0;  // Plummer softening ε², Hénon length units squared
  int device = 0;     // CUDA device index
  // Particle count the kernel will be given, when known up front: lets the CUDA backend refuse a
  // problem too large for device memory before the host builds it (0: checked at set_particles).
  std::size_t expected_n = 0;
  // A custom potential ([system] potential): replaces Plummer-softened Newton on reference / cpu.
  std::shared_ptr<const CustomGravity> custom = nullptr;
};

class GravityKernel {
 public:
  virtual ~GravityKernel() = default;

  // One line for logs and benchmark JSON, e.g. "cuda: NVIDIA H100 80GB HBM3".
  virtual std::string device_name() const = 0;
  virtual BackendKind backend() const = 0;
  // The precision actually used (the reference backend always reports double).
  virtual Precision precision() const = 0;

  // Loads masses, positions and velocities of all N particles: they are both sources and targets.
  virtual void set_particles(const Particles& p) = 0;
  // a (and jerk for accel_jerk) and φ on every particle from all the others.
  virtual void compute(ForceKind kind, Forces& out) = 0;
  // The same on the targets [begin, end) only (out has end - begin entries): one rank's block of
  // targets when many ranks share the work (ranked_kernel.hpp). Each target's sum is the one
  // compute() makes. The default computes every target and keeps the range (correct, not
  // faster); the host backends evaluate only the range.
  virtual void compute_range(ForceKind kind, std::size_t begin, std::size_t end, Forces& out);

  // Block time steps. Loads a, jerk and t_last of every particle (x, v come from set_particles).
  virtual void set_hermite_terms(const HermiteTerms& terms) = 0;
  // Predicts every particle to time t from its own (x, v, a, jerk, t_last) on the backend, then
  // computes a, jerk and φ on the `active` particles from the predicted set. Returns the active
  // particles' forces and predicted positions and velocities (entry k belongs to active[k]).
  virtual void predict_and_compute(double t, std::span<const int> active, Forces& out,
                                   Particles& predicted) = 0;
  // Stores the corrected x, v (from `corrected`) and a, jerk, t (from `terms`) of the active
  // particles; entry k belongs to active[k]. Masses in `corrected` are ignored.
  virtual void commit(std::span<const int> active, const Particles& corrected,
                      const HermiteTerms& terms) = 0;

  // Seconds per force evaluation on the loaded particles, kernel work only (no host transfers):
  // median of `repeats` timed evaluations after a warm-up. CUDA times with events. For benchmarks.
  virtual double time_compute(ForceKind kind, int repeats) = 0;
};

// Builds the kernel of a resolved backend (not `automatic`). Throws pairwise::Error when the
// backend is not compiled in or has no usable device, and when the problem does not fit in device
// memory.
std::unique_ptr<GravityKernel> make_gravity_kernel(BackendKind backend,
                                                   const KernelOptions& options);

}  // namespace pairwise::nbody
