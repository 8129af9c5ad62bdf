#include "fredholm/run.hpp"

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "core/io/atomic_file.hpp"
#include "core/io/growing_file.hpp"
#include "core/signals.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {

RunConfig read_run_config(config::Config& config) {
  RunConfig rc;
  rc.source = config.source();
  const auto root = config.root();
  const std::string workload = root.string("workload", "fredholm");
  if (workload != "fredholm")
    root.fail("workload", "this command runs workload = \"fredholm\", not '" + workload + "'");
  Spec& sp = rc.spec;
  {
    const auto s = config.section("domain");
    sp.dim = int(s.integer("dim", 1, 1, 3));
    sp.n = s.integer("n", 16, std::numeric_limits<long long>::min(),
                     std::numeric_limits<long long>::max());
    if (sp.n <= 0) s.fail("n", "must be a positive number of nodes, got " + std::to_string(sp.n));
    sp.lower[0] = s.number("a", 0.0);
    sp.upper[0] = s.number("b", 1.0);
    const char* lo_keys[] = {"a", "a_y", "a_z"};
    const char* hi_keys[] = {"b", "b_y", "b_z"};
    for (int d = 1; d < 3; ++d) {
      if (d < sp.dim) {
        sp.lower[d] = s.number(lo_keys[d], sp.lower[0]);
        sp.upper[d] = s.number(hi_keys[d], sp.upper[0]);
      } else {
        for (const char* key : {lo_keys[d], hi_keys[d]})
          if (s.has(key)) s.fail(key, "is not used with dim = " + std::to_string(sp.dim));
      }
    }
    for (int d = 0; d < sp.dim; ++d)
      if (!(sp.lower[d] < sp.upper[d]))
        s.fail(d == 0 ? "b" : hi_keys[d],
               "the domain needs a < b, got a = " + std::to_string(sp.lower[d]) +
                   ", b = " + std::to_string(sp.upper[d]));
  }
  {
    const auto s = config.section("equation");
    if (!read_custom_kernel(s, sp))  // kernel = "custom": kernel_formula, rhs_formula
      sp.kernel = s.choice("kernel", "exp_ts", parse_kernel);
    const bool well = sp.kernel == KernelKind::square_well;
    sp.rhs = s.choice("rhs",
                      well                                 ? "riccati_j"
                      : sp.kernel == KernelKind::helmholtz ? "plane_wave"
                                                           : "one",
                      parse_rhs);
    sp.lambda = s.number("lambda", 1.0);
    if (sp.kernel == KernelKind::gaussian) {
      const double sigma = s.number("sigma", 1.0, config::Range::positive());
      sp.params.sigma2 = sigma * sigma;
    }
    if (well || sp.kernel == KernelKind::helmholtz)
      sp.params.k = s.number("k", 1.0, config::Range::positive());
    if (well) {
      sp.params.u0 = s.number("u0", 1.0);
      sp.params.l = int(s.integer("l", 0, 0, 3));
      rc.l_max = int(s.integer("l_max", -1, -1, 3));
      if (rc.l_max >= 0 && s.has("l")) s.fail("l_max", "give either l or l_max");
    }
    try {
      sp.validate();
    } catch (const Error& e) {
      s.fail("kernel", e.message());
    }
  }
  {
    const auto s = config.section("solver");
    rc.method = s.choice("method", "gmres", parse_solver);
    rc.solve.tolerance = s.number("tolerance", rc.solve.tolerance, config::Range::positive());
    rc.solve.max_iterations =
        int(s.integer("max_iterations", rc.solve.max_iterations, 1, 100000000));
    rc.solve.restart = int(s.integer("restart", rc.solve.restart, 1, 10000));
    if (rc.method == SolverKind::direct && sp.total_nodes() > kDirectMaxN)
      s.fail("method", "the direct solver is for N <= " + std::to_string(kDirectMaxN) +
                           " nodes, got " + std::to_string(sp.total_nodes()) +
                           "; use method = \"gmres\"");
  }
  {
    const auto s = config.section("run");
    rc.backend = s.choice("backend", "auto", parse_backend);
    rc.precision = s.choice("precision", "double", parse_precision);
  }
  {
    const auto s = config.section("output");
    auto& o = rc.output;
    o.directory = (config.base_directory() / s.string("directory", ".")).lexically_normal();
    const std::string stem = std::filesystem::path(config.source()).stem().string();
    o.prefix = s.string("prefix", stem.empty() ? "fredholm" : stem);
    if (o.prefix.empty() || o.prefix.find('/') != std::string::npos)
      s.fail("prefix", "must be a non-empty file name without '/'");
    o.nodes = s.boolean("nodes", true);
    o.grid_points = s.integer("grid_points", 0, 0, 100000000);
    o.grid_a = s.number("grid_a", sp.lower[0]);
    o.grid_b = s.number("grid_b", sp.upper[0]);
    if (o.grid_points > 0 && sp.dim > 1 &&
        double(o.grid_points) *
                (sp.dim == 3 ? double(o.grid_points) * o.grid_points : o.grid_points) >
            1e8)
      s.fail("grid_points", "the grid (grid_points^dim points) is too large");
  }
  config.check_unused();
  return rc;
}

