// Backend cases and small inputs of the potmap tests (issue 3).
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"
#include "potmap/map.hpp"
#include "potmap/run.hpp"

namespace pairwise::test {

struct MapCase {
  BackendKind backend;
  Precision precision;
  bool kahan;
};

inline std::vector<MapCase> compiled_map_cases() {
  std::vector<MapCase> cases = {{BackendKind::reference, Precision::double_, false},
                                {BackendKind::cpu, Precision::single, false},
                                {BackendKind::cpu, Precision::single, true},
                                {BackendKind::cpu, Precision::mixed, false},
                                {BackendKind::cpu, Precision::double_, false}};
  if (cuda_compiled()) {
    cases.push_back({BackendKind::cuda, Precision::single, false});
    cases.push_back({BackendKind::cuda, Precision::single, true});
    cases.push_back({BackendKind::cuda, Precision::mixed, false});
    cases.push_back({BackendKind::cuda, Precision::double_, false});
  }
  return cases;
}

// "CpuSingle", "CpuSingleKahan", "CudaDouble", ...
inline std::string map_case_name(const testing::TestParamInfo<MapCase>& info) {
  auto cap = [](std::string_view s) {
    std::string o(s);
    o[0] = char(std::toupper(static_cast<unsigned char>(o[0])));
    return o;
  };
  return cap(to_string(info.param.backend)) + cap(to_string(info.param.precision)) +
         (info.param.kahan ? "Kahan" : "");
}

class MapBackendTest : public testing::TestWithParam<MapCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend != BackendKind::cuda) return;
    std::string why;
    if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  }
  potmap::MapOptions options(double cutoff, double exclusion = 0) const {
    potmap::MapOptions o;
    o.precision = GetParam().precision;
    o.kahan = GetParam().kahan;
    o.cutoff = cutoff;
    o.exclusion = exclusion;
    return o;
  }
  potmap::MapResult compute(const potmap::Atoms& a, const potmap::Lattice& l,
                            const potmap::MapOptions& o) const {
    return potmap::compute_map(GetParam().backend, a, l, o);
  }
  bool is_double() const { return GetParam().precision == Precision::double_; }
};

// Random charges in [-1, 1] uniform in a box [lo, hi)³.
inline potmap::Atoms random_atoms(std::size_t n, double lo, double hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi), c(-1, 1);
  potmap::Atoms a;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = u(rng), y = u(rng), z = u(rng);
    a.push_back(x, y, z, c(rng));
  }
  return a;
}

}  // namespace pairwise::test
