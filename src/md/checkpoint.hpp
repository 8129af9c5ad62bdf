// md checkpoints (core/checkpoint.hpp gives the file format): the configuration text that must
// match on restart, and the state after a step: step index, the sizes of the growing outputs (so a
// restart cuts them back and appends), and the engine's state (MdEngine::save_checkpoint). The
// Langevin and Andersen random numbers are Philox streams keyed by (seed, step, atom id): the step
// is their whole state.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "md/engine.hpp"
#include "md/run_config.hpp"

namespace pairwise {
class CheckpointReader;
}  // namespace pairwise

namespace pairwise::md {

struct MdCheckpointInfo {
  std::int64_t step = 0;         // steps done
  std::uint64_t csv_bytes = 0;   // thermo CSV size at the checkpoint (0: none)
  std::uint64_t dump_bytes = 0;  // trajectory size at the checkpoint (0: none)
};

// One "key = value" line per key that shapes the trajectory (not integrator.steps or output
// paths), with the resolved backend.
std::string md_config_text(const MdRunConfig& rc, BackendKind backend);

void write_md_checkpoint(const std::filesystem::path& path, const std::string& config_text,
                         const MdCheckpointInfo& info, MdEngine& engine, System& s);
// Refuses a checkpoint of another configuration (naming the key), then loads the engine state.
MdCheckpointInfo read_md_checkpoint(const std::filesystem::path& path,
                                    const std::string& config_text, MdEngine& engine, System& s);

// The same from a loaded, verified checkpoint (the fuzz target feeds it bytes).
MdCheckpointInfo read_md_checkpoint(CheckpointReader& r, const std::string& config_text,
                                    MdEngine& engine, System& s);

}  // namespace pairwise::md
