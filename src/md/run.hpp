// `pairwise run md.toml` (workload = "md"): the config (md/run_config.hpp) and the run that the
// command line starts. run_md is the API layer's (src/api/md_run.cpp): a client of the md session
// that pairwise::md::Simulation also stands on (src/api/md_session.hpp).
#pragma once

#include <ostream>

#include "md/run_config.hpp"

namespace pairwise::md {

// Runs rc.steps steps (continuing rc.restart when given) with the thermo log, trajectory,
// checkpoints and final data file of [output]. Returns 0, or 128 + signal when a stop signal ended
// the run after a checkpoint. Throws pairwise::Error.
int run_md(const MdRunConfig& rc, std::ostream& out);

}  // namespace pairwise::md
