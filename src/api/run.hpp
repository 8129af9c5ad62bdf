// The command line's way into the API layer: `pairwise run FILE.toml` loads the file and applies
// its overrides (apps/pairwise), then hands the config here; the workload it names runs through
// the same sessions as the public API (md_run.cpp, nbody_run.cpp, ljc_run.cpp, fredholm_run.cpp;
// potmap_run.cpp).
#pragma once

#include <ostream>
#include <string>

#include "core/config.hpp"

namespace pairwise::api {

// Runs the workload `config` names ([workload], default nbody), continuing the checkpoint
// `restart` (as the user gave it, relative to the working directory) when non-empty (md, nbody,
// ljc). The log goes to `out`, warnings about the input to
// `err`. Returns the exit code (0, or 128 + signal after a stop signal). Throws pairwise::Error;
// after a checkpoint was written, the error's `where` names it and how to continue.
int run_workload(config::Config& config, const std::string& restart, std::ostream& out,
                 std::ostream& err);

}  // namespace pairwise::api
