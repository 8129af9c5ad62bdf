// Public API of the fredholm workload: Fredholm equations of the second kind
//   f(t) = h(t) + λ ∫_D K(t, s) f(s) ds
// on an interval or a box, discretized by Nyström's method on Gauss-Legendre nodes, solved on a
// backend with GMRES, fixed-point iteration or a dense direct solve (docs/fredholm.md).
//
//   pairwise::fredholm::Equation eq;  eq.kernel = "square_well"; eq.k = 1.5; eq.u0 = 4; eq.n = 200;
//   auto r = pairwise::fredholm::solve(eq, {});
//   double delta = pairwise::fredholm::phase_shift(eq, r);
#pragma once

#include <array>
#include <string>
#include <vector>

#include "pairwise/types.hpp"

namespace pairwise::fredholm {

struct Equation {
  int dim = 1;                                           // 1, 2 or 3
  std::array<double, 3> lower{0, 0, 0}, upper{1, 1, 1};  // the box [a, b] per dimension
  long long n = 16;                                      // Gauss-Legendre nodes per dimension
  double lambda = 1.0;
  std::string kernel = "exp_ts";  // exp_ts | power34 | gaussian | square_well | helmholtz
  std::string rhs;                // one | exp_ts_smooth | nr_fred2 | riccati_j | plane_wave
                                  // (empty: riccati_j for square_well, plane_wave for helmholtz,
                                  // else one)
  double sigma = 1.0;             // gaussian width
  double k = 1.0;                 // square_well, helmholtz: wave number
  double u0 = 1.0;                // square_well: depth K0²
  int l = 0;                      // square_well: angular momentum 0..3
  // kernel = "custom" (docs/formulas.md): K(t, s) as a formula in t, s (1-D) or tx ty tz, sx sy
  // sz and r = |t - s| (2-D/3-D); kernel_formula_imag makes it complex (kernel_formula is then
  // the real part). h(t): rhs_formula (and rhs_formula_imag), else `rhs`.
  std::string kernel_formula, kernel_formula_imag, rhs_formula, rhs_formula_imag;
};

struct SolverSettings {
  RunOptions run{BackendKind::automatic, Precision::double_};
  std::string method = "gmres";  // gmres | fixed_point | direct
  double tolerance = 1e-13;
  int max_iterations = 1000;
  int restart = 60;  // GMRES(m)
};

struct Result {
  int dim = 1;
  std::vector<double> points;              // the nodes, dim numbers each
  std::vector<double> weights;             // quadrature weights
  std::vector<double> values;              // f at the nodes (real part)
  std::vector<double> imag;                // imaginary part (complex kernels; else empty)
  std::vector<double> at_values, at_imag;  // the Nyström interpolant at the requested points
  std::string method;
  int iterations = 0, products = 0;
  double residual = 0;  // ‖h - (I - λA) f‖ / ‖h‖
};

// Solves the equation; `at` (dim numbers per point) asks for the Nyström interpolant there too.
// Throws pairwise::Error with the CLI's messages for a bad equation or a failed solve.
Result solve(const Equation& equation, const SolverSettings& settings,
             const std::vector<double>& at = {});

// Square well: the phase shift δ_l from a solution (tan δ_l = (K0²/k) Σ_j w_j ĵ_l(k r_j) u_j) and
// the analytic one from matching at r = R.
double phase_shift(const Equation& equation, const Result& result);
double phase_shift_analytic(int l, double k, double u0, double radius);

// A TOML config as `pairwise fredholm` reads it; l_max >= 0 when it asks for l = 0..l_max.
struct ConfigProblem {
  Equation equation;
  SolverSettings solver;
  int l_max = -1;
};
ConfigProblem read_config(const std::string& path);

}  // namespace pairwise::fredholm
