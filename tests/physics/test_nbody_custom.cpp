// nbody custom potentials (issue 13): φ(r) = −1/√(r² + ε²) as a formula gives the built-in
// Plummer-softened kernel (a, jerk, φ) on reference and cpu; for another kernel a = −∇φ and the
// symbolically derived jerk = da/dt by central differences (1e-6); errors name the column.
#include <gtest/gtest.h>

#include <cmath>

#include "nbody/custom_gravity.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody_sets.hpp"
#include "pairwise/error.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::nbody;

Forces compute(BackendKind b, Precision p, const Particles& ps, double eps,
               const std::string& potential) {
  KernelOptions o;
  o.precision = p;
  o.eps2 = eps * eps;
  if (!potential.empty())
    o.custom = std::make_shared<const CustomGravity>(potential, eps, "[t]", "t");
  auto k = make_gravity_kernel(b, o);
  k->set_particles(ps);
  Forces f;
  k->compute(ForceKind::accel_jerk, f);
  return f;
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    num = std::max(num, std::abs(a[i] - b[i])), den = std::max(den, std::abs(b[i]));
  return num / den;
}

TEST(NbodyCustom, PlummerFormulaMatchesBuiltIn) {
  const Particles ps = test::random_particles(300, 7);
  const double eps = 0.05;
  const Forces ref = compute(BackendKind::reference, Precision::double_, ps, eps, "");
  for (auto [b, p, tol] : {std::tuple{BackendKind::reference, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::mixed, 2e-5}}) {
    const Forces f = compute(b, p, ps, eps, "-1/sqrt(r^2 + eps^2)");
    for (auto [x, y] : {std::pair{&f.ax, &ref.ax},
                        {&f.ay, &ref.ay},
                        {&f.az, &ref.az},
                        {&f.jx, &ref.jx},
                        {&f.jz, &ref.jz},
                        {&f.pot, &ref.pot}})
      EXPECT_LT(max_rel(*x, *y), tol) << to_string(b) << " " << to_string(p);
  }
}

TEST(NbodyCustom, AccelIsMinusGradientAndJerkIsDerivative) {
  const std::string phi = "-(1 + 0.3*exp(-r/lam))/sqrt(r^2 + eps^2); lam = 0.4";
  test::SetOptions so;
  so.min_separation = 0.05;  // keeps the third derivatives, and the differences' error, bounded
  const Particles ps = test::random_particles(64, 11, so);
  const double eps = 0.02;
  const Forces f = compute(BackendKind::reference, Precision::double_, ps, eps, phi);
  const double h = 1e-6;
  for (std::size_t k : {0u, 9u, 33u, 63u}) {
    // a_k = −∇_k φ_k: move particle k alone.
    for (int d = 0; d < 3; ++d) {
      Particles p = ps, m = ps;
      (d == 0 ? p.x : d == 1 ? p.y : p.z)[k] += h;
      (d == 0 ? m.x : d == 1 ? m.y : m.z)[k] -= h;
      const double fd = -(compute(BackendKind::reference, Precision::double_, p, eps, phi).pot[k] -
                          compute(BackendKind::reference, Precision::double_, m, eps, phi).pot[k]) /
                        (2 * h);
      const double a = (d == 0 ? f.ax : d == 1 ? f.ay : f.az)[k];
      EXPECT_NEAR(a, fd, 1e-6 * std::max(1.0, std::abs(a))) << "particle " << k << " dim " << d;
    }
  }
  // jerk = da/dt along the motion x ± h v.
  Particles p = ps, m = ps;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    p.x[i] += h * ps.vx[i], p.y[i] += h * ps.vy[i], p.z[i] += h * ps.vz[i];
    m.x[i] -= h * ps.vx[i], m.y[i] -= h * ps.vy[i], m.z[i] -= h * ps.vz[i];
  }
  const Forces fp = compute(BackendKind::reference, Precision::double_, p, eps, phi);
  const Forces fm = compute(BackendKind::reference, Precision::double_, m, eps, phi);
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const double fd[3] = {(fp.ax[k] - fm.ax[k]) / (2 * h), (fp.ay[k] - fm.ay[k]) / (2 * h),
                          (fp.az[k] - fm.az[k]) / (2 * h)};
    const double j[3] = {f.jx[k], f.jy[k], f.jz[k]};
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(j[d], fd[d], 1e-6 * std::max(1.0, std::abs(j[d])));
  }
  const Forces cpu = compute(BackendKind::cpu, Precision::double_, ps, eps, phi);
  EXPECT_LT(max_rel(cpu.jx, f.jx), 1e-12);
}

// The cuda backend runs a custom potential in single and mixed precision only
// (tests/conformance/test_gravity_formula.cpp); double is refused, as is a build without cuda.
TEST(NbodyCustom, ErrorsAndDoubleOnGpuRefused) {
  try {
    CustomGravity("-1/sqrt(r^2 + epss^2)", 0.01, "[system] potential", "p.toml:4");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown name 'epss' at column 15 in [system] potential, did you mean "
                 "'eps'?, p.toml:4");
  }
  KernelOptions o;
  o.precision = Precision::double_;
  o.custom = std::make_shared<const CustomGravity>("-1/r", 0.0, "[t]", "t");
  EXPECT_THROW(make_gravity_kernel(BackendKind::cuda, o), Error);
}

}  // namespace
