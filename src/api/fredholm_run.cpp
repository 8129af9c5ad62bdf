// `pairwise fredholm` (and `pairwise run` with workload = "fredholm"): the equation solved for
// each partial wave, a summary on stdout and the CSV files of [output], written atomically.
#include <cmath>
#include <complex>
#include <cstdio>
#include <numbers>

#include "api/run_output.hpp"
#include "core/io/atomic_file.hpp"
#include "core/signals.hpp"
#include "fredholm/run.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {

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
  const auto t0 = api::Clock::now();
  const Nodes nodes = make_nodes(rc.spec);
  const double t_nodes = api::seconds_since(t0);
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
  api::prepare_output_directory(rc.output.directory, out);
  if (is_complex(rc.spec)) return run_typed<std::complex<double>>(rc, backend, out);
  return run_typed<double>(rc, backend, out);
}

}  // namespace pairwise::fredholm
