#include "bench_flags.hpp"

namespace pairwise::cli {

void BenchFlags::add_json(CLI::App* suite) {
  suite->add_option("--json", json, "Write the records to this JSON file");
}

void BenchFlags::add_precision(CLI::App* suite, const std::string& example) {
  suite->add_option("--precision", precisions, "Precisions, e.g. " + example)
      ->delimiter(',')
      ->check(CLI::IsMember({"single", "mixed", "double"}));
}

void BenchFlags::add_backend(CLI::App* suite) {
  suite->add_option("--backend", backend, "auto | reference | cpu | cuda")
      ->check(CLI::IsMember({"auto", "reference", "cpu", "cuda"}));
}

void BenchFlags::add_repeats(CLI::App* suite) {
  suite->add_option("--repeats", repeats, "Timed repetitions per case (median reported)")
      ->check(CLI::Range(1, 1000000, "a count from 1 to 10^6"));
}

void BenchFlags::add_no_cpu(CLI::App* suite) {
  suite->add_flag("--no-cpu", no_cpu, "Skip the cpu-backend comparison");
}

std::vector<Precision> BenchFlags::parsed_precisions() const {
  std::vector<Precision> out;
  for (const auto& p : precisions) out.push_back(parse_precision(p));
  return out;
}

}  // namespace pairwise::cli
