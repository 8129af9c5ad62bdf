// The public C++ API (include/pairwise/*.hpp): observer schedules, argument errors as
// InvalidArgument with the CLI's messages, and results equal to the internals called directly.
#include <gtest/gtest.h>

#include <cmath>

#include "md/engine.hpp"
#include "md/system.hpp"
#include "pairwise/fredholm.hpp"
#include "pairwise/md.hpp"
#include "pairwise/nbody.hpp"

namespace {

using namespace pairwise;

md::Settings cpu_double() {
  md::Settings s;
  s.run = {BackendKind::cpu, Precision::double_};
  return s;
}

TEST(ApiMd, ObserversRunAtTheirMultiplesAndAtTheEnd) {
  md::Simulation sim(md::lattice("fcc", 0.8442, {4, 4, 4}, 1.0, 5), cpu_double());
  std::vector<std::int64_t> threes, fives;
  sim.run(4);
  sim.run(10, {{3, [&](std::int64_t s) { threes.push_back(s); }},
               {5, [&](std::int64_t s) { fives.push_back(s); }}});
  EXPECT_EQ(threes, (std::vector<std::int64_t>{6, 9, 12, 14}));
  EXPECT_EQ(fives, (std::vector<std::int64_t>{5, 10, 14}));
  EXPECT_EQ(sim.step(), 14);
  EXPECT_THROW(sim.run(-1), InvalidArgument);
  EXPECT_THROW(sim.run(5, {{0, nullptr}}), InvalidArgument);
}

TEST(ApiMd, EqualsTheEngineDrivenDirectly) {
  const md::SystemArrays a = md::lattice("fcc", 0.8442, {4, 4, 4}, 1.44, 87287);
  md::Simulation sim(a, cpu_double());
  sim.run(30, {{7, [](std::int64_t) {}}});
  // The same system and steps through the internal engine in one advance().
  md::System s = md::make_lattice("fcc", 0.8442, {4, 4, 4});
  md::create_velocities(s, 1.44, 87287);
  md::EngineOptions o;
  o.precision = Precision::double_;
  auto engine = md::make_md_engine(BackendKind::cpu, o);
  engine->set_state(s);
  engine->advance(1, 30);
  engine->get_state(s);
  const md::State st = sim.state();
  for (std::size_t i = 0; i < s.atoms.size(); ++i) {
    EXPECT_NEAR(st.positions[3 * i], s.atoms.x[i], 1e-12);
    EXPECT_NEAR(st.velocities[3 * i + 2], s.atoms.vz[i], 1e-12);
  }
  EXPECT_NEAR(sim.thermo().potential * 256, engine->thermo().potential, 1e-9);
}

TEST(ApiMd, BadInputIsAnErrorWithTheCliMessage) {
  md::SystemArrays a = md::lattice("fcc", 0.8442, {3, 3, 3}, 1.0, 1);
  try {
    md::Simulation sim(a, cpu_double());
    FAIL() << "a 3-cell box is shorter than 2 (rc + skin)";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("box length"), std::string::npos) << e.what();
  }
}

TEST(ApiMd, FormulaStyleEqualsTheBuiltInAfterSteps) {
  md::SystemArrays a = md::lattice("fcc", 0.8442, {4, 4, 4}, 1.44, 87287);
  a.force_field.style = "shift";
  md::Simulation builtin(a, cpu_double());
  a.force_field.style = "custom";
  a.force_field.formula.energy = "4*eps*(s6^2 - s6); s6 = (sig/r)^6";
  a.force_field.formula.truncation = "shift";
  a.force_field.formula.parameters = {{"eps", 1.0}, {"sig", 1.0}};
  md::Simulation custom(a, cpu_double());
  builtin.run(20), custom.run(20);
  const md::ThermoRow x = builtin.thermo(), y = custom.thermo();
  EXPECT_NEAR(y.potential, x.potential, 1e-12 * std::abs(x.potential));
  EXPECT_NEAR(y.total, x.total, 1e-12 * std::abs(x.total));
  a.force_field.formula.energy = "4*eps*(s6^2 - s6); s6 = (sigm/r)^6";
  try {
    md::Simulation bad(a, cpu_double());
    FAIL() << "an unknown name must be an error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown name 'sigm'"), std::string::npos) << e.what();
  }
}

TEST(ApiNbody, TimeObserversAndKeplerEnergy) {
  nbody::Settings s;
  s.run = {BackendKind::reference, Precision::double_};
  s.eps = 0;
  s.integrator = "hermite";
  s.eta = 0.005;
  s.dt_max = 1.0 / 64;
  nbody::Simulation sim(nbody::kepler(0.5, 1.0), s);
  const double e0 = sim.diagnostics().total;
  EXPECT_NEAR(e0, -0.125, 1e-12);  // -G m1 m2 / (2a) with m = 1/2
  std::vector<double> times;
  sim.run_to(1.0, {{0.25, [&](double t) { times.push_back(t); }}});
  EXPECT_EQ(times, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
  EXPECT_LT(std::abs(sim.diagnostics().energy_error), 1e-6);  // 4.5e-7 at eta = 0.005
  EXPECT_THROW(sim.run_to(0.5), InvalidArgument);
}

TEST(ApiFredholm, ExactSolutionAndArgumentErrors) {
  fredholm::Equation eq;
  eq.kernel = "exp_ts", eq.rhs = "exp_ts_smooth", eq.n = 16;
  fredholm::SolverSettings s;
  s.run.backend = BackendKind::cpu;
  const fredholm::Result r = fredholm::solve(eq, s, {0.5});
  for (std::size_t i = 0; i < r.values.size(); ++i)
    EXPECT_NEAR(r.values[i], std::exp(r.points[i]), 1e-13);
  EXPECT_NEAR(r.at_values[0], std::exp(0.5), 1e-13);
  eq.kernel = "yukawa";
  EXPECT_THROW(fredholm::solve(eq, s), InvalidArgument);
}

}  // namespace
