#include "fredholm/bench.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "core/bench_json.hpp"
#include "fredholm/solve.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {
namespace {

// The cpu backend is timed for products up to this N (N² kernel evaluations per product) and
// double-precision solves up to kCpuSolveMaxN (a minute on 16 cores); nothing is extrapolated.
constexpr long long kCpuMaxN = 65536;
constexpr long long kCpuSolveMaxN = 100000;

Spec smooth_problem(long long n) {
  Spec s;
  s.n = n;
  s.kernel = KernelKind::exp_ts;
  s.rhs = RhsKind::exp_ts_smooth;
  s.lambda = 1.0;
  return s;
}

struct Row {
  long long n;
  std::string precision, case_name, backend;
  double seconds, rate, speedup, extra;
};

}  // namespace

int run_fredholm_bench(const BenchOptions& options) {
  const BackendKind backend = resolve_bench_backend(options.backend);
  const bool with_cpu = options.compare_cpu && backend != BackendKind::cpu;
  BenchRun run("fredholm", options.json_path);
  std::vector<Row> rows;

  auto record = [&](const Matvec<double>& m, long long n, const std::string& case_name,
                    const std::string& metric, double value, const std::string& unit,
                    double seconds, nlohmann::json params) {
    BenchRecord r = bench_record("fredholm", case_name, m, std::size_t(n));
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    r.time_s = seconds;
    params["kernel"] = "exp_ts";
    params["domain"] = "[0, 1], Gauss-Legendre nodes";
    r.params = params;
    const double speedup =
        params.contains("speedup_vs_cpu") ? double(params["speedup_vs_cpu"]) : 0.0;
    const double extra = params.contains("max_error") ? double(params["max_error"]) : 0.0;
    rows.push_back({n, r.precision, case_name, r.backend, seconds,
                    metric == "kernel_evaluations_per_second" ? value : 0.0, speedup, extra});
    run.add(r);
  };

  run.cases([&] {
    for (const long long n : options.sizes) {
      const Spec spec = smooth_problem(n);
      const Nodes nodes = make_nodes(spec);
      std::vector<double> g(nodes.size());
      for (std::size_t i = 0; i < g.size(); ++i) g[i] = std::exp(nodes.p[i].x);
      const double evals = double(n) * double(n);
      for (const Precision prec : options.precisions) {
        MatvecOptions mo;
        mo.backend = backend;
        mo.precision = prec;
        std::unique_ptr<Matvec<double>> m;
        try {
          m = make_matvec<double>(mo, spec, nodes);
        } catch (const Error& e) {
          std::printf("# N=%lld %s: skipped (%s)\n", n, std::string(to_string(prec)).c_str(),
                      e.what());
          continue;
        }
        double cpu_s = 0;
        if (with_cpu && n <= kCpuMaxN) {
          run.next_case();
          mo.backend = BackendKind::cpu;
          auto cpu = make_matvec<double>(mo, spec, nodes);
          cpu_s = cpu->time_apply(g, std::max(1, std::min(options.repeats, 3)));
          record(*cpu, n, "matvec", "kernel_evaluations_per_second", evals / cpu_s, "1/s", cpu_s,
                 {{"repeats", std::min(options.repeats, 3)}, {"statistic", "median"}});
        }
        run.next_case();
        const int reps = n >= 1000000 ? std::max(3, options.repeats / 2) : options.repeats;
        const double s = m->time_apply(g, reps);
        nlohmann::json params{{"repeats", reps}, {"statistic", "median"}};
        if (cpu_s > 0) params["speedup_vs_cpu"] = cpu_s / s, params["cpu_time_s"] = cpu_s;
        record(*m, n, "matvec", "kernel_evaluations_per_second", evals / s, "1/s", s, params);
      }
    }

    if (options.solve) {
      for (const long long n : options.solve_sizes) {
        const Spec spec = smooth_problem(n);
        const auto t0 = std::chrono::steady_clock::now();
        const Nodes nodes = make_nodes(spec);
        const double t_nodes =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        for (const Precision prec : options.precisions) {
          SolveOptions so;
          so.tolerance = prec == Precision::double_ ? 1e-13 : 1e-6;
          double cpu_s = 0;
          auto run_one = [&](BackendKind b) {
            run.next_case();
            MatvecOptions mo;
            mo.backend = b;
            mo.precision = prec;
            auto m = make_matvec<double>(mo, spec, nodes);
            const auto t1 = std::chrono::steady_clock::now();
            const Solution<double> sol = solve(spec, nodes, *m, SolverKind::gmres, so);
            const double secs =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
            double err = 0;
            for (std::size_t i = 0; i < nodes.size(); ++i)
              err = std::max(err, std::abs(sol.f[i] - std::exp(nodes.p[i].x)));
            nlohmann::json params{{"method", "gmres"},
                                  {"tolerance", so.tolerance},
                                  {"iterations", sol.report.iterations},
                                  {"products", sol.report.products},
                                  {"relative_residual", sol.report.residual},
                                  {"max_error", err},
                                  {"nodes_time_s", t_nodes},
                                  {"timed",
                                   "GMRES with its products and transfers, host clock; "
                                   "Gauss-Legendre nodes apart (nodes_time_s)"}};
            if (b != BackendKind::cpu && cpu_s > 0)
              params["speedup_vs_cpu"] = cpu_s / secs, params["cpu_time_s"] = cpu_s;
            record(*m, n, "solve-gmres", "time_to_solution", secs, "s", secs, params);
            return secs;
          };
          try {
            if (with_cpu && n <= kCpuSolveMaxN && prec == Precision::double_)
              cpu_s = run_one(BackendKind::cpu);
            run_one(backend);
          } catch (const Error& e) {
            std::printf("# solve N=%lld %s: skipped (%s)\n", n,
                        std::string(to_string(prec)).c_str(), e.what());
          }
        }
      }
    }
  });

  std::printf("%10s  %-9s %-12s %-9s %12s %16s %9s %10s\n", "N", "precision", "case", "backend",
              "ms", "T evals/s", "vs cpu", "max err");
  for (const Row& r : rows) {
    char speed[32] = "", err[32] = "", rate[32] = "";
    if (r.speedup > 0) std::snprintf(speed, sizeof speed, "%8.1fx", r.speedup);
    if (r.extra > 0) std::snprintf(err, sizeof err, "%.2e", r.extra);
    if (r.rate > 0) std::snprintf(rate, sizeof rate, "%.4f", r.rate * 1e-12);
    std::printf("%10lld  %-9s %-12s %-9s %12.3f %16s %9s %10s\n", r.n, r.precision.c_str(),
                r.case_name.c_str(), r.backend.c_str(), r.seconds * 1e3, rate, speed, err);
  }
  return run.finish();
}

}  // namespace pairwise::fredholm
