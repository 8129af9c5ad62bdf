// nbody checkpoints (core/checkpoint.hpp gives the file format): written at diagnostic rows, where
// every particle is synchronized; they hold the row index, the CSV size, and the integrator's state
// (Integrator::save_checkpoint: x, v, m, time, statistics, and per integrator the forces, the
// Hermite terms a, jerk, t_i and the block steps dt_i).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "nbody/integrator.hpp"
#include "nbody/run_config.hpp"

namespace pairwise {
class CheckpointReader;
}  // namespace pairwise

namespace pairwise::nbody {

struct NbodyCheckpointInfo {
  std::int64_t row = 0;         // diagnostic rows done (t = row × interval)
  std::uint64_t csv_bytes = 0;  // CSV size at the checkpoint (0: none)
  double e0 = 0;                // the initial energy (dE/E0 of later rows)
};

// One "key = value" line per key that shapes the trajectory (not t_end or output paths).
std::string nbody_config_text(const RunConfig& rc, BackendKind backend);

void write_nbody_checkpoint(const std::filesystem::path& path, const std::string& config_text,
                            const NbodyCheckpointInfo& info, const Integrator& integrator);
NbodyCheckpointInfo read_nbody_checkpoint(const std::filesystem::path& path,
                                          const std::string& config_text, Integrator& integrator);

// The same from a loaded, verified checkpoint (the fuzz target feeds it bytes).
NbodyCheckpointInfo read_nbody_checkpoint(CheckpointReader& r, const std::string& config_text,
                                          Integrator& integrator);

}  // namespace pairwise::nbody
