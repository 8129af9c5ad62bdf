// ljc checkpoints (core/checkpoint.hpp gives the file format): the state after a diagnostic row:
// step, positions, velocities, the forces and energies of that state (so nothing is recomputed),
// the running diagnostics (E0, max drift, mean-T sums) and the CSV size. The Langevin random
// numbers are Philox streams keyed by (seed, step, atom): the step is their whole state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "ljc/ljc_kernel.hpp"
#include "ljc/molecule.hpp"
#include "ljc/run_config.hpp"

namespace pairwise {
class CheckpointReader;
}  // namespace pairwise

namespace pairwise::ljc {

struct LjcCheckpointInfo {
  std::int64_t step = 0;
  std::uint64_t csv_bytes = 0;
  double e0 = 0, max_drift = 0, t_sum = 0;
  std::int64_t t_rows = 0;
};

// One "key = value" line per key that shapes the trajectory (not run.steps or output paths).
std::string ljc_config_text(const RunConfig& rc, BackendKind backend);

void write_ljc_checkpoint(const std::filesystem::path& path, const std::string& config_text,
                          const LjcCheckpointInfo& info, const Molecule& mol, const LjcForces& f);
// Loads positions, velocities and forces into `mol` and `f` (sized for the configured molecule).
LjcCheckpointInfo read_ljc_checkpoint(const std::filesystem::path& path,
                                      const std::string& config_text, Molecule& mol, LjcForces& f);

// The same from a loaded, verified checkpoint (the fuzz target feeds it bytes).
LjcCheckpointInfo read_ljc_checkpoint(CheckpointReader& r, const std::string& config_text,
                                      Molecule& mol, LjcForces& f);

}  // namespace pairwise::ljc
