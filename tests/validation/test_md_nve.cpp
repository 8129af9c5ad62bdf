// Validation (ctest label `validation`, not in CI's label set; the Cuda case carries the gpu
// label and runs in about a second on the GPU machine): NVE, dt = 0.005, LAMMPS's exact initial
// state of in.lj (32,000 atoms, lj/cut 2.5, skin 0.3), 10,000 steps in mixed precision:
// |ΔE/E| <= 1e-4 for the total energy. The first 1,000 steps are the melting of the lattice with a
// truncated, unshifted potential (TotEng moves 1.4e-3 there, as in LAMMPS's own log), so the
// drift is measured from step 1,000 to 10,000.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "md/engine.hpp"
#include "md/run.hpp"
#include "md_systems.hpp"

namespace {

using namespace pairwise;

void nve_drift(BackendKind backend) {
  md::System s = md::system_from_data(test::md_test_data() + "/lj32k-initial.data.gz");
  ASSERT_EQ(s.atoms.size(), 32000u);
  s.ff.cutoff = 2.5;
  md::validate(s, 0.3, false);
  md::EngineOptions o;
  o.precision = Precision::mixed;
  o.skin = 0.3;
  o.dynamics.dt = 0.005;
  auto engine = md::make_md_engine(backend, o);
  engine->set_state(s);
  auto total = [&] {
    const md::Thermo t = engine->thermo();
    return (t.kinetic + t.potential) / 32000.0;
  };
  engine->advance(1, 1000);
  const double e1000 = total();
  double worst = 0;
  for (int step = 2000; step <= 10000; step += 1000) {
    engine->advance(std::uint64_t(step - 999), 1000);
    const double e = total();
    ASSERT_TRUE(std::isfinite(e)) << "step " << step;
    worst = std::max(worst, std::abs(e - e1000) / std::abs(e1000));
    if (step == 10000) {
      const double drift = std::abs(e - e1000) / std::abs(e1000);
      std::printf(
          "[ info ] %s mixed: TotEng/atom %.7f at step 1000, %.7f at 10000: |dE/E| = %.2e "
          "(largest excursion %.2e)\n",
          std::string(to_string(backend)).c_str(), e1000, e, drift, worst);
      EXPECT_LE(drift, 1e-4);
    }
  }
}

TEST(MdValidation, CudaMixedNve10000StepsConservesEnergy) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  nve_drift(BackendKind::cuda);
}

TEST(MdValidation, CpuMixedNve10000StepsConservesEnergy) {
  nve_drift(BackendKind::cpu);
}

}  // namespace
