// `pairwise bench nbody` (bench.hpp): GA, GAJ and block steps through the GravityKernel interface.
//
// Particles: uniform random in the unit sphere, masses 1/N, velocities uniform in [-0.5, 0.5]³
// (seed 1), ε² = 1e-4 (any ε > 0 gives the same speed). Interactions are counted as N² per force
// evaluation and n_active × N per block step; GFLOP/s uses Elsen et al.'s 19 (GA) and 42 (GAJ)
// flops per interaction. The cpu backend is timed in the same run for N <= kCpuMaxN (full
// evaluations; nothing is extrapolated) and the speedup is reported only where both were measured.
#include "nbody/bench.hpp"
#include "core/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>

#include "core/bench_json.hpp"
#include "nbody/custom_gravity.hpp"
#include "nbody/gravity_kernel.hpp"
#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"
#ifdef PAIRWISE_HAVE_CUDA
#include "nbody/cuda_gravity.cuh"
#endif

namespace pairwise::nbody {
namespace {

constexpr double kEps2 = 1e-4;
constexpr std::size_t kCpuMaxN = 65536;
constexpr double kCaseBudgetS = 2.0;  // timed seconds per case aimed at (repeats adapt, >= 3)

Particles random_sphere(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Particles p;
  p.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double x, y, z;
    do {
      x = u(rng), y = u(rng), z = u(rng);
    } while (x * x + y * y + z * z > 1.0);
    p.m[i] = 1.0 / double(n);
    p.x[i] = x, p.y[i] = y, p.z[i] = z;
    p.vx[i] = 0.5 * u(rng), p.vy[i] = 0.5 * u(rng), p.vz[i] = 0.5 * u(rng);
  }
  return p;
}

// Repeats so that a case takes about kCaseBudgetS, from the rate measured at the previous size.
int adapt_repeats(int wanted, double interactions, double previous_rate) {
  if (previous_rate <= 0) return wanted;
  const double per_eval = interactions / previous_rate;
  return std::clamp(int(kCaseBudgetS / per_eval), std::min(3, wanted), wanted);
}

// Seconds per block step (predict_and_compute + commit) with 1 % of the particles active: the
// slowest rank's median under mpirun (as RankedGravityKernel::time_compute's), so that every rank
// derives the same repeats for the next size from it (adapt_repeats). Each rank's own median, as
// before session 16, could round to different repeats on two ranks: one rank then entered a
// block step (a collective) that the other never did, and both waited for ever (a 2-rank
// `bench nbody` on 2 H200s printed nothing for 400 s at N = 4,194,304 in session 15).
double time_block_steps(GravityKernel& k, const Particles& p, int n_active, int repeats) {
  const std::size_t n = p.size();
  HermiteTerms terms;
  terms.resize(n);  // a = jerk = 0, t = 0: any values time the same
  k.set_hermite_terms(terms);
  std::vector<int> active(n_active);
  const std::size_t stride = n / std::size_t(n_active);
  for (int a = 0; a < n_active; ++a) active[a] = int(std::size_t(a) * stride);
  Forces f;
  Particles predicted;
  HermiteTerms corrected;
  corrected.resize(n_active);
  std::vector<double> seconds;
  double t = 0;
  for (int r = 0; r < repeats + 2; ++r) {  // the first two are warm-up
    t += 1.0 / 1024;
    const auto start = std::chrono::steady_clock::now();
    k.predict_and_compute(t, active, f, predicted);
    for (int a = 0; a < n_active; ++a) {
      corrected.ax[a] = f.ax[a], corrected.ay[a] = f.ay[a], corrected.az[a] = f.az[a];
      corrected.jx[a] = f.jx[a], corrected.jy[a] = f.jy[a], corrected.jz[a] = f.jz[a];
      corrected.t[a] = t;
    }
    k.commit(active, predicted, corrected);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r >= 2) seconds.push_back(s);
  }
  k.set_particles(p);  // leave the state as loaded
  double slowest = median(seconds);
  parallel::world().allreduce_max(std::span<double>(&slowest, 1));
  return slowest;
}

// Plummer as a formula (issue 13): the custom-potential kernels on the same particles, GA and GAJ
// (seconds per evaluation; null when the backend cannot run it), and the first use's compile time.
struct FormulaTimes {
  double ga = 0, gaj = 0, compile_s = -1;
  std::string ga_path, gaj_path;
};
constexpr const char* kPlummerFormula = "-1/sqrt(r^2 + eps^2)";

// A kernel with Plummer softening as a formula, loaded with the particles.
std::unique_ptr<GravityKernel> formula_plummer_kernel(BackendKind backend, Precision prec,
                                                      const Particles& p) {
  KernelOptions ko;
  ko.precision = prec;
  ko.eps2 = kEps2;
  ko.custom = std::make_shared<const CustomGravity>(kPlummerFormula, std::sqrt(kEps2),
                                                    "bench formula", "bench nbody");
  auto k = make_gravity_kernel(backend, ko);
  k->set_particles(p);
  return k;
}

