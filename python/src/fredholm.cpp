// pairwise.fredholm: Fredholm equations of the second kind (include/pairwise/fredholm.hpp).
#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <complex>

#include "arrays.hpp"
#include "pairwise/fredholm.hpp"

namespace pairwise::python {

namespace {

using namespace pybind11::literals;
namespace fr = pairwise::fredholm;

// A read-only numpy view of a member vector of the Result held by `self` (which it keeps alive).
py::array member_view(py::object self, const std::vector<double>& v, py::ssize_t cols = 0) {
  const auto n = py::ssize_t(v.size());
  py::array_t<double> a =
      cols == 0
          ? py::array_t<double>({n}, {py::ssize_t(sizeof(double))}, v.data(), self)
          : py::array_t<double>({n / cols, cols},
                                {py::ssize_t(sizeof(double)) * cols, py::ssize_t(sizeof(double))},
                                v.data(), self);
  a.attr("flags").attr("writeable") = false;
  return std::move(a);
}

// Real values as a view; complex ones (re, im apart in the Result) as a new complex128 array.
py::array values(py::object self, const std::vector<double>& re, const std::vector<double>& im) {
  if (im.empty()) return member_view(self, re);
  std::vector<std::complex<double>> c(re.size());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = {re[i], im[i]};
  return adopt_as(std::move(c), py::ssize_t(c.size()));
}

}  // namespace

void bind_fredholm(py::module_& parent) {
  auto m = parent.def_submodule(
      "fredholm",
      "Fredholm equations of the second kind f(t) = h(t) + lambda * integral K(t, s) f(s) ds on "
      "an interval or a box, by Nystrom's method on Gauss-Legendre nodes (docs/fredholm.md).");

  py::class_<fr::Equation>(m, "Equation", R"(An equation and its discretization.

Equation(kernel='exp_ts', n=16, dim=1, lower=(0, 0, 0), upper=(1, 1, 1), lam=1.0, rhs='',
         sigma=1.0, k=1.0, u0=1.0, l=0, kernel_formula='', kernel_formula_imag='',
         rhs_formula='', rhs_formula_imag='')
kernel: 'exp_ts' | 'power34' | 'gaussian' (sigma) | 'square_well' (k, u0 = K0^2, l) |
'helmholtz' (k, dim 3) | 'custom' (kernel_formula: K(t, s) in t, s, or tx ty tz sx sy sz and r in
2-D/3-D; kernel_formula_imag makes it complex; rhs_formula(_imag): h(t), docs/formulas.md); rhs: 'one' | 'exp_ts_smooth' | 'nr_fred2' | 'riccati_j' | 'plane_wave'
('' picks riccati_j for square_well, plane_wave for helmholtz, else one); n: nodes per dimension;
lower/upper: the box; lam: lambda.)")
      .def(py::init([](const std::string& kernel, long long n, int dim, std::array<double, 3> lower,
                       std::array<double, 3> upper, double lam, const std::string& rhs,
                       double sigma, double k, double u0, int l, const std::string& kernel_formula,
                       const std::string& kernel_formula_imag, const std::string& rhs_formula,
                       const std::string& rhs_formula_imag) {
             fr::Equation e;
             e.kernel = kernel, e.n = n, e.dim = dim, e.lower = lower, e.upper = upper;
             e.lambda = lam, e.rhs = rhs, e.sigma = sigma, e.k = k, e.u0 = u0, e.l = l;
             e.kernel_formula = kernel_formula, e.kernel_formula_imag = kernel_formula_imag;
             e.rhs_formula = rhs_formula, e.rhs_formula_imag = rhs_formula_imag;
             return e;
           }),
           py::kw_only(), "kernel"_a = "exp_ts", "n"_a = 16, "dim"_a = 1,
           "lower"_a = std::array<double, 3>{0, 0, 0}, "upper"_a = std::array<double, 3>{1, 1, 1},
           "lam"_a = 1.0, "rhs"_a = "", "sigma"_a = 1.0, "k"_a = 1.0, "u0"_a = 1.0, "l"_a = 0,
           "kernel_formula"_a = "", "kernel_formula_imag"_a = "", "rhs_formula"_a = "",
           "rhs_formula_imag"_a = "")
      .def_readwrite("kernel", &fr::Equation::kernel, "The kernel's name.")
      .def_readwrite("n", &fr::Equation::n, "Gauss-Legendre nodes per dimension.")
      .def_readwrite("dim", &fr::Equation::dim, "1, 2 or 3.")
      .def_readwrite("lower", &fr::Equation::lower, "Lower corner of the box.")
      .def_readwrite("upper", &fr::Equation::upper, "Upper corner of the box.")
      .def_readwrite("lam", &fr::Equation::lambda, "lambda.")
      .def_readwrite("rhs", &fr::Equation::rhs, "The right-hand side's name.")
      .def_readwrite("sigma", &fr::Equation::sigma, "gaussian: width.")
      .def_readwrite("k", &fr::Equation::k, "square_well, helmholtz: wave number.")
      .def_readwrite("u0", &fr::Equation::u0, "square_well: depth K0^2.")
      .def_readwrite("l", &fr::Equation::l, "square_well: angular momentum 0..3.")
      .def_readwrite("kernel_formula", &fr::Equation::kernel_formula,
                     "kernel = 'custom': K(t, s) (its real part when complex).")
      .def_readwrite("kernel_formula_imag", &fr::Equation::kernel_formula_imag,
                     "kernel = 'custom': the imaginary part of K ('' : real).")
      .def_readwrite("rhs_formula", &fr::Equation::rhs_formula, "h(t) as a formula ('' : rhs).")
      .def_readwrite("rhs_formula_imag", &fr::Equation::rhs_formula_imag,
                     "The imaginary part of h(t).");

  py::class_<fr::Result>(m, "Result", "A solution: nodes, weights, values and the solver's report.")
      .def_property_readonly(
          "points",
          [](py::object self) {
            const auto& r = self.cast<const fr::Result&>();
            return member_view(self, r.points, r.dim);
          },
          "The nodes, (N, dim) read-only float64 view.")
      .def_property_readonly(
          "weights",
          [](py::object self) { return member_view(self, self.cast<const fr::Result&>().weights); },
          "Quadrature weights (N,).")
      .def_property_readonly(
          "values",
          [](py::object self) {
            const auto& r = self.cast<const fr::Result&>();
            return values(self, r.values, r.imag);
          },
          "f at the nodes (N,): float64 (a view), or complex128 for complex kernels.")
      .def_property_readonly(
          "at_values",
          [](py::object self) {
            const auto& r = self.cast<const fr::Result&>();
            return values(self, r.at_values, r.at_imag);
          },
          "The Nystrom interpolant at the points passed as `at` to solve().")
      .def_readonly("method", &fr::Result::method, "The solver that ran.")
      .def_readonly("iterations", &fr::Result::iterations, "Solver iterations.")
      .def_readonly("products", &fr::Result::products, "Operator applications.")
      .def_readonly("residual", &fr::Result::residual,
                    "Relative residual ||h - (I - lambda A) f|| / ||h||.");

  m.def(
      "solve",
      [](const fr::Equation& e, const std::string& method, double tolerance, int max_iterations,
         int restart, const std::string& backend, const std::string& precision, py::object at) {
        fr::SolverSettings s;
        s.run = {backend_arg(backend), precision_arg(precision)};
        s.method = method, s.tolerance = tolerance, s.max_iterations = max_iterations;
        s.restart = restart;
        std::vector<double> points;
        if (!at.is_none()) {
          const auto a = py::array::ensure(at);
          points = e.dim == 1 && a && a.ndim() == 1 ? doubles(a, "at", -1, 0)
                                                    : doubles(at, "at", -1, e.dim);
        }
        // Equation and settings errors are InvalidArgument (ValueError); a failed solve is
        // pairwise.Error.
        return without_gil([&] { return fr::solve(e, s, points); });
      },
      "equation"_a, py::kw_only(), "method"_a = "gmres", "tolerance"_a = 1e-13,
      "max_iterations"_a = 1000, "restart"_a = 60, "backend"_a = "auto", "precision"_a = "double",
      "at"_a = py::none(),
      R"(Solves an Equation with the GIL released; returns a Result.

method: 'gmres' | 'fixed_point' | 'direct' (N <= 6000); tolerance: relative residual;
backend 'auto' | 'reference' | 'cpu' | 'cuda'; precision 'single' | 'mixed' | 'double';
at: points (M,) for dim 1 or (M, dim) where the Nystrom interpolant is wanted (Result.at_values).)");
  m.def(
      "phase_shift",
      [](const fr::Equation& e, const fr::Result& r) {
        return as_value_error([&] { return fr::phase_shift(e, r); });
      },
      "equation"_a, "result"_a,
      "Square well: the phase shift delta_l of a solution, tan delta_l = (K0^2/k) sum_j w_j "
      "j_l(k r_j) u_j (radians).");
  m.def("phase_shift_analytic", &fr::phase_shift_analytic, "l"_a, "k"_a, "u0"_a, "radius"_a = 1.0,
        "Square well: the analytic phase shift delta_l from matching the interior solution "
        "j_l(q r), q^2 = k^2 + u0, at r = radius.");
  m.def(
      "read_config",
      [](const std::string& path) {
        const fr::ConfigProblem p = as_value_error([&] { return fr::read_config(path); });
        return py::dict(
            "equation"_a = p.equation, "method"_a = p.solver.method,
            "tolerance"_a = p.solver.tolerance, "max_iterations"_a = p.solver.max_iterations,
            "restart"_a = p.solver.restart,
            "backend"_a = std::string(to_string(p.solver.run.backend)),
            "precision"_a = std::string(to_string(p.solver.run.precision)), "l_max"_a = p.l_max);
      },
      "path"_a,
      "Reads a TOML config as `pairwise fredholm` does: a dict of equation (an Equation), "
      "method, tolerance, max_iterations, restart, backend, precision and l_max (-1: a single "
      "l); solve(**...) takes them.");
}

}  // namespace pairwise::python
