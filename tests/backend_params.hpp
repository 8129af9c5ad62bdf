// The (backend, precision) combinations compiled into this build, for value-parameterized suites
// that run every test on every backend (DESIGN.md principle 4). CUDA cases exist when the backend
// is compiled and skip, not fail, without a usable device; their names contain "Cuda" so that ctest
// gives them the gpu label and scripts/device-check selects them with the gtest filter '*Cuda*'.
#pragma once

#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "nbody/gravity_kernel.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::test {

struct BackendCase {
  BackendKind backend;
  Precision precision;
};

inline std::vector<BackendCase> compiled_backend_cases() {
  std::vector<BackendCase> cases = {{BackendKind::reference, Precision::double_},
                                    {BackendKind::cpu, Precision::single},
                                    {BackendKind::cpu, Precision::mixed},
                                    {BackendKind::cpu, Precision::double_}};
  if (cuda_compiled()) {
    for (Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
      cases.push_back({BackendKind::cuda, p});
    }
  }
  return cases;
}

// "ReferenceDouble", "CpuMixed", "CudaSingle", ...: gtest parameter names.
inline std::string backend_case_name(const testing::TestParamInfo<BackendCase>& info) {
  auto capitalized = [](std::string_view s) {
    std::string out(s);
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
  };
  return capitalized(to_string(info.param.backend)) + capitalized(to_string(info.param.precision));
}

// Base fixture: skips CUDA cases without a usable device and builds kernels of the case.
class BackendTest : public testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend != BackendKind::cuda) return;
    std::string why;
    if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  }

  Precision precision() const { return GetParam().precision; }

  std::unique_ptr<nbody::GravityKernel> make_kernel(double eps2) const {
    return nbody::make_gravity_kernel(GetParam().backend, {GetParam().precision, eps2, 0});
  }
};

// The first line of a test that checks a backend against the reference backend: for the
// reference case itself it would compare the oracle with itself (every error exactly 0), a test
// that cannot fail, so that case skips.
#define PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF()            \
  if (GetParam().backend == ::pairwise::BackendKind::reference) \
  GTEST_SKIP() << "the reference backend would be compared with itself"

// The oracle: the reference backend (double, plain loops).
inline std::unique_ptr<nbody::GravityKernel> make_reference_kernel(double eps2) {
  return nbody::make_gravity_kernel(BackendKind::reference, {Precision::double_, eps2, 0});
}

}  // namespace pairwise::test
