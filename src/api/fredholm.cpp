// pairwise::fredholm::solve (include/pairwise/fredholm.hpp) over src/fredholm/: Spec, nodes,
// a backend's Matvec, the solvers and the Nyström interpolant.
#include "pairwise/fredholm.hpp"

#include <cmath>
#include <complex>

#include "api/arguments.hpp"
#include "core/config.hpp"
#include "fredholm/run_config.hpp"
#include "fredholm/solve.hpp"

namespace pairwise::fredholm {

namespace {

Spec to_spec(const Equation& e) {
  Spec s;
  s.dim = e.dim;
  s.lower = e.lower, s.upper = e.upper;
  s.n = e.n;
  s.lambda = e.lambda;
  const bool custom = e.kernel == "custom";
  s.kernel = custom ? KernelKind::exp_ts : parse_kernel(e.kernel);  // custom: replaced below
  if (!custom &&
      !(e.kernel_formula + e.kernel_formula_imag + e.rhs_formula + e.rhs_formula_imag).empty())
    throw InvalidArgument(
        "kernel_formula, kernel_formula_imag, rhs_formula and rhs_formula_imag "
        "are used with kernel = 'custom' only",
        "equation");
  if (custom && e.kernel_formula.empty())
    throw InvalidArgument("kernel = 'custom' needs kernel_formula", "equation");
  const std::string rhs = !e.rhs.empty()                        ? e.rhs
                          : s.kernel == KernelKind::square_well ? "riccati_j"
                          : s.kernel == KernelKind::helmholtz   ? "plane_wave"
                                                                : "one";
  s.rhs = parse_rhs(rhs);
  if (!(e.sigma > 0)) throw Error("sigma must be > 0", "equation");
  s.params.sigma2 = e.sigma * e.sigma;
  s.params.k = e.k, s.params.u0 = e.u0, s.params.l = e.l;
  if (e.dim < 1 || e.dim > 3) throw Error("dim must be 1, 2 or 3", "equation");
  if (const auto issue = check_nodes(s)) throw Error("n " + issue->message, "equation");
  if (const auto issue = check_domain(s)) throw Error(issue->message, "equation");
  if (custom) {
    auto text = [](const std::string& t, const char* key) {
      return FormulaText{t, key, "equation"};
    };
    s.custom = api::checked_argument([&] {
      return std::make_shared<const CustomKernel>(
          e.dim, text(e.kernel_formula, "kernel_formula"),
          text(e.kernel_formula_imag, "kernel_formula_imag"), text(e.rhs_formula, "rhs_formula"),
          text(e.rhs_formula_imag, "rhs_formula_imag"));
    });
  }
  s.validate("equation");
  return s;
}

template <class S>
Result solve_typed(const Spec& spec, const SolverSettings& st, SolverKind method,
                   BackendKind backend, const std::vector<double>& at) {
  const Nodes nodes = make_nodes(spec);
  MatvecOptions mo;
  mo.backend = backend;
  mo.precision = st.run.precision;
  auto matvec = make_matvec<S>(mo, spec, nodes);
  SolveOptions so;
  so.tolerance = st.tolerance, so.max_iterations = st.max_iterations, so.restart = st.restart;
  Solution<S> sol = solve(spec, nodes, *matvec, method, so);
  Result r;
  r.dim = spec.dim;
  const std::size_t n = nodes.size();
  r.weights = nodes.w;
  r.points.reserve(n * std::size_t(spec.dim));
  for (const Point& p : nodes.p) {
    r.points.push_back(p.x);
    if (spec.dim > 1) r.points.push_back(p.y);
    if (spec.dim > 2) r.points.push_back(p.z);
  }
  auto split = [](const std::vector<S>& v, std::vector<double>& re, std::vector<double>& im) {
    re.resize(v.size());
    if constexpr (kIsComplex<S>) im.resize(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      if constexpr (kIsComplex<S>) {
        re[i] = v[i].real(), im[i] = v[i].imag();
      } else {
        re[i] = v[i];
      }
    }
  };
  split(sol.f, r.values, r.imag);
  if (!at.empty()) {
    std::vector<Point> points(at.size() / std::size_t(spec.dim));
    for (std::size_t i = 0; i < points.size(); ++i) {
      points[i].x = at[i * spec.dim];
      if (spec.dim > 1) points[i].y = at[i * spec.dim + 1];
      if (spec.dim > 2) points[i].z = at[i * spec.dim + 2];
    }
    split(interpolate(spec, *matvec, sol.f, points), r.at_values, r.at_imag);
  }
  r.method = sol.report.method;
  r.iterations = sol.report.iterations, r.products = sol.report.products;
  r.residual = sol.report.residual;
  return r;
}

}  // namespace

Result solve(const Equation& equation, const SolverSettings& settings,
             const std::vector<double>& at) {
  const Spec spec = api::checked_argument([&] { return to_spec(equation); });
  const SolverKind method = api::checked_argument([&] { return parse_solver(settings.method); });
  if (const auto issue = check_solver(spec, method)) throw InvalidArgument(*issue, "solver");
  if (!(settings.tolerance > 0) || settings.max_iterations < 1 || settings.restart < 1)
    throw InvalidArgument("tolerance must be > 0, max_iterations and restart >= 1", "solver");
  if (at.size() % std::size_t(spec.dim) != 0)
    throw InvalidArgument(
        "the interpolation points need " + std::to_string(spec.dim) + " coordinates each", "at");
  const BackendKind backend = resolve_backend(settings.run.backend);
  if (is_complex(spec))
    return solve_typed<std::complex<double>>(spec, settings, method, backend, at);
  return solve_typed<double>(spec, settings, method, backend, at);
}

double phase_shift(const Equation& equation, const Result& result) {
  const Spec spec = api::checked_argument([&] { return to_spec(equation); });
  if (spec.kernel != KernelKind::square_well)
    throw InvalidArgument("phase shifts need kernel = square_well", "equation");
  Nodes nodes;
  nodes.w = result.weights;
  nodes.p.resize(result.weights.size());
  if (result.points.size() != nodes.p.size() || result.values.size() != nodes.p.size())
    throw InvalidArgument("the result does not belong to a 1-D equation", "result");
  for (std::size_t i = 0; i < nodes.p.size(); ++i) nodes.p[i].x = result.points[i];
  return phase_shift_numeric(spec, nodes, result.values);
}

// phase_shift_analytic: declared by the public header and by src/fredholm/problem.hpp with the
// same signature; src/fredholm/problem.cpp defines it.

ConfigProblem read_config(const std::string& path) {
  auto config = config::Config::load(path);
  const RunConfig rc = read_run_config(config);
  ConfigProblem p;
  Equation& e = p.equation;
  e.dim = rc.spec.dim;
  e.lower = rc.spec.lower, e.upper = rc.spec.upper;
  e.n = rc.spec.n;
  e.lambda = rc.spec.lambda;
  e.kernel = std::string(to_string(rc.spec.kernel));
  e.rhs = std::string(to_string(rc.spec.rhs));
  e.sigma = std::sqrt(rc.spec.params.sigma2);
  e.k = rc.spec.params.k, e.u0 = rc.spec.params.u0, e.l = rc.spec.params.l;
  if (rc.spec.custom) {
    e.kernel = "custom";
    const auto& f = rc.spec.custom->formulas();
    e.kernel_formula = f[0], e.kernel_formula_imag = f[1];
    e.rhs_formula = f[2], e.rhs_formula_imag = f[3];
  }
  p.solver.run = {rc.backend, rc.precision};
  p.solver.method = std::string(to_string(rc.method));
  p.solver.tolerance = rc.solve.tolerance;
  p.solver.max_iterations = rc.solve.max_iterations;
  p.solver.restart = rc.solve.restart;
  p.l_max = rc.l_max;
  return p;
}

}  // namespace pairwise::fredholm
