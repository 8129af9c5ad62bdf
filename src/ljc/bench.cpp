// `pairwise bench ljc` (bench.hpp). The system is the ljc case of ../shared/BENCHMARKS.md: N atoms
// on a jittered lattice of 4 Å spacing (the globule generator without bonds), charges ±0.4 e,
// σ = 3 Å, ε = 0.12 kcal/mol, no cutoff, constant dielectric (ε = 1); the other dielectrics are
// timed at the same positions. Pair interactions are counted as N² per force evaluation (as the
// issue's targets do, whatever the kernel evaluates); GFLOP/s uses Elsen et al.'s 30/30/43 flops
// per interaction on those N² pairs. The cpu backend is timed in the same run up to kCpuMaxN and
// the speedup is reported where both were measured.
#include "ljc/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/bench_json.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "ljc/backends.hpp"
#include "ljc/cuda_custom_term.hpp"
#include "ljc/custom_nonbonded.hpp"
#include "ljc/generator.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {
namespace {

constexpr std::size_t kCpuMaxN = 4096;
constexpr double kCaseBudgetS = 1.0;

Molecule bench_molecule(std::size_t n, bool per_atom_lj, int lj_types) {
  GlobuleOptions o;
  o.n = n;
  o.spacing = 4.0;
  o.jitter = 0.3;
  o.bonds = false;
  o.moves = 0;
  Molecule m = make_globule(o);
  if (per_atom_lj) {
    // σ in [2.7, 3.3) Å and ε in [0.096, 0.144) kcal/mol, a different pair for every atom (a
    // fixed sequence): the kernels' general path that mixes the atoms' own parameters.
    for (std::size_t i = 0; i < n; ++i) {
      const double u = double((i * 2654435761u) % 1000) / 1000.0;
      const double w = double((i * 40503u + 17) % 997) / 997.0;
      m.sigma[i] = 3.0 * (0.9 + 0.2 * u);
      m.epsilon[i] = 0.12 * (0.8 + 0.4 * w);
    }
  }
  if (!per_atom_lj && lj_types > 1) {
    // σ and ε by atom type: lj_types types spread over the same ranges (σ increasing with the
    // type, ε in another order), the types dealt out to the atoms in a fixed scrambled sequence.
    const double span = double(lj_types - 1);
    for (std::size_t i = 0; i < n; ++i) {
      const int t = int((i * 2654435761u) % std::size_t(lj_types));
      m.sigma[i] = 3.0 * (0.9 + 0.2 * t / span);
      m.epsilon[i] = 0.12 * (0.8 + 0.4 * double((t * 5 + 3) % lj_types) / span);
    }
  }
  return m;
}

std::string lj_params(const BenchOptions& o) {
  if (o.per_atom_lj) return "per-atom";
  if (o.lj_types > 1) return std::to_string(o.lj_types) + "-types";
  return "uniform";
}

}  // namespace

int paper_flops(physics::DielectricKind d) {
  return d == physics::DielectricKind::sigmoidal ? 43 : 30;
}

