// Benchmark records (DESIGN.md, "Inputs and outputs"): one JSON object per case,
//   {suite, case, backend, precision, device, n, params{...}, metric, value, unit, time_s, git,
//   date}
// written as a JSON array, atomically (to "<path>.tmp", then renamed).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

nlohmann::json to_json(const BenchRecord& r);
// Writes the records as a JSON array to `path` (via path.tmp + rename). Throws pairwise::Error.
void write_bench_json(const std::string& path, const std::vector<BenchRecord>& records);

}  // namespace pairwise
