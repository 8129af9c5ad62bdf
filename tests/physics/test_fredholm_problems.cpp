// The Must-hold lines of the Fredholm issue on the reference and cpu backends: Numerical Recipes'
// xfred2 errors, spectral convergence of the e^{ts} problem, agreement of the three solvers,
// partial-wave square-well phase shifts against the analytic ones, divergence detection, and
// Nyström interpolation.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "fredholm/solve.hpp"
#include "pairwise/error.hpp"
#include "pairwise/quadrature.hpp"

namespace pairwise::test {
namespace {

using namespace pairwise::fredholm;

Spec fred2(long long n) {
  Spec s;
  s.n = n;
  s.upper[0] = 0.5 * std::numbers::pi;
  s.kernel = KernelKind::power34;
  s.rhs = RhsKind::nr_fred2;
  return s;
}

Spec smooth(long long n, double lambda = 1.0) {
  Spec s;
  s.n = n;
  s.kernel = KernelKind::exp_ts;
  s.rhs = RhsKind::exp_ts_smooth;
  s.lambda = lambda;
  return s;
}

struct Solved {
  Nodes nodes;
  Solution<double> sol;
};

Solved solve_with(const Spec& spec, SolverKind method, BackendKind b = BackendKind::reference,
                  Precision p = Precision::double_) {
  Solved s;
  s.nodes = make_nodes(spec);
  MatvecOptions mo;
  mo.backend = b;
  mo.precision = p;
  auto m = make_matvec<double>(mo, spec, s.nodes);
  s.sol = solve(spec, s.nodes, *m, method, SolveOptions{});
  return s;
}

double max_error(const Spec& spec, const Solved& s) {
  const auto exact = exact_solution(spec);
  EXPECT_TRUE(exact.has_value());
  double e = 0;
  for (std::size_t i = 0; i < s.nodes.size(); ++i)
    e = std::max(e, std::abs(s.sol.f[i] - (*exact)(s.nodes.p[i])));
  return e;
}

// Numerical Recipes (2nd ed., §18.1, xfred2): N = 8, 16, 32 give about 6e-5, 3e-6, 1.4e-7.
TEST(FredholmProblems, NumericalRecipesFred2Errors) {
  const double expected[] = {6e-5, 3e-6, 1.4e-7};
  int row = 0;
  for (long long n : {8, 16, 32}) {
    const Spec spec = fred2(n);
    const double e = max_error(spec, solve_with(spec, SolverKind::direct));
    EXPECT_GT(e, 0.8 * expected[row]) << n;
    EXPECT_LT(e, 1.25 * expected[row]) << n;
    ++row;
  }
}

TEST(FredholmProblems, SmoothKernelConvergesSpectrally) {
  double previous = 1;
  for (long long n : {4, 8, 16}) {  // each doubling gains >= 2 digits until rounding
    const Spec spec = smooth(n);
    const double e = max_error(spec, solve_with(spec, SolverKind::gmres));
    EXPECT_LT(e, std::max(previous * 1e-2, 2e-15)) << n;
    previous = e;
    if (n == 16) {
      EXPECT_LE(e, 1e-13);
    }
  }
  const Spec spec = smooth(16);
  EXPECT_LE(max_error(spec, solve_with(spec, SolverKind::direct)), 1e-13);
  EXPECT_LE(max_error(spec, solve_with(spec, SolverKind::gmres, BackendKind::cpu)), 1e-13);
}

// λ = 0.5: the fixed point converges (spectral radius of e^{ts} on [0, 1] is about 1.35).
TEST(FredholmProblems, GmresFixedPointAndDirectAgree) {
  for (KernelKind k : {KernelKind::exp_ts, KernelKind::gaussian}) {
    Spec spec = smooth(40, 0.5);
    spec.kernel = k;
    spec.params.sigma2 = 0.3;
    const auto d = solve_with(spec, SolverKind::direct);
    const auto g = solve_with(spec, SolverKind::gmres);
    const auto f = solve_with(spec, SolverKind::fixed_point);
    EXPECT_GT(f.sol.report.iterations, 5);
    for (std::size_t i = 0; i < d.nodes.size(); ++i) {
      EXPECT_NEAR(g.sol.f[i], d.sol.f[i], 1e-10 * std::abs(d.sol.f[i]));
      EXPECT_NEAR(f.sol.f[i], d.sol.f[i], 1e-10 * std::abs(d.sol.f[i]));
    }
  }
}

TEST(FredholmProblems, DivergingFixedPointIsAClearError) {
  const Spec spec = smooth(16, 1.0);  // λ = 1 > 1 / 1.35
  try {
    solve_with(spec, SolverKind::fixed_point);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("diverges"), std::string::npos) << what;
    EXPECT_NE(what.find("gmres"), std::string::npos) << what;
  }
}

// Partial-wave Lippmann–Schwinger for an attractive square well (K0² = 4, R = 1, k = 1.5):
// δ_0..δ_3 within 1e-6 of the analytic values (measured ~1e-10 at N = 200).
TEST(FredholmProblems, SquareWellPhaseShifts) {
  for (int l = 0; l <= 3; ++l) {
    Spec spec;
    spec.n = 200;
    spec.kernel = KernelKind::square_well;
    spec.rhs = RhsKind::riccati_j;
    spec.params.k = 1.5;
    spec.params.u0 = 4.0;
    spec.params.l = l;
    spec.validate();
    const auto s = solve_with(spec, SolverKind::gmres, BackendKind::cpu);
    const double num = phase_shift_numeric(spec, s.nodes, s.sol.f);
    const double ana = phase_shift_analytic(l, 1.5, 4.0, 1.0);
    EXPECT_LT(std::abs(std::remainder(num - ana, std::numbers::pi)), 1e-6) << "l = " << l;
    if (l == 0) {
      EXPECT_GT(std::abs(ana), 0.5);  // a strong, not a Born-small, shift
    }
  }
}

// Interpolation reproduces the solution between the nodes (e^t to 1e-13) and at the nodes.
TEST(FredholmProblems, NystromInterpolation) {
  const Spec spec = smooth(16);
  const auto s = solve_with(spec, SolverKind::gmres);
  MatvecOptions mo;
  mo.backend = BackendKind::reference;
  auto m = make_matvec<double>(mo, spec, s.nodes);
  std::vector<Point> at;
  for (int i = 0; i <= 20; ++i) at.push_back(Point{i / 20.0, 0, 0});
  at.push_back(s.nodes.p[3]);
  const auto f = interpolate(spec, *m, s.sol.f, at);
  for (std::size_t i = 0; i + 1 < at.size(); ++i) EXPECT_NEAR(f[i], std::exp(at[i].x), 2e-13);
  EXPECT_NEAR(f.back(), s.sol.f[3], 1e-14);
}

// The 3-D Green's-function kernel: the row integral c(t) = ∫_box e^{ik|t-s|}/|t-s| ds of the
// singularity subtraction (Duffy pyramids with apex t) against an independent form: over the
// solid angle, face by face, ∫ dΩ ∫_0^P e^{ikρ} ρ dρ with P the distance to the face along the
// direction, i.e. Σ_faces ∫_face F(P) h / P³ dA, F(P) = (e^{ikP}(1 - ikP) - 1)/k², h the
// distance to the face's plane (smooth integrands, 400² Gauss–Legendre points per face).
TEST(FredholmProblems, HelmholtzRowIntegral) {
  Spec spec;
  spec.dim = 3;
  spec.lower = {-1, -1, -1};
  spec.upper = {1, 1, 1};
  spec.kernel = KernelKind::helmholtz;
  spec.params.k = 2.0;
  spec.rhs = RhsKind::plane_wave;
  spec.validate();
  const auto rule = quadrature::gauss_legendre(400, -1.0, 1.0);
  const double k = spec.params.k;
  const std::complex<double> i(0, 1);
  for (const Point t : {Point{0, 0, 0}, Point{0.3, -0.5, 0.6}}) {
    const std::complex<double> c = row_integral<std::complex<double>>(spec, t);
    const double tc[3] = {t.x, t.y, t.z};
    std::complex<double> ref = 0;
    for (int axis = 0; axis < 3; ++axis)
      for (double side : {-1.0, 1.0}) {
        const double h = std::abs(side - tc[axis]);
        for (std::size_t a = 0; a < rule.x.size(); ++a)
          for (std::size_t b = 0; b < rule.x.size(); ++b) {
            const double du = rule.x[a] - tc[(axis + 1) % 3], dv = rule.x[b] - tc[(axis + 2) % 3];
            const double p = std::sqrt(du * du + dv * dv + h * h);
            const std::complex<double> f =
                (std::exp(i * k * p) * (1.0 - i * k * p) - 1.0) / (k * k);
            ref += rule.w[a] * rule.w[b] * f * h / (p * p * p);
          }
      }
    EXPECT_NEAR(c.real(), ref.real(), 1e-9 * std::abs(ref)) << t.x;
    EXPECT_NEAR(c.imag(), ref.imag(), 1e-9 * std::abs(ref)) << t.x;
  }
}

// 3-D Lippmann–Schwinger on a cube (complex kernel, singularity subtraction): the solution at
// the centre (Nyström interpolation) converges as N grows, and for a weak potential it is the
// Born approximation ψ ≈ e^{ikz} + λ ∫ e^{ik|r-r'|}/|r-r'| e^{ikz'} dr' to O(λ²).
TEST(FredholmProblems, Helmholtz3dConvergesAndMatchesBornForWeakPotential) {
  auto centre_value = [](long long n, double lambda) {
    Spec spec;
    spec.dim = 3;
    spec.lower = {-1, -1, -1};
    spec.upper = {1, 1, 1};
    spec.n = n;
    spec.kernel = KernelKind::helmholtz;
    spec.params.k = 2.0;
    spec.rhs = RhsKind::plane_wave;
    spec.lambda = lambda;
    spec.validate();
    const Nodes nodes = make_nodes(spec);
    MatvecOptions mo;
    mo.backend = BackendKind::cpu;
    auto m = make_matvec<std::complex<double>>(mo, spec, nodes);
    SolveOptions so;
    so.tolerance = 1e-12;
    const auto sol = solve(spec, nodes, *m, SolverKind::gmres, so);
    const Point centre{0, 0, 0};
    return interpolate(spec, *m, sol.f, std::span<const Point>(&centre, 1))[0];
  };
  const double lambda = 0.08;
  const auto f4 = centre_value(4, lambda), f6 = centre_value(6, lambda),
             f8 = centre_value(8, lambda);
  EXPECT_LT(std::abs(f8 - f6), 0.5 * std::abs(f6 - f4));
  EXPECT_LT(std::abs(f8 - f6), 2e-3);
  // Born: ψ(0) = 1 + λ B + O(λ²), B = ∫_cube e^{ik|r'|}/|r'| e^{ikz'} dr', computed independently
  // in spherical coordinates about 0: per direction ∫_0^P ρ e^{iaρ} dρ = (e^{iaP}(1 - iaP) - 1)/a²,
  // a = k(1 + cos θ), P the distance to the cube's face; over the faces as in HelmholtzRowIntegral.
  const double k = 2.0;
  const auto rule = quadrature::gauss_legendre(200, -1.0, 1.0);
  const std::complex<double> i(0, 1);
  std::complex<double> born = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (double side : {-1.0, 1.0})
      for (std::size_t p = 0; p < rule.x.size(); ++p)
        for (std::size_t q = 0; q < rule.x.size(); ++q) {
          double r[3];
          r[axis] = side, r[(axis + 1) % 3] = rule.x[p], r[(axis + 2) % 3] = rule.x[q];
          const double dist = std::sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
          const double a = k * (1.0 + r[2] / dist);
          const std::complex<double> radial =
              a * dist < 1e-3 ? std::complex<double>(0.5 * dist * dist)
                              : (std::exp(i * a * dist) * (1.0 - i * a * dist) - 1.0) / (a * a);
          born += rule.w[p] * rule.w[q] * radial / (dist * dist * dist);  // h = 1
        }
  const double weak = 1e-5;
  const auto first_order = (centre_value(8, weak) - 1.0) / weak;
  EXPECT_LT(std::abs(first_order - born), 1e-3 * std::abs(born))  // measured 2.9e-4
      << first_order << " vs " << born;
  EXPECT_GT(std::abs(born), 1.0);  // a real scattering integral, not zero
}

}  // namespace
}  // namespace pairwise::test