int run_ljc_bench(const BenchOptions& options) {
  const BackendKind backend = resolve_bench_backend(options.backend);
  BenchRun run("ljc", options.json_path);
  std::map<std::string, double> cpu_seconds;  // "n/precision/dielectric" -> cpu force time
  const bool with_cpu = options.compare_cpu && backend != BackendKind::cpu;
  std::printf("%8s %-7s %-10s %-10s %-9s %11s %12s %10s %9s\n", "N", "prec", "kernel", "dielec",
              "backend", "ms/eval", "N2-pairs/s", "GFLOP/s", "speedup");

  auto add = [&](const LjcKernel& k, std::size_t n, const std::string& case_name,
                 const std::string& metric, double value, const std::string& unit, double seconds,
                 nlohmann::json params) {
    BenchRecord r = bench_record("ljc", case_name, k, n);
    r.params = std::move(params);
    r.metric = metric;
    r.value = value;
    r.unit = unit;
    r.time_s = seconds;
    run.add(r);
  };

  auto time_forces = [&](BackendKind b, Precision p, PairKernel pk, std::size_t n,
                         physics::DielectricKind d, const Molecule& mol) {
    run.next_case();
    LjcKernelOptions ko;
    ko.precision = p;
    ko.pair_kernel = pk;
    auto k = make_ljc_kernel(b, ko);
    NonbondedOptions nb;
    nb.dielectric = d;
    k->set_system(mol, nb);
    const double once = k->time_compute(1);
    const int repeats =
        std::clamp(int(kCaseBudgetS / std::max(once, 1e-6)), 3, std::max(3, options.repeats));
    const double s = k->time_compute(repeats);
    const double pairs = double(n) * double(n);
    const std::string kernel_name =
        b == BackendKind::cuda ? std::string(to_string(pk)) : std::string("host");
    const std::string key =
        std::to_string(n) + "/" + std::string(to_string(p)) + "/" + std::string(to_string(d));
    if (b == BackendKind::cpu) cpu_seconds[key] = s;
    const auto cpu = cpu_seconds.find(key);
    const double speedup = b != BackendKind::cpu && cpu != cpu_seconds.end() ? cpu->second / s : 0;
    const double gflops = pairs * paper_flops(d) / s * 1e-9;
    std::printf("%8zu %-7s %-10s %-10s %-9s %11.4f %12.4g %10.1f %9s\n", n,
                std::string(to_string(p)).c_str(), kernel_name.c_str(),
                std::string(to_string(d)).c_str(), std::string(to_string(b)).c_str(), s * 1e3,
                pairs / s, gflops,
                speedup > 0 ? (std::to_string(int(std::lround(speedup))) + "x").c_str() : "-");
    std::fflush(stdout);
    nlohmann::json params = {
        {"dielectric", to_string(d)}, {"pair_kernel", kernel_name},
        {"repeats", repeats},         {"flops_per_interaction", paper_flops(d)},
        {"gflops", gflops},           {"lj_params", lj_params(options)}};
    if (speedup > 0) params["speedup_vs_cpu"] = speedup;
    add(*k, n, "forces-" + std::string(to_string(d)), "n2_pairs_per_second", pairs / s, "1/s", s,
        params);
  };

  // LJ + Coulomb as a formula instead of the built-in term (ε = 1, the bench's constant
  // dielectric): forces per second of the whole evaluation (built-in bonds + the formula term).
  bool compile_timed = false;
  auto time_formula = [&](BackendKind b, Precision p, std::size_t n, const Molecule& mol) {
    run.next_case();
    LjcKernelOptions ko;
    ko.precision = p;
    ko.custom = std::make_shared<const CustomNonbonded>(
        "4*eps*((sig/r)^12 - (sig/r)^6) + 332.0636*q1*q2/r; eps = sqrt(epsilon1*epsilon2); "
        "sig = (sigma1 + sigma2)/2",
        true, "[bench] formula", "bench ljc");
    auto k = make_ljc_kernel(b, ko);
    k->set_system(mol, NonbondedOptions{});
    const double s = k->time_compute(std::max(3, options.repeats));
    const double pairs = double(n) * double(n);
    std::printf("%8zu %-7s %-10s %-10s %-9s %11.4f %12.4g\n", n, std::string(to_string(p)).c_str(),
                "formula", "constant", std::string(to_string(b)).c_str(), s * 1e3, pairs / s);
    add(*k, n, "forces-formula", "n2_pairs_per_second", pairs / s, "1/s", s,
        {{"dielectric", "constant"},
         {"formula", "LJ (Lorentz-Berthelot) + Coulomb, custom_replaces"},
         {"lj_params", lj_params(options)}});
    if (b == BackendKind::cuda && !compile_timed) {
      compile_timed = true;
      // NVRTC seconds of the program of three kernels (tiles without and with energies, 1-4
      // pairs): a compile without the cache, and a read from the disk cache, as md's bench does.
      formula::CudaProgram prog =
          ljc_custom_tiles_program(*ko.custom, p, p == Precision::double_ ? 2 : 4);
      prog.use_cache = false;
      const double first = formula::compile_cuda_program(prog).seconds;
      prog.use_cache = true;
      formula::compile_cuda_program(prog);  // written to the cache unless there already
      const formula::CompiledProgram cached = formula::compile_cuda_program(prog);
      const nlohmann::json c = {{"compile_s", first},
                                {"cache_read_s", cached.seconds},
                                {"from_cache", cached.from_cache},
                                {"kernels", 3},
                                {"compile_s_per_kernel", first / 3}};
      std::printf("# NVRTC compile: %s\n", c.dump().c_str());
      add(*k, n, "formula-compile", "compile_first_use", first, "s", first, c);
      add(*k, n, "formula-compile", "compile_from_cache", cached.seconds, "s", cached.seconds, c);
    }
  };

  // Full MD steps (velocity Verlet, 1 fs, constant dielectric): the cuda backend with the whole
  // step on the device (CUDA graphs around pair kernel pk, or the persistent kernel); the cpu
  // backend through the shared host dynamics.
  auto time_md = [&](BackendKind b, Precision p, PairKernel pk, StepKernel sk, std::size_t n,
                     const Molecule& mol) {
    run.next_case();
    LjcKernelOptions ko;
    ko.precision = p;
    ko.pair_kernel = pk;
    ko.step_kernel = sk;
    std::unique_ptr<LjcKernel> k;
    try {
      k = make_ljc_kernel(b, ko);
      k->set_system(mol, NonbondedOptions{});
    } catch (const Error& e) {
      std::printf("# n=%zu %s: %s (case skipped)\n", n, std::string(to_string(p)).c_str(),
                  e.what());
      return;
    }
    double s = -1;
    std::int64_t steps = 0;
#ifdef PAIRWISE_HAVE_CUDA
    if (b == BackendKind::cuda) {
      const double probe = cuda_time_md_steps(*k, 1.0, 200);
      steps =
          std::clamp<std::int64_t>(std::int64_t(kCaseBudgetS / std::max(probe, 1e-7)), 200, 200000);
      s = cuda_time_md_steps(*k, 1.0, steps);
    }
#endif
    if (b != BackendKind::cuda) {
      Molecule m = mol;
      m.vx.assign(n, 0.0), m.vy.assign(n, 0.0), m.vz.assign(n, 0.0);
      std::vector<double> inv_mass(n, 4.184e-4 / 12.011);
      engine::DynamicsOptions o;
      o.dt = 1.0;
      LjcForces f;
      k->compute(f);
      steps = 20;
      const auto t0 = std::chrono::steady_clock::now();
      k->advance(m, inv_mass, o, 0, steps, f);
      s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / steps;
    }
    std::string step_kernel = "host";
#ifdef PAIRWISE_HAVE_CUDA
    if (b == BackendKind::cuda) step_kernel = cuda_step_kernel(*k);
#endif
    const std::string kernel_name = b != BackendKind::cuda        ? std::string("host")
                                    : step_kernel == "persistent" ? step_kernel
                                                                  : std::string(to_string(pk));
    const std::string key = std::to_string(n) + "/" + std::string(to_string(p)) + "/md";
    if (b == BackendKind::cpu) cpu_seconds[key] = s;
    const auto cpu = cpu_seconds.find(key);
    const double speedup = b != BackendKind::cpu && cpu != cpu_seconds.end() ? cpu->second / s : 0;
    const double ns_per_day = 1.0 / s * 1e-6 * 86400;  // 1 fs steps
    std::printf("%8zu %-7s %-10s %-10s %-9s %11.5f %12.4g %10s %9s  %.0f steps/s, %.0f ns/day\n", n,
                std::string(to_string(p)).c_str(), kernel_name.c_str(), "md-step",
                std::string(to_string(b)).c_str(), s * 1e3, double(n) * double(n) / s, "-",
                speedup > 0 ? (std::to_string(int(std::lround(speedup))) + "x").c_str() : "-",
                1.0 / s, ns_per_day);
    std::fflush(stdout);
    nlohmann::json params = {{"dielectric", "constant"},
                             {"pair_kernel", kernel_name},
                             {"step_kernel", step_kernel},
                             {"steps", steps},
                             {"dt_fs", 1.0},
                             {"ns_per_day", ns_per_day},
                             {"integrator", "velocity-verlet"},
                             {"whole_step_on_device", b == BackendKind::cuda},
                             {"lj_params", lj_params(options)}};
    if (speedup > 0) params["speedup_vs_cpu"] = speedup;
    add(*k, n, "md-step", "steps_per_second", 1.0 / s, "1/s", s, params);
  };

  run.cases([&] {
    for (std::size_t n : options.sizes) {
      const Molecule mol = bench_molecule(n, options.per_atom_lj, options.lj_types);
      std::vector<physics::DielectricKind> dielectrics = {physics::DielectricKind::constant};
      if (options.all_dielectrics) {
        dielectrics.push_back(physics::DielectricKind::linear);
        dielectrics.push_back(physics::DielectricKind::sigmoidal);
      }
      for (Precision p : options.precisions) {
        for (auto d : dielectrics) {
          if (with_cpu && n <= kCpuMaxN && d == physics::DielectricKind::constant) {
            time_forces(BackendKind::cpu, p, PairKernel::automatic, n, d, mol);
          }
          if (backend == BackendKind::cuda) {
            for (PairKernel pk : options.pair_kernels) time_forces(backend, p, pk, n, d, mol);
            if (options.formula && d == physics::DielectricKind::constant)
              time_formula(backend, p, n, mol);
          } else {
            time_forces(backend, p, PairKernel::automatic, n, d, mol);
          }
        }
        if (options.md_steps) {
          if (with_cpu && n <= kCpuMaxN) {
            time_md(BackendKind::cpu, p, PairKernel::automatic, StepKernel::automatic, n, mol);
          }
          if (backend == BackendKind::cuda) {
            for (PairKernel pk : options.pair_kernels)
              time_md(backend, p, pk, StepKernel::graph, n, mol);
            if (options.persistent) {
              time_md(backend, p, PairKernel::automatic, StepKernel::persistent, n, mol);
            }
          } else {
            time_md(backend, p, PairKernel::automatic, StepKernel::automatic, n, mol);
          }
        }
      }
    }
  });
  return run.finish();
}

}  // namespace pairwise::ljc
