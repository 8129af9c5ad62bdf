// The N-body driver behind `pairwise run` (workload = "nbody"): initial conditions, backend, kernel
// and integrator from a RunConfig, then a loop over output times with diagnostics, snapshots and a
// summary.
#pragma once

#include <ostream>

#include "nbody/particles.hpp"
#include "nbody/run_config.hpp"

namespace pairwise::nbody {

// The initial particles the config asks for (generated or read from its file). `source` receives a
// description for messages: the file name or "[system] initial = 'plummer'".
Particles make_initial_conditions(const RunConfig& config, std::string* source = nullptr);

// Runs to t_end, printing the log to `out`. Writes the CSV, snapshots and final snapshot atomically
// into config.output.directory. Throws pairwise::Error on bad input or a failed run; returns 0.
int run_nbody(const RunConfig& config, std::ostream& out);

}  // namespace pairwise::nbody
