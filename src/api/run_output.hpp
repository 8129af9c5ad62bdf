// The output plumbing that the command line's runs (md_run.cpp, nbody_run.cpp, ljc_run.cpp,
// fredholm_run.cpp) share: the output directory and the report of a run stopped by a signal.
#pragma once

#include <chrono>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace pairwise::api {

using Clock = std::chrono::steady_clock;

// Wall-clock seconds since `start` (the wall_s column and the timings of the summary line).
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Creates `directory` (pairwise::Error "cannot create the output directory: ...") and removes the
// temporary files a killed run left there, saying so on `out`. Called once the input is known to
// be good, so that a bad input creates nothing on disk.
void prepare_output_directory(const std::filesystem::path& directory, std::ostream& out);

// Says that signal `sig` stopped the run `at` ("after step 40", "at t = 0.5") with `checkpoint`
// written and the growing `outputs` (empty paths skipped) valid up to `complete` ("step 40"), and
// returns the exit code 128 + sig.
int report_stop(std::ostream& out, int sig, const std::string& at,
                const std::filesystem::path& checkpoint,
                const std::vector<std::filesystem::path>& outputs, const std::string& complete);

}  // namespace pairwise::api
