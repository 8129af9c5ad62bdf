// F = -∇U by central finite differences, for each dielectric, in double on the reference backend,
// on a bonded chain (so that exclusions, 1-4 scaling and bonds are all in U).
#include <gtest/gtest.h>

#include <cmath>

#include "ljc_sets.hpp"

namespace pairwise::test {
namespace {

using physics::DielectricKind;

class LjcGradient : public testing::TestWithParam<DielectricKind> {};

TEST_P(LjcGradient, ForceIsMinusGradientOfEnergy) {
  ljc::Molecule m = ljc_globule(40, 3);
  const auto nb = ljc_options(GetParam());
  auto k = ljc::make_ljc_kernel(BackendKind::reference, {Precision::double_});
  const ljc::LjcForces f = ljc_forces(*k, m, nb);
  const double h = 1e-5;
  double worst = 0, fmax = 0;
  for (double v : f.fx) fmax = std::max(fmax, std::fabs(v));
  for (int i : {0, 1, 7, 20, 39}) {
    for (int c = 0; c < 3; ++c) {
      std::vector<double>* pos = c == 0 ? &m.x : c == 1 ? &m.y : &m.z;
      const double x0 = (*pos)[i];
      ljc::LjcForces plus, minus;
      (*pos)[i] = x0 + h;
      k->set_positions(m.x.data(), m.y.data(), m.z.data());
      k->compute(plus);
      (*pos)[i] = x0 - h;
      k->set_positions(m.x.data(), m.y.data(), m.z.data());
      k->compute(minus);
      (*pos)[i] = x0;
      const double fd = -(plus.energy() - minus.energy()) / (2 * h);
      const double analytic = c == 0 ? f.fx[i] : c == 1 ? f.fy[i] : f.fz[i];
      worst =
          std::max(worst, std::fabs(fd - analytic) / std::max(std::fabs(analytic), 1e-3 * fmax));
    }
  }
  EXPECT_LE(worst, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Dielectrics, LjcGradient,
                         testing::Values(DielectricKind::constant, DielectricKind::linear,
                                         DielectricKind::sigmoidal),
                         [](const auto& info) { return std::string(ljc::to_string(info.param)); });

}  // namespace
}  // namespace pairwise::test