FormulaTimes time_formula_plummer(BackendKind backend, Precision prec, const Particles& p,
                                  int reps_ga, int reps_gaj) {
  auto k = formula_plummer_kernel(backend, prec, p);
  FormulaTimes t;
  t.ga = k->time_compute(ForceKind::accel, reps_ga);
  t.gaj = k->time_compute(ForceKind::accel_jerk, reps_gaj);
#ifdef PAIRWISE_HAVE_CUDA
  t.compile_s = cuda_formula_compile_seconds(*k);
  t.ga_path = cuda_force_path(*k, false), t.gaj_path = cuda_force_path(*k, true);
#endif
  return t;
}

struct Row {
  std::size_t n;
  std::string precision, case_name, backend;
  double ms, rate, gflops, speedup;
};

}  // namespace

int run_nbody_bench(const BenchOptions& options) {
  const BackendKind backend = resolve_bench_backend(options.backend);
  BenchRun run("nbody", options.json_path);
  std::vector<Row> rows;
  std::map<std::string, double> last_rate;  // precision/case -> interactions/s at the previous N
  const bool with_cpu = options.compare_cpu && backend != BackendKind::cpu;

  auto add = [&](const GravityKernel& k, std::size_t n, const std::string& case_name,
                 double seconds, double interactions, int flops, int repeats,
                 nlohmann::json params) {
    BenchRecord r = bench_record("nbody", case_name, k, n);
    r.metric = "interactions_per_second";
    r.value = interactions / seconds;
    r.unit = "1/s";
    r.time_s = seconds;
    params["eps2"] = kEps2;
    params["particles"] = "uniform random in the unit sphere, masses 1/N, seed 1";
    params["repeats"] = repeats;
    params["statistic"] = "median";
    params["flops_per_interaction"] = flops;
    params["gflops"] = r.value * flops * 1e-9;
    params["ms"] = seconds * 1e3;
    r.params = params;
    const double speedup = params.contains("speedup_vs_cpu") ? double(params["speedup_vs_cpu"]) : 0;
    rows.push_back({n, r.precision, case_name, r.backend, seconds * 1e3, r.value,
                    r.value * flops * 1e-9, speedup});
    run.add(r);
    return r.value;
  };

  run.cases([&] {
    for (const std::size_t n : options.sizes) {
      if (n == 0) throw Error("bench nbody: N = 0 in --sizes");
      const Particles p = random_sphere(n, 1);
      const double n2 = double(n) * double(n);
      for (const Precision prec : options.precisions) {
        const std::string key = std::string(to_string(prec));
        KernelOptions ko;
        ko.precision = prec;
        ko.eps2 = kEps2;
        std::unique_ptr<GravityKernel> k;
        try {
          k = make_gravity_kernel(backend, ko);
          k->set_particles(p);
        } catch (const Error& e) {
          std::printf("# N=%zu %s: skipped (%s)\n", n, key.c_str(), e.what());
          continue;
        }
        // The cpu backend of the same precision, timed where N allows.
        double cpu_ga = 0, cpu_gaj = 0;
        std::unique_ptr<GravityKernel> cpu;
        if (with_cpu && n <= kCpuMaxN) {
          try {
            cpu = make_gravity_kernel(BackendKind::cpu, ko);
            cpu->set_particles(p);
            run.next_case();
            const int reps = adapt_repeats(options.repeats, n2, last_rate[key + "/cpu-GA"]);
            cpu_ga = cpu->time_compute(ForceKind::accel, reps);
            last_rate[key + "/cpu-GA"] = n2 / cpu_ga;
            add(*cpu, n, "GA", cpu_ga, n2, 19, reps, {{"potential", true}});
            run.next_case();
            const int reps_j = adapt_repeats(options.repeats, n2, last_rate[key + "/cpu-GAJ"]);
            cpu_gaj = cpu->time_compute(ForceKind::accel_jerk, reps_j);
            last_rate[key + "/cpu-GAJ"] = n2 / cpu_gaj;
            add(*cpu, n, "GAJ", cpu_gaj, n2, 42, reps_j, {});
          } catch (const Error& e) {
            std::printf("# N=%zu %s cpu: skipped (%s)\n", n, key.c_str(), e.what());
          }
        }

        run.next_case();
        int reps = adapt_repeats(options.repeats, n2, last_rate[key + "/GA"]);
        const double ga = k->time_compute(ForceKind::accel, reps);
        nlohmann::json params{{"potential", true}};
#ifdef PAIRWISE_HAVE_CUDA
        const std::string ga_path = cuda_force_path(*k, false);
        if (!ga_path.empty()) params["kernel"] = ga_path;
#endif
        if (cpu_ga > 0) params["speedup_vs_cpu"] = cpu_ga / ga, params["cpu_time_s"] = cpu_ga;
        last_rate[key + "/GA"] = add(*k, n, "GA", ga, n2, 19, reps, params);

#ifdef PAIRWISE_HAVE_CUDA
        // GA without the potential term: the 12 FP32 instructions + 1 rsqrt interaction.
        if (const double t = options.variants ? cuda_time_accel_without_potential(*k, reps) : 0;
            t > 0)
          add(*k, n, "GA-nopot", t, n2, 19, reps,
              {{"potential", false}, {"note", "acceleration only, no potential accumulation"}});
#endif

        run.next_case();
        reps = adapt_repeats(options.repeats, n2, last_rate[key + "/GAJ"]);
        const double gaj = k->time_compute(ForceKind::accel_jerk, reps);
        params = nlohmann::json::object();
#ifdef PAIRWISE_HAVE_CUDA
        const std::string gaj_path = cuda_force_path(*k, true);
        if (!gaj_path.empty()) params["kernel"] = gaj_path;
        if (!ga_path.empty())
          std::printf("# N=%zu %s: GA on %s, GAJ on %s\n", n, key.c_str(), ga_path.c_str(),
                      gaj_path.c_str());
#endif
        if (cpu_gaj > 0) params["speedup_vs_cpu"] = cpu_gaj / gaj, params["cpu_time_s"] = cpu_gaj;
        last_rate[key + "/GAJ"] = add(*k, n, "GAJ", gaj, n2, 42, reps, params);

        // Plummer as a formula (cuda only: the host backends' formula path is not a speed path).
        if (options.variants && backend == BackendKind::cuda && prec != Precision::double_) {
          run.next_case();
          const FormulaTimes f = time_formula_plummer(backend, prec, p, reps, reps);
          for (const auto& [name, sec, flops, path, builtin] :
               {std::tuple{"GA-formula", f.ga, 19, f.ga_path, ga},
                std::tuple{"GAJ-formula", f.gaj, 42, f.gaj_path, gaj}})
            add(*k, n, name, sec, n2, flops, reps,
                {{"potential", kPlummerFormula},
                 {"kernel", path},
                 {"vs_builtin", builtin / sec},
                 {"compile_s_first_use", f.compile_s}});
        }

        // Block steps at 1 % active (at least one particle).
        run.next_case();
        const int n_active = int(std::max<std::size_t>(1, n / 100));
        const double block_interactions = double(n_active) * double(n);
        reps = std::max(adapt_repeats(std::max(options.repeats, 20), block_interactions,
                                      last_rate[key + "/block"]),
                        5);
        const double block = time_block_steps(*k, p, n_active, reps);
        last_rate[key + "/block"] =
            add(*k, n, "block-1pct", block, block_interactions, 42, reps,
                {{"n_active", n_active},
                 {"timed",
                  "predict_and_compute + commit through the GravityKernel interface, "
                  "host clock, transfers included"}});

        // The same block steps with Plummer as a formula (cuda only, every precision: the split
        // path compiled by NVRTC, nbody/cuda_formula_split.hpp, evaluating the active targets).
        if (options.variants && backend == BackendKind::cuda) {
          run.next_case();
          auto fk = formula_plummer_kernel(backend, prec, p);
          const double formula_block = time_block_steps(*fk, p, n_active, reps);
          nlohmann::json fparams{{"n_active", n_active},
                                 {"potential", kPlummerFormula},
                                 {"vs_builtin", block / formula_block},
                                 {"builtin_time_s", block}};
#ifdef PAIRWISE_HAVE_CUDA
          fparams["compile_s_first_use"] = cuda_formula_compile_seconds(*fk);
#endif
          add(*fk, n, "block-1pct-formula", formula_block, block_interactions, 42, reps, fparams);
        }
      }
    }
  });

  std::printf("%10s  %-9s %-11s %-9s %12s %16s %10s %9s\n", "N", "precision", "case", "backend",
              "ms", "T interact./s", "GFLOP/s", "vs cpu");
  for (const Row& r : rows) {
    char speed[32] = "";
    if (r.speedup > 0) std::snprintf(speed, sizeof speed, "%8.1fx", r.speedup);
    std::printf("%10zu  %-9s %-11s %-9s %12.4f %16.4f %10.1f %9s\n", r.n, r.precision.c_str(),
                r.case_name.c_str(), r.backend.c_str(), r.ms, r.rate * 1e-12, r.gflops, speed);
  }
  return run.finish();
}

}  // namespace pairwise::nbody
