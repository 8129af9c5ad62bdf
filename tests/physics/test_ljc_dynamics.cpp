// Dynamics of the ljc workload on the shared engine (velocity Verlet, BAOAB Langevin): NVE energy
// conservation on the bonded test globule and its second-order convergence in dt; Langevin holds
// the target temperature within 2 %.
#include <gtest/gtest.h>

#include <cmath>

#include "ljc/run.hpp"
#include "ljc_sets.hpp"

namespace pairwise::test {
namespace {

struct Trajectory {
  double max_rel_energy_error = 0;
  double mean_temperature = 0;
};

Trajectory simulate(std::size_t n, double dt, std::int64_t steps, bool langevin, double gamma_ps,
                    std::int64_t sample_every, std::int64_t skip) {
  ljc::Molecule m = ljc_globule(n, 13);
  ljc::thermal_velocities(m, 300.0, 4);
  auto k = ljc::make_ljc_kernel(BackendKind::cpu, {Precision::double_});
  k->set_system(m, ljc_options(physics::DielectricKind::sigmoidal));
  ljc::LjcForces f;
  k->compute(f);
  std::vector<double> inv_mass(n);
  for (std::size_t i = 0; i < n; ++i) inv_mass[i] = ljc::kAccelFactor / m.mass[i];
  engine::DynamicsOptions o;
  o.dt = dt;
  o.thermostat = langevin ? engine::Thermostat::langevin : engine::Thermostat::none;
  o.kT = ljc::kBoltzmannKcal * 300.0;
  o.gamma = gamma_ps * 1e-3;
  o.seed = 9;
  const double e0 = ljc::kinetic_energy(m) + f.energy();
  const double dof = langevin ? 3.0 * n : 3.0 * n - 3.0;
  Trajectory t;
  double t_sum = 0;
  int samples = 0;
  for (std::int64_t s = 0; s < steps; s += sample_every) {
    k->advance(m, inv_mass, o, std::uint64_t(s), sample_every, f);
    const double ke = ljc::kinetic_energy(m);
    t.max_rel_energy_error =
        std::max(t.max_rel_energy_error, std::fabs((ke + f.energy() - e0) / e0));
    if (s + sample_every > skip) {
      t_sum += 2 * ke / (dof * ljc::kBoltzmannKcal);
      ++samples;
    }
  }
  t.mean_temperature = t_sum / samples;
  return t;
}

TEST(LjcDynamics, VelocityVerletConservesEnergySecondOrder) {
  const Trajectory coarse = simulate(96, 1.0, 400, false, 0, 10, 0);
  const Trajectory fine = simulate(96, 0.5, 800, false, 0, 20, 0);
  // Bond vibrations (k = 200 kcal/(mol·Å²), period ~50 fs) dominate: (ω dt)² / 8 ~ 2e-3.
  EXPECT_LT(coarse.max_rel_energy_error, 3e-3) << fine.max_rel_energy_error;
  const double ratio = coarse.max_rel_energy_error / fine.max_rel_energy_error;
  EXPECT_GT(ratio, 3.0);  // 4 for a second-order method
  EXPECT_LT(ratio, 5.0);
}

TEST(LjcDynamics, LangevinHoldsTemperature) {
  const Trajectory t = simulate(128, 1.0, 4000, true, 50.0, 20, 1000);
  EXPECT_NEAR(t.mean_temperature / 300.0, 1.0, 0.02) << t.mean_temperature;
}

}  // namespace
}  // namespace pairwise::test