namespace {

std::string fmt(double v, const char* f = "%.17g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

template <class S>
void write_values(std::ostream& os, const S& v) {
  if constexpr (kIsComplex<S>) {
    os << fmt(v.real()) << ',' << fmt(v.imag());
  } else {
    os << fmt(v);
  }
}

// "<sep><l>" (built with append: GCC 12 warns falsely about operator+ on short literals here).
std::string wave_suffix(const char* sep, int l) {
  std::string s(sep);
  s.append(std::to_string(l));
  return s;
}

std::string coordinate_header(int dim) {
  return dim == 1 ? "t" : dim == 2 ? "x,y" : "x,y,z";
}
void write_point(std::ostream& os, const Point& p, int dim) {
  os << fmt(p.x);
  if (dim > 1) os << ',' << fmt(p.y);
  if (dim > 2) os << ',' << fmt(p.z);
}

template <class S>
int run_typed(const RunConfig& rc, BackendKind backend, std::ostream& out) {
  std::vector<int> waves;
  if (rc.spec.kernel == KernelKind::square_well && rc.l_max >= 0) {
    for (int l = 0; l <= rc.l_max; ++l) waves.push_back(l);
  } else {
    waves.push_back(rc.spec.params.l);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const Nodes nodes = make_nodes(rc.spec);
  const double t_nodes =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out << "# nodes: " << nodes.size() << " Gauss-Legendre (" << rc.spec.n << " per dimension, "
      << fmt(t_nodes, "%.3f") << " s)\n";
  const auto exact = exact_solution(rc.spec);
  const bool well = rc.spec.kernel == KernelKind::square_well;
  std::vector<std::vector<S>> solutions;
  std::vector<Spec> specs;
  int status = 0;
  for (int l : waves) {
    Spec spec = rc.spec;
    spec.params.l = l;
    MatvecOptions mo;
    mo.backend = backend;
    mo.precision = rc.precision;
    auto matvec = make_matvec<S>(mo, spec, nodes);
    if (l == waves.front())
      out << "# backend: " << matvec->device_name() << ", precision " << to_string(rc.precision)
          << "\n";
    Solution<S> sol = solve(spec, nodes, *matvec, rc.method, rc.solve);
    if (well) out << "l = " << l << ": ";
    out << "method " << sol.report.method << ", " << sol.report.iterations << " iterations, "
        << sol.report.products << " products, relative residual "
        << fmt(sol.report.residual, "%.3e") << ", " << fmt(sol.report.seconds, "%.4f") << " s\n";
    if constexpr (!kIsComplex<S>) {
      if (exact) {
        double err = 0;
        for (std::size_t i = 0; i < nodes.size(); ++i)
          err = std::max(err, std::abs(sol.f[i] - (*exact)(nodes.p[i])));
        out << "max error at the nodes vs the exact solution: " << fmt(err, "%.3e") << "\n";
      }
      if (well) {
        const double num = phase_shift_numeric(spec, nodes, sol.f);
        const double ana = phase_shift_analytic(l, spec.params.k, spec.params.u0, spec.upper[0]);
        double diff = std::remainder(num - ana, std::numbers::pi);
        out << "phase shift delta_" << l << " = " << fmt(num, "%.12f") << " (analytic "
            << fmt(ana, "%.12f") << ", difference " << fmt(diff, "%.2e") << ")\n";
      }
    }
    if (rc.output.grid_points > 0) {
      // interpolation needs the matvec of this wave: do it now
      std::vector<Point> grid;
      const long long m = rc.output.grid_points;
      const int dim = rc.spec.dim;
      const long long total = dim == 1 ? m : dim == 2 ? m * m : m * m * m;
      grid.reserve(std::size_t(total));
      auto coord = [&](int d, long long k) {
        const double a = d == 0 ? rc.output.grid_a : rc.spec.lower[d];
        const double b = d == 0 ? rc.output.grid_b : rc.spec.upper[d];
        return m == 1 ? 0.5 * (a + b) : a + (b - a) * double(k) / double(m - 1);
      };
      for (long long idx = 0; idx < total; ++idx) {
        Point p;
        p.x = coord(0, idx % m);
        if (dim > 1) p.y = coord(1, (idx / m) % m);
        if (dim > 2) p.z = coord(2, idx / (m * m));
        grid.push_back(p);
      }
      const std::vector<S> fi = interpolate(spec, *matvec, sol.f, grid);
      std::string name = rc.output.prefix +
                         (well && waves.size() > 1 ? wave_suffix(".l", l) : std::string()) +
                         ".grid.csv";
      io::write_file_atomically(rc.output.directory / name, [&](std::ostream& os) {
        os << coordinate_header(dim) << (kIsComplex<S> ? ",f_re,f_im" : ",f")
           << (exact && !kIsComplex<S> ? ",exact,error" : "") << "\n";
        for (std::size_t i = 0; i < grid.size(); ++i) {
          write_point(os, grid[i], dim);
          os << ',';
          write_values(os, fi[i]);
          if constexpr (!kIsComplex<S>) {
            if (exact) {
              const double e = (*exact)(grid[i]);
              os << ',' << fmt(e) << ',' << fmt(fi[i] - e, "%.3e");
            }
          }
          os << "\n";
        }
      });
      out << "wrote " << (rc.output.directory / name).string() << "\n";
    }
    solutions.push_back(std::move(sol.f));
    maybe_raise_test_signal(l);
    if (const int sig = stop_requested(); sig != 0 && l != waves.back()) {
      // A solve is not checkpointed (it takes seconds to minutes): say what is missing.
      out << "stopped by " << signal_name(sig) << " after l = " << l
          << ": the remaining partial waves were not solved and " << rc.output.prefix
          << ".nodes.csv was not written\n"
          << std::flush;
      return stop_exit_code(sig);
    }
  }
  if (rc.output.nodes) {
    const auto path = rc.output.directory / (rc.output.prefix + ".nodes.csv");
    io::write_file_atomically(path, [&](std::ostream& os) {
      os << coordinate_header(rc.spec.dim) << ",w";
      for (int l : waves) {
        const std::string suffix = waves.size() > 1 ? wave_suffix("_", l) : std::string();
        os << (kIsComplex<S> ? ",f_re" + suffix + ",f_im" + suffix : ",f" + suffix);
      }
      if (exact && !kIsComplex<S>) os << ",exact,error";
      os << "\n";
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        write_point(os, nodes.p[i], rc.spec.dim);
        os << ',' << fmt(nodes.w[i]);
        for (const auto& f : solutions) {
          os << ',';
          write_values(os, f[i]);
        }
        if constexpr (!kIsComplex<S>) {
          if (exact) {
            const double e = (*exact)(nodes.p[i]);
            os << ',' << fmt(e) << ',' << fmt(solutions[0][i] - e, "%.3e");
          }
        }
        os << "\n";
      }
    });
    out << "wrote " << path.string() << "\n";
  }
  return status;
}

}  // namespace

int run_fredholm(const RunConfig& rc, std::ostream& out) {
  StopSignals stop_signals;  // checked between the partial waves of a square well
  std::string note;
  const BackendKind backend = resolve_backend(rc.backend, &note);
  if (!note.empty()) out << "# " << note << "\n";
  std::error_code ec;
  std::filesystem::create_directories(rc.output.directory, ec);
  if (ec)
    throw Error("cannot create the output directory: " + ec.message(),
                rc.output.directory.string());
  out << io::remove_stale_temp_files(rc.output.directory);
  if (is_complex(rc.spec.kernel)) return run_typed<std::complex<double>>(rc, backend, out);
  return run_typed<double>(rc, backend, out);
}

}  // namespace pairwise::fredholm
