// Benchmark records (DESIGN.md, "Inputs and outputs"): one JSON object per case,
//   {suite, case, backend, precision, device, n, params{...}, metric, value, unit, time_s, git,
//   date}
// written as a JSON array, atomically (to "<path>.tmp", then renamed).
//
// A suite runs its cases through a BenchRun, which stops it cleanly on a signal
// (docs/robustness.md, Signals): while it lives, SIGINT, SIGTERM, SIGUSR1 and SIGXCPU only set the
// stop flag; the case in progress finishes, no further case starts, the records of the finished
// cases are written (each marked "interrupted": "SIGTERM"), a line on stderr says what was
// written, and the exit code is 128 + the signal. A second SIGINT ends the process at once (the
// JSON file is only ever renamed into place, so none is half-written).
//
//   BenchRun run("nbody", options.json_path);
//   run.cases([&] {
//     for (...) { run.next_case(); ...time it...; run.add(record); }
//   });
//   ...print the table of run.records()...
//   return run.finish();
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/signals.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise {

struct BenchRecord {
  std::string suite;      // "nbody"
  std::string case_name;  // "GA", "GAJ", "block-1pct", ...
  std::string backend;    // "cuda", "cpu", "reference"
  std::string precision;  // "single", "mixed", "double"
  std::string device;     // GravityKernel::device_name()
  std::size_t n = 0;      // particles
  nlohmann::json params = nlohmann::json::object();
  std::string metric;  // e.g. "interactions_per_second"
  double value = 0;
  std::string unit;   // e.g. "1/s"
  double time_s = 0;  // the timed quantity (seconds per evaluation / per block step)
  std::string git = git_revision();
  std::string date = utc_now_iso8601();

  static std::string git_revision();
  static std::string utc_now_iso8601();
};

// A record of `suite`'s case on `kernel` (any of the suites' kernels, engines and matvecs: it has
// backend(), precision() and device_name()) with n particles or nodes; the caller adds the metric,
// value, unit, time_s and params.
template <class Kernel>
BenchRecord bench_record(std::string suite, std::string case_name, const Kernel& kernel,
                         std::size_t n) {
  BenchRecord r;
  r.suite = std::move(suite);
  r.case_name = std::move(case_name);
  r.backend = std::string(to_string(kernel.backend()));
  r.precision = std::string(to_string(kernel.precision()));
  r.device = kernel.device_name();
  r.n = n;
  return r;
}

// The backend a suite runs on (`requested` resolved), after printing the resolution's note as the
// suite's first line ("# ...").
BackendKind resolve_bench_backend(BackendKind requested);

nlohmann::json to_json(const BenchRecord& r);
// Writes the records as a JSON array to `path` (via path.tmp + rename). Throws pairwise::Error.
// A non-empty `interrupted` ("SIGTERM") is added to every record as "interrupted".
void write_bench_json(const std::string& path, const std::vector<BenchRecord>& records,
                      const std::string& interrupted = "");

// Thrown by BenchRun::next_case() once a stop was asked; BenchRun::cases() catches it. Not a
// pairwise::Error, so the suites' `catch (const Error&)` (a case skipped) lets it through.
struct BenchStopped {};

class BenchRun {
 public:
  // `json_path` empty: no file is written.
  BenchRun(std::string suite, std::string json_path);
  BenchRun(const BenchRun&) = delete;
  BenchRun& operator=(const BenchRun&) = delete;

  // Runs the suite's loops; returns normally when a stop signal ended them early too.
  template <class Loops>
  void cases(Loops&& loops) {
    try {
      loops();
    } catch (const BenchStopped&) {
      if (stop_signal_ == 0) stop_signal_ = stop_signal_received();  // a case's own throw
    }
  }
  // Call before each case (each timed measurement): throws BenchStopped when a stop signal arrived
  // (the decision every rank takes alike, src/core/signals.hpp). Test hook: the signal of
  // PAIRWISE_TEST_SIGNAL_AT_STEP=k is raised here once k records are done.
  void next_case();
  // A finished case (stdout is flushed: the per-case lines some suites print appear at once).
  void add(BenchRecord record);
  std::vector<BenchRecord>& records() { return records_; }
  // The signal that stopped the suite, 0 if it ran to the end.
  int stop_signal() const { return stop_signal_; }
  // Writes the JSON file (when asked; a stopped suite with no finished case writes none) and says
  // so (stdout; a stopped suite on stderr). Returns the exit code: 0, or 128 + the signal.
  int finish();

 private:
  StopSignals stop_signals_;
  std::string suite_, json_path_;
  std::vector<BenchRecord> records_;
  int stop_signal_ = 0;
};

}  // namespace pairwise
