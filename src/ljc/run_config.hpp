// The TOML schema of an ljc run (`workload = "ljc"`), documented key by key in docs/ljc.md:
//   [system]      molecule ("globule" | "file"), n, seed, spacing, charge, file, pqr_epsilon,
//                 pqr_bond_k, parameters, pdb_bond_k
//   [forcefield]  dielectric, epsilon, linear_factor, sigmoidal_alpha .. sigmoidal_delta,
//                 scale14_lj, scale14_coulomb
//   [integrator]  thermostat ("none": velocity Verlet NVE | "langevin": BAOAB), dt (fs),
//                 temperature (K), friction (1/ps), seed
//   [run]         steps, backend, precision, pair_kernel, step_kernel
//   [output]      directory, prefix, interval (steps), csv, final, progress, checkpoint,
//                 checkpoint_every (rows)
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>

#include "core/config.hpp"
#include "ljc/custom_nonbonded.hpp"
#include "ljc/generator.hpp"
#include "ljc/ljc_kernel.hpp"
#include "ljc/molecule.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::ljc {

struct RunConfig {
  std::string source;
  // [system]
  bool from_file = false;
  GlobuleOptions globule;
  std::filesystem::path file;        // .toml / .json topology or .pqr
  double pqr_epsilon = 0.1;          // PQR input: ε of every atom (kcal/mol)
  double pqr_bond_k = 300.0;         // PQR input: k of the bonds found by distance
  std::filesystem::path parameters;  // PDB input: the parameter table (pdb_molecule.hpp)
  double pdb_bond_k = 300.0;         // PDB input: k of the bonds found by distance
  // [forcefield]
  NonbondedOptions forcefield;
  std::shared_ptr<const CustomNonbonded> custom = nullptr;  // [forcefield] custom
  // [integrator]
  bool langevin = false;
  double dt_fs = 1.0;
  double temperature = 300.0;  // K: initial velocities (when the file has none) and Langevin
  double friction_per_ps = 1.0;
  std::uint64_t seed = 1;
  // [run]
  std::int64_t steps = 1000;
  BackendKind backend = BackendKind::automatic;
  Precision precision = Precision::mixed;
  PairKernel pair_kernel = PairKernel::automatic;
  StepKernel step_kernel = StepKernel::automatic;
  // [output]
  struct Output {
    std::filesystem::path directory;
    std::string prefix;
    std::int64_t interval = 100;
    std::filesystem::path csv, final_topology;
    bool progress = true;
    std::filesystem::path checkpoint;   // default <prefix>.ckpt
    std::int64_t checkpoint_every = 0;  // a checkpoint every K-th row (0: only on a signal)
  } output;
  std::filesystem::path restart;  // `--restart CKPT` (not a TOML key)
};

RunConfig read_run_config(config::Config& config);

// The molecule [system] asks for: the globule (validated) or the file (a .pqr, a .pdb with its
// parameter table, or a .toml / .json topology, whose warnings go to `warnings`).
Molecule load_molecule(const RunConfig& config, std::ostream& warnings);
// The kernel's options from [run] and [forcefield] custom.
LjcKernelOptions kernel_options(const RunConfig& config);

}  // namespace pairwise::ljc
