// `pairwise run` with workload = "ljc": the config (ljc/run_config.hpp) and the run that the
// command line starts. run_ljc is the API layer's (src/api/ljc_run.cpp): a client of the ljc
// session that pairwise::ljc::Simulation also stands on (src/api/ljc_session.hpp).
#pragma once

#include <ostream>

#include "ljc/run_config.hpp"
#include "ljc/velocities.hpp"

namespace pairwise::ljc {

// Runs [run] steps (continuing config.restart when given) with the thermo log, checkpoints and
// final topology of [output]; warnings about the input file go to `err`. Returns 0, or 128 +
// signal when a stop signal ended the run after a checkpoint. Throws pairwise::Error.
int run_ljc(const RunConfig& config, std::ostream& out, std::ostream& err);

}  // namespace pairwise::ljc
