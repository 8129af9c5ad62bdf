// potmap custom φ(r) (issue 13): φ = 1/r as a formula gives the built-in direct map (reference
// 1e-12, cpu double 1e-12, single 1e-5); a Debye–Hückel φ against a direct double sum; cutoff as
// plain truncation; errors name the column; cuda refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "pairwise/error.hpp"
#include "potmap/custom_phi.hpp"
#include "potmap/map.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::potmap;

Atoms random_atoms(int n, std::uint64_t seed) {
  Atoms a;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 10), q(-1, 1);
  for (int i = 0; i < n; ++i) a.push_back(u(rng), u(rng), u(rng), q(rng));
  return a;
}

double max_rel(const std::vector<double>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    num = std::max(num, std::abs(got[i] - ref[i])), den = std::max(den, std::abs(ref[i]));
  return num / den;
}

TEST(PotmapCustom, CoulombFormulaMatchesBuiltInDirectMap) {
  const Atoms atoms = random_atoms(300, 3);
  const Lattice lattice = lattice_around(atoms, 0.7, 1.0);
  MapOptions o;
  o.precision = Precision::double_;
  o.exclusion = 0.5;
  const auto ref = compute_map(BackendKind::reference, atoms, lattice, o).values;
  o.custom = std::make_shared<const CustomPhi>("1/r", 0.0, "[map] phi", "t");
  for (auto [b, p, tol] : {std::tuple{BackendKind::reference, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::single, 1e-5}}) {
    o.precision = p;
    const auto got = compute_map(b, atoms, lattice, o).values;
    EXPECT_LT(max_rel(got, ref), tol) << to_string(b) << " " << to_string(p);
  }
}

TEST(PotmapCustom, DebyeHuckelWithCutoffAgainstDirectSum) {
  const Atoms atoms = random_atoms(200, 5);
  const Lattice lattice = lattice_around(atoms, 1.0, 0.5);
  MapOptions o;
  o.precision = Precision::double_;
  o.cutoff = 6.0;
  o.custom = std::make_shared<const CustomPhi>(
      "exp(-r/lambda)/(eps_r*r); lambda = 7.8; eps_r = 78.5", 6.0, "[map] phi", "t");
  const auto got = compute_map(BackendKind::cpu, atoms, lattice, o).values;
  const auto& n = lattice.counts;
  for (std::size_t idx = 0; idx < lattice.size(); idx += 97) {
    const std::size_t i = idx / (n[1] * n[2]), j = (idx / n[2]) % n[1], k = idx % n[2];
    double v = 0;
    for (std::size_t a = 0; a < atoms.size(); ++a) {
      const double r =
          std::hypot(lattice.coord(0, i) - atoms.x[a], lattice.coord(1, j) - atoms.y[a],
                     lattice.coord(2, k) - atoms.z[a]);
      if (r < 6.0) v += atoms.q[a] * std::exp(-r / 7.8) / (78.5 * r);
    }
    EXPECT_NEAR(got[idx], v, 1e-12 * std::max(1.0, std::abs(v)));
  }
  EXPECT_THROW(compute_map(BackendKind::cuda, atoms, lattice, o), Error);
}

TEST(PotmapCustom, ErrorsNameTheColumn) {
  try {
    CustomPhi("exp(-r/lamda)/r; lambda = 7.8", 0, "[map] phi", "dh.toml:12");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(
        e.what(),
        "unknown name 'lamda' at column 8 in [map] phi, did you mean 'lambda'?, dh.toml:12");
  }
}

}  // namespace
