// The persistent MD-step kernel of the cuda backend (src/ljc/cuda_persistent.cuh) against the
// graph path and the host dynamics on the double reference kernel: the same trajectory to the
// tolerances of AdvanceMatchesHostDynamics (1e-5 Å in single and mixed, 1e-10 Å in double after
// 30 fs), NVE and Langevin (the same Philox draws), each dielectric; bitwise reproducible run to
// run. GPU only: skips without a usable device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "backend_params.hpp"
#include "ljc/backends.hpp"
#include "ljc/run.hpp"
#include "ljc_sets.hpp"
#include "pairwise/error.hpp"

namespace pairwise::test {
namespace {

#ifdef PAIRWISE_HAVE_CUDA
using physics::DielectricKind;

class LjcPersistentCuda : public testing::TestWithParam<Precision> {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_compiled() || cuda_devices(&why).empty()) {
      GTEST_SKIP() << "no usable CUDA device: " << (cuda_compiled() ? why : "not compiled");
    }
  }
};

struct Trajectory {
  ljc::Molecule m;
  ljc::LjcForces f;
};

// 7 then 23 steps of 1 fs (two launches: the device step counter carries over).
Trajectory run(ljc::LjcKernel& k, const ljc::Molecule& m0, const ljc::NonbondedOptions& nb,
               const engine::DynamicsOptions& o) {
  Trajectory t{m0, {}};
  std::vector<double> inv_mass(m0.size());
  for (std::size_t i = 0; i < m0.size(); ++i) inv_mass[i] = ljc::kAccelFactor / m0.mass[i];
  k.set_system(t.m, nb);
  k.compute(t.f);
  k.advance(t.m, inv_mass, o, 0, 7, t.f);
  k.advance(t.m, inv_mass, o, 7, 23, t.f);
  return t;
}

double max_distance(const ljc::Molecule& a, const ljc::Molecule& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    worst = std::max({worst, std::fabs(a.x[i] - b.x[i]), std::fabs(a.y[i] - b.y[i]),
                      std::fabs(a.z[i] - b.z[i])});
  }
  return worst;
}

TEST_P(LjcPersistentCuda, MatchesGraphAndReference) {
  const Precision p = GetParam();
  const double tol = p == Precision::double_ ? 1e-10 : 1e-5;
  // 300 atoms: not a multiple of 32 (a padded source tile), several atoms per block.
  ljc::Molecule m = ljc_globule(300, 21);
  ljc::thermal_velocities(m, 300.0, 2);
  for (DielectricKind d :
       {DielectricKind::constant, DielectricKind::linear, DielectricKind::sigmoidal}) {
    for (bool langevin : {false, true}) {
      SCOPED_TRACE(std::string(ljc::to_string(d)) + (langevin ? " langevin" : " nve"));
      const auto nb = ljc_options(d);
      engine::DynamicsOptions o;
      o.dt = 1.0;
      o.thermostat = langevin ? engine::Thermostat::langevin : engine::Thermostat::none;
      o.kT = ljc::kBoltzmannKcal * 300.0;
      o.gamma = 0.01;
      o.seed = 5;
      auto ref = ljc::make_ljc_kernel(BackendKind::reference, {Precision::double_});
      const Trajectory r = run(*ref, m, nb, o);
      auto persistent = ljc::make_ljc_kernel(
          BackendKind::cuda, {p, 0, ljc::PairKernel::automatic, ljc::StepKernel::persistent});
      auto graph = ljc::make_ljc_kernel(BackendKind::cuda,
                                        {p, 0, ljc::PairKernel::automatic, ljc::StepKernel::graph});
      const Trajectory a = run(*persistent, m, nb, o);
      const Trajectory g = run(*graph, m, nb, o);
      EXPECT_EQ(ljc::cuda_step_kernel(*persistent), "persistent");
      EXPECT_EQ(ljc::cuda_step_kernel(*graph), "graph");
      EXPECT_LE(max_distance(a.m, r.m), tol);  // Å after 30 fs
      EXPECT_LE(max_distance(a.m, g.m), tol);
      EXPECT_LE(max_distance(g.m, r.m), tol);
      const double scale = std::fabs(r.f.lj) + std::fabs(r.f.coulomb) + std::fabs(r.f.bond);
      EXPECT_LE(std::fabs(a.f.energy() - r.f.energy()) / scale, 100 * tol);
      double vworst = 0;
      for (std::size_t i = 0; i < m.size(); ++i) {
        vworst = std::max({vworst, std::fabs(a.m.vx[i] - r.m.vx[i]),
                           std::fabs(a.m.vy[i] - r.m.vy[i]), std::fabs(a.m.vz[i] - r.m.vz[i])});
      }
      EXPECT_LE(vworst, tol);                 // Å/fs
      EXPECT_GT(max_distance(r.m, m), 1e-3);  // the atoms did move
      // Deterministic: a second run is bitwise the same in single and mixed. (In double the
      // forces on entry come from the pair kernel's FP64 atomics, reproducible to rounding only.)
      const Trajectory b = run(*persistent, m, nb, o);
      if (p == Precision::double_) {
        EXPECT_LE(max_distance(a.m, b.m), 1e-13);
      } else {
        EXPECT_EQ(max_distance(a.m, b.m), 0.0);
      }
    }
  }
}

// The default: persistent up to kPersistentMaxN atoms, CUDA graphs above.
TEST_P(LjcPersistentCuda, AutoFollowsTheBenchmark) {
  const Precision p = GetParam();
  auto small = ljc::make_ljc_kernel(BackendKind::cuda, {p});
  small->set_system(ljc_globule(1280), ljc_options(DielectricKind::constant));
  EXPECT_EQ(ljc::cuda_step_kernel(*small), "persistent");
  auto large = ljc::make_ljc_kernel(BackendKind::cuda, {p});
  large->set_system(ljc_globule(ljc::kPersistentMaxN + 1), ljc_options(DielectricKind::constant));
  EXPECT_EQ(ljc::cuda_step_kernel(*large), "graph");
}

// A system too large for shared memory: a clear error when asked for, never a silent fallback.
TEST_P(LjcPersistentCuda, TooLargeIsAnError) {
  auto k = ljc::make_ljc_kernel(
      BackendKind::cuda, {GetParam(), 0, ljc::PairKernel::automatic, ljc::StepKernel::persistent});
  EXPECT_THROW(k->set_system(ljc_globule(10000), ljc_options(DielectricKind::constant)), Error);
}

INSTANTIATE_TEST_SUITE_P(Precisions, LjcPersistentCuda,
                         testing::Values(Precision::single, Precision::mixed, Precision::double_),
                         [](const testing::TestParamInfo<Precision>& info) {
                           return std::string(to_string(info.param));
                         });
#else
TEST(LjcPersistentCuda, NotCompiled) {
  GTEST_SKIP() << "the cuda backend is not compiled into this build";
}
#endif

}  // namespace
}  // namespace pairwise::test
