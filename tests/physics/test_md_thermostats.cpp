// Thermostats on an LJ liquid (cpu backend): Langevin (BAOAB) at T* = 1.0 gives a time-averaged
// temperature within 1 % of the target and velocity components that pass a Kolmogorov–Smirnov test
// against Maxwell–Boltzmann; Andersen likewise within 2 %. NVE conserves energy.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "md/engine.hpp"
#include "md_systems.hpp"

namespace {

using namespace pairwise;

// Kolmogorov–Smirnov statistic D of samples against N(0, σ²).
double ks_statistic(std::vector<double> v, double sigma) {
  std::sort(v.begin(), v.end());
  double d = 0;
  const double n = double(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    const double cdf = 0.5 * std::erfc(-v[k] / (sigma * std::sqrt(2.0)));
    d = std::max({d, std::abs(cdf - double(k) / n), std::abs(double(k + 1) / n - cdf)});
  }
  return d;
}

struct Sampled {
  double mean_temperature;
  double ks;  // largest D over the pooled x, y, z components
  double ks_critical;
};

Sampled sample(engine::Thermostat thermostat, double param) {
  md::System s = test::jittered_lattice("fcc", 0.8442, 5, 0.05, 17, 0.3);  // 500 atoms, cold start
  md::EngineOptions o;
  o.precision = Precision::double_;
  o.skin = 0.3;
  o.dynamics.dt = 0.005;
  o.dynamics.thermostat = thermostat;
  o.dynamics.kT = 1.0;
  o.dynamics.gamma = param;
  o.dynamics.nu = param;
  o.dynamics.seed = 2024;
  auto e = md::make_md_engine(BackendKind::cpu, o);
  e->set_state(s);
  e->advance(1, 1000);  // equilibrate (γ t = 25)
  double t_sum = 0;
  int samples = 0;
  std::vector<double> vs;
  std::uint64_t step = 1001;
  for (int k = 0; k < 300; ++k, step += 10) {
    e->advance(step, 10);
    t_sum += md::temperature_of(e->thermo().kinetic, s.atoms.size());
    ++samples;
    if (k % 60 == 59) {
      e->get_state(s);
      for (std::size_t i = 0; i < s.atoms.size(); ++i)
        vs.push_back(s.atoms.vx[i]), vs.push_back(s.atoms.vy[i]), vs.push_back(s.atoms.vz[i]);
    }
  }
  // The kinetic temperature uses 3N − 3 degrees of freedom, the thermostat drives all 3N.
  const double n = double(s.atoms.size());
  const double mean_t = t_sum / samples * (3 * n - 3) / (3 * n);
  return {mean_t, ks_statistic(vs, 1.0), 1.63 / std::sqrt(double(vs.size()))};  // α = 1 %
}

TEST(MdThermostats, LangevinTemperatureAndMaxwellBoltzmann) {
  const Sampled r = sample(engine::Thermostat::langevin, 5.0);
  EXPECT_NEAR(r.mean_temperature, 1.0, 0.01);
  EXPECT_LT(r.ks, r.ks_critical);
  std::printf("[ info ] Langevin: <T> = %.4f, KS D = %.4f (critical %.4f)\n", r.mean_temperature,
              r.ks, r.ks_critical);
}

TEST(MdThermostats, AndersenTemperatureAndMaxwellBoltzmann) {
  const Sampled r = sample(engine::Thermostat::andersen, 10.0);
  EXPECT_NEAR(r.mean_temperature, 1.0, 0.02);
  EXPECT_LT(r.ks, r.ks_critical);
  std::printf("[ info ] Andersen: <T> = %.4f, KS D = %.4f (critical %.4f)\n", r.mean_temperature,
              r.ks, r.ks_critical);
}

TEST(MdThermostats, NveConservesEnergy) {
  // Energy-shifted truncation: a truncated (cut) potential jumps by U(rc) whenever a pair crosses
  // rc.
  md::System s = test::jittered_lattice("fcc", 0.8442, 5, 0.05, 3, 1.44);
  s.ff.style = physics::LjStyle::shift;
  md::EngineOptions o;
  o.precision = Precision::mixed;
  o.dynamics.dt = 0.005;
  auto e = md::make_md_engine(BackendKind::cpu, o);
  e->set_state(s);
  auto energy = [&] {
    const auto t = e->thermo();
    return t.kinetic + t.potential;
  };
  e->advance(1, 200);
  const double e0 = energy();
  double worst = 0;
  for (int k = 0; k < 10; ++k) {
    e->advance(201 + 100 * k, 100);
    worst = std::max(worst, std::abs(energy() - e0) / std::abs(e0));
  }
  EXPECT_LT(worst, 1e-4);
}

}  // namespace
