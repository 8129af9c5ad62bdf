// Every compiled backend's Fredholm kernel sum against the reference (double, plain loops), for
// every library kernel, and the solutions they lead to: single and mixed precision to FP32
// rounding, double to 1e-12 (issue: "cpu and cuda agree to single-precision rounding in single
// and to 1e-12 in double"). CUDA cases skip without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "backend_params.hpp"
#include "fredholm/solve.hpp"

namespace pairwise::test {
namespace {

using namespace pairwise::fredholm;

// ‖y - ref‖_∞ / ‖ref‖_∞ ... measured against the sum of magnitudes: FP32 rounding of a sum of N
// terms is ~u Σ|terms| however much they cancel.
template <class S>
double relative_error(const std::vector<S>& y, const std::vector<S>& ref,
                      const std::vector<double>& scale) {
  double e = 0;
  for (std::size_t i = 0; i < y.size(); ++i) e = std::max(e, std::abs(y[i] - ref[i]) / scale[i]);
  return e;
}

// FP32 rounding of a sum of N ~ 10^3 terms in float (single; worst case N·u = 6e-5, typical
// √N·u), of the FP32 kernel values alone (mixed: double sums), and double.
double tolerance(Precision p) {
  return p == Precision::double_ ? 1e-12 : p == Precision::mixed ? 2e-6 : 2e-5;
}

struct Case {
  std::string name;
  Spec spec;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  Spec s;
  s.n = 1000;  // not a multiple of the tiles: exercises padding and the split reduction
  s.kernel = KernelKind::exp_ts;
  out.push_back({"exp_ts", s});
  s.kernel = KernelKind::power34;
  s.upper[0] = 0.5 * std::numbers::pi;
  out.push_back({"power34", s});
  s.kernel = KernelKind::gaussian;
  s.params.sigma2 = 0.1;
  s.lower[0] = -1;
  out.push_back({"gaussian", s});
  Spec w;
  w.n = 700;
  w.kernel = KernelKind::square_well;
  w.params.k = 1.5;
  w.params.u0 = 4.0;
  w.params.l = 2;
  w.rhs = RhsKind::riccati_j;
  out.push_back({"square_well", w});
  Spec g;
  g.dim = 2;
  g.n = 37;
  g.kernel = KernelKind::gaussian;
  g.params.sigma2 = 0.5;
  out.push_back({"gaussian2d", g});
  Spec e3;
  e3.dim = 3;
  e3.n = 11;
  e3.kernel = KernelKind::exp_ts;
  out.push_back({"exp_ts3d", e3});
  return out;
}

class FredholmBackends : public BackendTest {};

template <class S>
void check_products(const Spec& spec, BackendKind b, Precision p, const std::string& name) {
  const Nodes nodes = make_nodes(spec);
  MatvecOptions ref_o, o;
  ref_o.backend = BackendKind::reference;
  o.backend = b;
  o.precision = p;
  auto ref = make_matvec<S>(ref_o, spec, nodes);
  auto m = make_matvec<S>(o, spec, nodes);
  std::vector<S> g(nodes.size()), y(nodes.size()), r(nodes.size());
  for (std::size_t j = 0; j < g.size(); ++j) {
    const double x = nodes.p[j].x + 0.3 * nodes.p[j].y - 0.2 * nodes.p[j].z;
    if constexpr (kIsComplex<S>) {
      g[j] = S(std::cos(3 * x), std::sin(2 * x) - 0.5);
    } else {
      g[j] = std::cos(3 * x) + 0.2;
    }
  }
  ref->apply(g, r);
  m->apply(g, y);
  // Σ_j |w_j K g_j| per target, from the reference with |g| and |K|.
  std::vector<double> scale(nodes.size(), 0.0);
  with_kernel(spec, [&](auto kernel) {
    for (std::size_t i = 0; i < nodes.size(); ++i)
      for (std::size_t j = 0; j < nodes.size(); ++j)
        scale[i] +=
            nodes.w[j] * std::abs(kernel_value<S>(kernel, nodes.p[i], nodes.p[j])) * std::abs(g[j]);
  });
  EXPECT_LE(relative_error(y, r, scale), tolerance(p)) << name;
  // apply_at on other targets (Nyström interpolation) as well.
  std::vector<Point> at = {nodes.p[0], Point{0.5 * (spec.lower[0] + spec.upper[0]), 0.1, 0.2}};
  if (spec.dim == 1) at[1].y = at[1].z = 0;
  if (spec.dim == 2) at[1].z = 0;
  std::vector<S> ya(2), ra(2);
  ref->apply_at(at, g, ra);
  m->apply_at(at, g, ya);
  const double max_scale = *std::max_element(scale.begin(), scale.end());
  for (int i = 0; i < 2; ++i) EXPECT_LE(std::abs(ya[i] - ra[i]), tolerance(p) * max_scale) << name;
}

TEST_P(FredholmBackends, ProductsMatchTheReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (const Case& c : cases())
    check_products<double>(c.spec, GetParam().backend, precision(), c.name);
}

TEST_P(FredholmBackends, ComplexHelmholtzProductsMatchTheReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  Spec s;
  s.dim = 3;
  s.n = 9;
  s.kernel = KernelKind::helmholtz;
  s.params.k = 3.0;
  s.rhs = RhsKind::plane_wave;
  check_products<std::complex<double>>(s, GetParam().backend, precision(), "helmholtz");
}

// Solutions through GMRES: the smooth problem reaches the backend's precision.
TEST_P(FredholmBackends, SmoothProblemSolution) {
  Spec s;
  s.n = 300;
  s.kernel = KernelKind::exp_ts;
  s.rhs = RhsKind::exp_ts_smooth;
  const Nodes nodes = make_nodes(s);
  MatvecOptions o;
  o.backend = GetParam().backend;
  o.precision = precision();
  auto m = make_matvec<double>(o, s, nodes);
  SolveOptions so;
  so.tolerance = precision() == Precision::double_ ? 1e-13 : 1e-6;
  const auto sol = solve(s, nodes, *m, SolverKind::gmres, so);
  double e = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    e = std::max(e, std::abs(sol.f[i] - std::exp(nodes.p[i].x)));
  EXPECT_LE(e, precision() == Precision::double_ ? 1e-12 : 2e-5);
}

// The engine's tiling at awkward sizes (one node, a tile ± 1, many more targets than sources
// through apply_at), and bitwise reproducibility run to run (fixed-order reductions).
TEST_P(FredholmBackends, OddSizesManyTargetsAndReproducibility) {
  for (long long n : {1, 2, 255, 257, 1500}) {
    Spec s;
    s.n = n;
    s.kernel = KernelKind::exp_ts;
    const Nodes nodes = make_nodes(s);
    MatvecOptions ref_o, o;
    ref_o.backend = BackendKind::reference;
    o.backend = GetParam().backend;
    o.precision = precision();
    auto ref = make_matvec<double>(ref_o, s, nodes);
    auto m = make_matvec<double>(o, s, nodes);
    std::vector<double> g(nodes.size());
    for (std::size_t j = 0; j < g.size(); ++j) g[j] = 1.0 + 0.5 * std::sin(7.0 * nodes.p[j].x);
    std::vector<Point> at(3 * nodes.size() + 5);
    for (std::size_t i = 0; i < at.size(); ++i) at[i] = Point{double(i) / double(at.size()), 0, 0};
    std::vector<double> y(at.size()), y2(at.size()), r(at.size());
    ref->apply_at(at, g, r);
    m->apply_at(at, g, y);
    m->apply_at(at, g, y2);
    for (std::size_t i = 0; i < at.size(); ++i) {
      double scale = 0;  // Σ_j |w_j e^{t s_j} g_j|
      for (std::size_t j = 0; j < nodes.size(); ++j)
        scale += nodes.w[j] * std::exp(at[i].x * nodes.p[j].x) * std::abs(g[j]);
      ASSERT_LE(std::abs(y[i] - r[i]), tolerance(precision()) * scale) << "n " << n << " i " << i;
      ASSERT_EQ(y[i], y2[i]) << "not reproducible: n " << n << " i " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, FredholmBackends, testing::ValuesIn(compiled_backend_cases()),
                         backend_case_name);

}  // namespace
}  // namespace pairwise::test
