// Forces, potential energy and virial of every md backend against the double reference:
// ||F − F_ref||₂ / ||F_ref||₂, |U − U_ref| / |U_ref| and |W − W_ref| / |W_ref| within 1e-5 for
// FP32 pair arithmetic (single, mixed) and 1e-12 for double; for each pair style, one and three
// atom types (mixing), and after some steps (the reference integrates the same trajectory).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "backend_params.hpp"
#include "md/engine.hpp"
#include "md_systems.hpp"
#include "pairwise/error.hpp"

namespace {

using namespace pairwise;

double tolerance(Precision p) {
  return p == Precision::double_ ? 1e-12 : 1e-5;
}

struct Result {
  std::vector<double> fx, fy, fz;
  md::Thermo thermo;
};

Result evaluate(BackendKind b, Precision p, const md::System& s, int steps) {
  md::EngineOptions o;
  o.precision = p;
  o.skin = 0.3;
  o.dynamics.dt = 0.004;
  auto e = md::make_md_engine(b, o);
  e->set_state(s);
  if (steps > 0) e->advance(1, steps);
  Result r;
  e->forces(r.fx, r.fy, r.fz);
  r.thermo = e->thermo();
  return r;
}

double force_error(const Result& got, const Result& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.fx.size(); ++i) {
    const double dx = got.fx[i] - ref.fx[i], dy = got.fy[i] - ref.fy[i], dz = got.fz[i] - ref.fz[i];
    num += dx * dx + dy * dy + dz * dz;
    den += ref.fx[i] * ref.fx[i] + ref.fy[i] * ref.fy[i] + ref.fz[i] * ref.fz[i];
  }
  return std::sqrt(num / den);
}

class MdForces : public test::BackendTest {};

TEST_P(MdForces, MatchReferenceForEveryStyleAndMixing) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  double worst_f = 0, worst_e = 0, worst_w = 0;  // at step 0
  for (auto style :
       {physics::LjStyle::cut, physics::LjStyle::shift, physics::LjStyle::shifted_force}) {
    for (int types : {1, 3}) {
      md::System s = test::jittered_lattice("fcc", 0.8442, 6, 0.15, 21, 1.2);
      if (types == 3) test::make_three_types(s, 5);
      s.ff.style = style;
      s.ff.cutoff = 2.5;
      s.ff.mixing = types == 3 ? md::Mixing::arithmetic : md::Mixing::geometric;
      const std::string what =
          std::string(md::to_string(style)) + ", " + std::to_string(types) + " types";
      for (int steps : {0, 20}) {
        const Result ref = evaluate(BackendKind::reference, Precision::double_, s, steps);
        const Result got = evaluate(GetParam().backend, precision(), s, steps);
        // After steps the trajectories separate by rounding: FP32 loosens the bound by 10.
        const double tol =
            tolerance(precision()) * (steps > 0 && precision() != Precision::double_ ? 10 : 1);
        EXPECT_LE(force_error(got, ref), tol) << what << ", step " << steps;
        if (steps == 0) {
          worst_f = std::max(worst_f, force_error(got, ref));
          worst_e = std::max(worst_e, std::abs(got.thermo.potential - ref.thermo.potential) /
                                          std::abs(ref.thermo.potential));
          worst_w = std::max(worst_w, std::abs(got.thermo.virial - ref.thermo.virial) /
                                          std::abs(ref.thermo.virial));
        }
        EXPECT_LE(
            std::abs(got.thermo.potential - ref.thermo.potential) / std::abs(ref.thermo.potential),
            tol)
            << what << ", step " << steps;
        EXPECT_LE(std::abs(got.thermo.virial - ref.thermo.virial) / std::abs(ref.thermo.virial),
                  tol)
            << what << ", step " << steps;
        EXPECT_LE(std::abs(got.thermo.kinetic - ref.thermo.kinetic) / ref.thermo.kinetic, tol)
            << what << ", step " << steps;
      }
    }
  }
  std::printf(
      "[ info ] %s: max relative error vs reference (step 0): forces %.2e, energy %.2e, "
      "virial %.2e\n",
      test::backend_case_name({GetParam(), 0}).c_str(), worst_f, worst_e, worst_w);
}

// U(r) and F(r) of the three styles at one pair distance against the closed forms.
TEST(MdPairStyles, ClosedForms) {
  const double eps = 1.3, sig = 0.9, rc = 2.2, r = 1.05;
  auto u = [&](double x) { return 4 * eps * (std::pow(sig / x, 12) - std::pow(sig / x, 6)); };
  auto f = [&](double x) {
    return 4 * eps * (12 * std::pow(sig / x, 12) - 6 * std::pow(sig / x, 6)) / x;
  };
  const auto cut = physics::lj_pair_params(eps, sig, rc, physics::LjStyle::cut);
  const auto shift = physics::lj_pair_params(eps, sig, rc, physics::LjStyle::shift);
  const auto sf = physics::lj_pair_params(eps, sig, rc, physics::LjStyle::shifted_force);
  const auto t0 = physics::lj_truncated<false>(r * r, cut);
  const auto t1 = physics::lj_truncated<false>(r * r, shift);
  const auto t2 = physics::lj_truncated<true>(r * r, sf);
  EXPECT_NEAR(t0.energy, u(r), 1e-12);
  EXPECT_NEAR(t0.force_over_r2 * r, f(r), 1e-11);
  EXPECT_NEAR(t1.energy, u(r) - u(rc), 1e-12);
  EXPECT_NEAR(t1.force_over_r2 * r, f(r), 1e-11);
  EXPECT_NEAR(t2.energy, u(r) - u(rc) + (r - rc) * f(rc), 1e-12);
  EXPECT_NEAR(t2.force_over_r2 * r, f(r) - f(rc), 1e-11);
  // Shifted force: U and F both vanish at rc.
  const auto at_rc = physics::lj_truncated<true>(rc * rc * (1 - 1e-15), sf);
  EXPECT_NEAR(at_rc.energy, 0.0, 1e-12);
  EXPECT_NEAR(at_rc.force_over_r2, 0.0, 1e-11);
}

TEST(MdPairStyles, MixingRules) {
  md::ForceField ff;
  ff.resize(2);
  ff.mass = {1, 1};
  ff.at(1, 1) = {1.0, 1.0, 2.0, true};
  ff.at(2, 2) = {4.0, 2.0, 3.0, true};
  ff.cutoff = 2.5;
  ff.mixing = md::Mixing::geometric;
  auto t = md::build_pair_table(ff);
  const auto g = physics::lj_pair_params(2.0, std::sqrt(2.0), std::sqrt(6.0), ff.style);
  EXPECT_NEAR(t.at(1, 2).a, g.a, 1e-12 * g.a);
  EXPECT_NEAR(t.at(2, 1).rc2, 6.0, 1e-12);
  ff.mixing = md::Mixing::arithmetic;
  t = md::build_pair_table(ff);
  const auto a = physics::lj_pair_params(2.0, 1.5, 2.5, ff.style);
  EXPECT_NEAR(t.at(1, 2).b, a.b, 1e-12 * a.b);
  EXPECT_NEAR(t.at(1, 2).rc2, 6.25, 1e-12);
  EXPECT_DOUBLE_EQ(t.max_cutoff, 3.0);
  ff.at(2, 2).given = false;
  EXPECT_THROW(md::build_pair_table(ff), Error);
}

INSTANTIATE_TEST_SUITE_P(AllBackends, MdForces, testing::ValuesIn(test::compiled_backend_cases()),
                         test::backend_case_name);

}  // namespace
