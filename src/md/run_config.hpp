// The TOML schema of an md run (`workload = "md"`), documented key by key in docs/md.md:
//   [system]       lattice (fcc|bcc|sc), density, cells = "nx ny nz", temperature, velocity_seed,
//                  data_file (a LAMMPS data file instead of a lattice), allow_overlap
//   [force_field]  style (cut|shift|shifted_force), cutoff, mixing (geometric|arithmetic),
//                  mass, epsilon, sigma (lattice systems: type 1), pair_I_J = "eps sigma [rc]"
//   [neighbor]     skin, sort_every, capacity
//   [integrator]   dt, steps, thermostat (none|langevin|andersen), temperature, gamma, nu, seed
//   [run]          backend, precision
//   [output]       directory, prefix, thermo_every, csv, dump_every, dump_format (lammps|xyz),
//                  final_data, progress, checkpoint, checkpoint_every
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/config.hpp"
#include "core/io/lammps_data.hpp"
#include "engine/dynamics.hpp"
#include "md/custom_force_field.hpp"
#include "md/engine.hpp"
#include "md/system.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::md {

struct MdRunConfig {
  std::string source;
  // [system]
  std::string lattice = "fcc";
  double density = 0.8442;
  std::array<int, 3> cells{20, 20, 20};
  double temperature = 1.44;
  std::uint64_t velocity_seed = 87287;
  std::filesystem::path data_file;  // non-empty: read the system from it
  bool allow_overlap = false;
  // [force_field]
  physics::LjStyle style = physics::LjStyle::cut;
  double cutoff = 2.5;
  Mixing mixing = Mixing::geometric;
  double mass = 1, epsilon = 1, sigma = 1;
  struct PairOverride {
    int i, j;
    double epsilon, sigma, cutoff;
  };
  std::vector<PairOverride> pairs;
  CustomForceFieldSpec custom{};  // style = "custom" | "table" (md/custom_force_field.hpp)
  // [neighbor]
  double skin = 0.3;
  int sort_every = 1000;
  int capacity = 0;
  // [integrator]
  engine::DynamicsOptions dynamics;
  std::int64_t steps = 100;
  // [run]
  BackendKind backend = BackendKind::automatic;
  Precision precision = Precision::mixed;
  // [output]
  std::filesystem::path directory;
  std::string prefix;
  std::int64_t thermo_every = 10;
  std::filesystem::path csv;
  std::int64_t dump_every = 0;
  std::string dump_format = "lammps";
  std::filesystem::path dump;        // the trajectory file (derived from prefix and format)
  std::filesystem::path final_data;  // empty: none
  bool progress = true;
  std::filesystem::path checkpoint;  // [output] checkpoint (default <prefix>.ckpt)
  std::int64_t checkpoint_every =
      0;                          // steps between checkpoints (0: only when stopped by a signal)
  std::filesystem::path restart;  // `--restart CKPT`: continue from it (not a TOML key)
};

MdRunConfig read_md_config(config::Config& config);
// The initial system: the data file's (force field completed by [force_field]) or a lattice with
// velocities at [system] temperature. Validates it (validate()).
System build_system(const MdRunConfig& rc);
// The engine's options from [neighbor], [integrator] and [run].
EngineOptions engine_options(const MdRunConfig& rc);

// LAMMPS data-file conversions.
System system_from_data(const std::filesystem::path& file);
io::LammpsData data_from_system(const System& s);

}  // namespace pairwise::md
