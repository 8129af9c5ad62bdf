// ljc custom non-bonded term (issue 13): LJ (Lorentz–Berthelot) + constant-dielectric Coulomb
// written as a formula in place of the built-in term gives the built-in forces and energy (1-4
// scales equal, so the one 1-4 factor of the custom term matches), on reference and cpu; a term
// beside LJ + Coulomb adds −∇U (central differences, exclusions and 1-4 scaling kept).
#include <gtest/gtest.h>

#include <cmath>

#include "ljc/custom_nonbonded.hpp"
#include "ljc_sets.hpp"
#include "pairwise/error.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::ljc;

const char* kLjCoulomb =
    "4*eps*((sig/r)^12 - (sig/r)^6) + 332.0636*q1*q2/(2*r); eps = sqrt(epsilon1*epsilon2); "
    "sig = (sigma1 + sigma2)/2";

LjcForces forces(BackendKind b, const Molecule& m, const NonbondedOptions& nb,
                 std::shared_ptr<const CustomNonbonded> custom) {
  LjcKernelOptions o;
  o.precision = Precision::double_;
  o.custom = std::move(custom);
  auto k = make_ljc_kernel(b, o);
  return test::ljc_forces(*k, m, nb);
}

double rel(const LjcForces& a, const LjcForces& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.fx.size(); ++i) {
    num += std::pow(a.fx[i] - b.fx[i], 2) + std::pow(a.fy[i] - b.fy[i], 2) +
           std::pow(a.fz[i] - b.fz[i], 2);
    den += b.fx[i] * b.fx[i] + b.fy[i] * b.fy[i] + b.fz[i] * b.fz[i];
  }
  return std::sqrt(num / den);
}

TEST(LjcCustom, FormulaReplacingLjCoulombMatchesBuiltIn) {
  const Molecule m = test::ljc_globule_per_atom_lj(200);
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);  // ε = 2
  nb.scale14_lj = nb.scale14_coulomb = 0.5;
  const LjcForces ref = forces(BackendKind::reference, m, nb, nullptr);
  auto custom = std::make_shared<const CustomNonbonded>(kLjCoulomb, true, "[t]", "t");
  for (BackendKind b : {BackendKind::reference, BackendKind::cpu}) {
    const LjcForces got = forces(b, m, nb, custom);
    EXPECT_LT(rel(got, ref), 1e-12) << to_string(b);
    EXPECT_EQ(got.lj, 0.0);
    EXPECT_EQ(got.coulomb, 0.0);
    EXPECT_NEAR(got.custom, ref.lj + ref.coulomb, 1e-12 * std::abs(ref.lj + ref.coulomb));
    EXPECT_NEAR(got.bond, ref.bond, 1e-12 * std::abs(ref.bond));
  }
}

TEST(LjcCustom, TermBesideLjCoulombIsMinusGradient) {
  const Molecule m = test::ljc_globule(60);
  const NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  auto custom = std::make_shared<const CustomNonbonded>(
      "A*exp(-r/(sigma1 + sigma2))*(1 + q1*q2); A = 0.3", false, "[t]", "t");
  const LjcForces f = forces(BackendKind::cpu, m, nb, custom);
  const LjcForces base = forces(BackendKind::cpu, m, nb, nullptr);
  EXPECT_NE(f.custom, 0.0);
  EXPECT_NEAR(f.lj, base.lj, 1e-12 * std::abs(base.lj));
  const double h = 1e-5;
  for (std::size_t i : {0u, 13u, 59u})
    for (int d = 0; d < 3; ++d) {
      Molecule p = m, q = m;
      (d == 0 ? p.x : d == 1 ? p.y : p.z)[i] += h;
      (d == 0 ? q.x : d == 1 ? q.y : q.z)[i] -= h;
      const double fd = -(forces(BackendKind::reference, p, nb, custom).energy() -
                          forces(BackendKind::reference, q, nb, custom).energy()) /
                        (2 * h);
      const double got = (d == 0 ? f.fx : d == 1 ? f.fy : f.fz)[i];
      EXPECT_NEAR(got, fd, 1e-6 * std::max(1.0, std::abs(got))) << i << " " << d;
    }
}

TEST(LjcCustom, ErrorsNameTheColumn) {
  try {
    CustomNonbonded("4*sqrt(epsilon1*epsilonn2)/r", false, "[forcefield] custom", "g.toml:7");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown name 'epsilonn2' at column 17 in [forcefield] custom, did you "
                 "mean 'epsilon2'?, g.toml:7");
  }
}

}  // namespace
