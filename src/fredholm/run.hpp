// `pairwise fredholm problem.toml` (and `pairwise run` with workload = "fredholm"): the config
// (fredholm/run_config.hpp) and the solve that the command line starts. run_fredholm is the API
// layer's (src/api/fredholm_run.cpp).
#pragma once

#include <ostream>

#include "fredholm/run_config.hpp"

namespace pairwise::fredholm {

// Solves, prints a summary and writes the CSV files (atomically). Returns the exit code (128 +
// signal when a stop signal ended a multi-wave solve between waves).
int run_fredholm(const RunConfig& rc, std::ostream& out);

}  // namespace pairwise::fredholm
