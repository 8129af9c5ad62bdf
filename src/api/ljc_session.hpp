// The ljc state behind both clients of the workload: pairwise::ljc::Simulation (include/pairwise/
// ljc.hpp) and the command line's run (ljc_run.cpp). The kernel, the dynamics, the finiteness
// check and the thermo row (with its E0) are written here once.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/dynamics.hpp"
#include "ljc/ljc_kernel.hpp"
#include "ljc/molecule.hpp"
#include "ljc/run_config.hpp"
#include "pairwise/ljc.hpp"

namespace pairwise::ljc {

// [integrator] in the run's units.
struct DynamicsSpec {
  bool langevin = false;  // BAOAB Langevin, else velocity Verlet (NVE)
  double dt_fs = 1.0;
  double temperature = 300.0;  // K: thermal velocities (when the molecule has none), the bath
  double friction_per_ps = 1.0;
  std::uint64_t seed = 1;
};
DynamicsSpec dynamics_spec(const RunConfig& config);

struct Session {
  Molecule mol;
  std::unique_ptr<LjcKernel> kernel;
  DynamicsSpec spec;
  std::vector<double> inv_mass;  // Å/fs² per kcal/(mol·Å)
  engine::DynamicsOptions dynamics;
  LjcForces forces;
  double dof = 3;  // 3N (Langevin) or 3N - 3 (NVE)
  double e0 = 0;   // the total energy of the first thermo row
  bool have_e0 = false;
  std::int64_t step = 0;  // steps taken

  // Makes the kernel (`backend` resolved) and gives it the molecule and force field.
  Session(Molecule molecule, BackendKind backend, const LjcKernelOptions& kernel_options,
          const NonbondedOptions& forcefield, const DynamicsSpec& dynamics);
  // Thermal velocities when the molecule has none, the initial forces and the dynamics' options.
  void start();
  // Steps step + 1 .. step + steps.
  void advance(std::int64_t steps);
  // pairwise::Error when a position, velocity or force is NaN or inf ("... at step N, atom i").
  void check_finite() const;
  // The thermo row of `pairwise run` (check_finite first); the first row sets E0.
  ThermoRow thermo_row();
};

}  // namespace pairwise::ljc
