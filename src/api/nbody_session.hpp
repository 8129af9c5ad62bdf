// The nbody state behind both clients of the workload: pairwise::nbody::Simulation (include/
// pairwise/nbody.hpp) and the command line's run (nbody_run.cpp). The kernel, the integrator, the
// energy at t = 0 and the diagnostic row are written here once.
#pragma once

#include <memory>
#include <string>

#include "nbody/diagnostics.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody/integrator.hpp"
#include "pairwise/nbody.hpp"

namespace pairwise::nbody {

struct Session {
  KernelOptions kernel_options;
  IntegratorOptions integrator_options;
  BackendKind backend;                          // resolved
  std::unique_ptr<GravityKernel> kernel;        // the integrator's
  std::unique_ptr<GravityKernel> probe_kernel;  // compute_forces' (the integrator's is busy)
  std::unique_ptr<Integrator> integrator;       // after start()
  double e0 = 0;                                // total energy at t = 0

  // Makes the kernel (on a GPU, its memory check for kernel_options.expected_n particles).
  Session(const KernelOptions& kernel_options, const IntegratorOptions& integrator_options,
          BackendKind backend);
  // Checks the particles (`source` names them in messages).
  void check(const Particles& particles, const std::string& source) const;
  // Makes the integrator (which computes the initial forces) and E0 of the checked particles.
  void start(Particles particles);
  // The diagnostics of the current state at `time`, the energy error relative to e0.
  Diagnostics measure_at(double time) const;
  // The same as the public row (|p|, |L| as lengths).
  static DiagnosticsRow row_of(const Diagnostics& d, std::uint64_t steps);
};

}  // namespace pairwise::nbody
