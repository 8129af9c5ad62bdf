// `pairwise run` with workload = "nbody": the config (nbody/run_config.hpp) and the run that the
// command line starts. run_nbody is the API layer's (src/api/nbody_run.cpp): a client of the
// nbody session that pairwise::nbody::Simulation also stands on (src/api/nbody_session.hpp).
#pragma once

#include <ostream>

#include "nbody/run_config.hpp"

namespace pairwise::nbody {

// Runs to t_end, printing the log to `out`. Writes the CSV, snapshots and final snapshot atomically
// into config.output.directory. Throws pairwise::Error on bad input or a failed run; returns 0, or
// 128 + signal when a stop signal ended the run after a checkpoint.
int run_nbody(const RunConfig& config, std::ostream& out);

}  // namespace pairwise::nbody
