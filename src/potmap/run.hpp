// `pairwise potmap` and `pairwise run` (workload = "potmap"): the config (potmap/run_config.hpp)
// and the run the command line starts. run_potmap is the API layer's (src/api/potmap_run.cpp),
// over the same map computation and writers as pairwise::potmap::compute_map / write_map.
#pragma once

#include <ostream>

#include "potmap/run_config.hpp"

namespace pairwise::potmap {

// Runs end to end, logging to `log`; returns the exit code (0, or 128 + signal when a stop signal
// ended a trajectory map). Throws pairwise::Error.
int run_potmap(const PotmapConfig& config, std::ostream& log);

}  // namespace pairwise::potmap
