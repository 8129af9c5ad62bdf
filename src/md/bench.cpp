#include "md/bench.hpp"

#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/bench_json.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "engine/table_pair.hpp"
#include "md/cuda_custom_pair.hpp"
#include "md/custom_force_field.hpp"
#include "md/engine.hpp"
#include "md/rand48.hpp"
#include "pairwise/error.hpp"
#include "pairwise/random/rand48.hpp"

namespace pairwise::md {
namespace {

// fcc cells (nx, ny, nz) with 4 nx ny nz = n, as cubic as possible.
std::array<int, 3> fcc_cells(std::size_t n) {
  if (n % 4) throw Error("bench md: N = " + std::to_string(n) + " is not 4 × cells");
  const std::size_t c = n / 4;
  std::array<int, 3> best{0, 0, 0};
  double best_spread = 1e300;
  for (std::size_t a = 1; a * a * a <= c; ++a) {
    if (c % a) continue;
    for (std::size_t b = a; a * b * b <= c; ++b) {
      if ((c / a) % b) continue;
      const std::size_t z = c / a / b;
      const double spread = double(z) / double(a);
      if (spread < best_spread) best_spread = spread, best = {int(z), int(b), int(a)};
    }
  }
  return best;
}

System in_lj(std::size_t n, double cutoff) {
  System s = make_lattice("fcc", 0.8442, fcc_cells(n));
  s.ff.cutoff = cutoff;
  create_velocities(s, 1.44, 87287);
  return s;
}

// in.lj with LJ as examples/custom-lj.toml writes it (style = "custom", truncation cut).
std::string table_description(io::TableStyle style) {
  return std::string("N 2000 RSQ 0.5 2.5, ") +
         (style == io::TableStyle::linear ? "linear" : "spline") + " 2000";
}

System in_lj_formula(std::size_t n) {
  System s = in_lj(n, 2.5);
  CustomForceFieldSpec spec;
  spec.kind = CustomForceFieldSpec::Kind::formula;
  spec.cutoff = 2.5;
  spec.energy = {"4*epsilon*(s6^2 - s6); s6 = (sigma/r)^6", "[bench] energy", "bench md"};
  spec.globals = {{"epsilon", 1.0}, {"sigma", 1.0}};
  s.ff.custom = build_custom_pairs(spec, 1);
  return s;
}

// in.lj with LJ as a LAMMPS table (style = "table"): N 2000 RSQ 0.5 2.5 (E and F of lj/cut),
// interpolated with `style` on LAMMPS's N = 2000 (linear then uses the file's points as they are).
System in_lj_table(std::size_t n, io::TableStyle style) {
  System s = in_lj(n, 2.5);
  io::PairTableFile t;
  t.keyword = "LJ", t.grid = io::PairTableFile::Grid::rsq, t.lo = 0.5, t.hi = 2.5;
  constexpr int kPoints = 2000;
  for (int i = 0; i < kPoints; ++i) {
    const double r = std::sqrt(t.lo * t.lo + (t.hi * t.hi - t.lo * t.lo) * i / (kPoints - 1));
    const double s6 = std::pow(r, -6);
    t.r.push_back(r), t.e.push_back(4 * (s6 * s6 - s6)),
        t.f.push_back((48 * s6 * s6 - 24 * s6) / r);
  }
  auto pairs = std::make_shared<CustomPairs>();
  pairs->types = 1;
  pairs->pairs = {std::make_shared<engine::TablePair>(io::PairTableInterpolator(t, style, kPoints),
                                                      table_description(style))};
  pairs->description = "table, truncation none";
  s.ff.custom = pairs;
  return s;
}

// NVRTC compile seconds of the single-precision in.lj-formula kernels: the first compile of the
// process (libnvrtc loaded then), a second compile, and a read from the disk cache.
nlohmann::json formula_compile_times(const System& s) {
  CustomMdVariant v;
  v.fast_math = true;
  formula::CudaProgram p = md_custom_program(*s.ff.custom, v);
  p.use_cache = false;
  const double first = formula::compile_cuda_program(p).seconds;
  const double again = formula::compile_cuda_program(p).seconds;
  p.use_cache = true;
  formula::compile_cuda_program(p);  // written to the cache unless there already
  const formula::CompiledProgram cached = formula::compile_cuda_program(p);
  return {{"first_use_s", first},
          {"recompile_s", again},
          {"cache_read_s", cached.seconds},
          {"from_cache", cached.from_cache},
          {"kernels", "forces_kick + energy_terms, one program"},
          {"cache_file", cached.cache_file}};
}

struct Timed {
  double seconds_per_step = 0;
  EngineStats stats;
  std::string device;
};

Timed time_engine(BackendKind b, Precision p, const System& s, double skin, int warmup, int steps,
                  int sort_every = 1000) {
  EngineOptions o;
  o.sort_every = sort_every;
  o.precision = p;
  o.skin = skin;
  o.dynamics.dt = 0.005;
  auto e = make_md_engine(b, o);
  e->set_state(s);
  if (warmup > 0) e->advance(1, warmup);
  Timed t;
  t.seconds_per_step = e->time_steps(steps);
  t.stats = e->stats();
  t.device = e->device_name();
  const Thermo th = e->thermo();
  if (!std::isfinite(th.potential)) throw Error("bench md: the run blew up");
  return t;
}

}  // namespace

int run_md_bench(const MdBenchOptions& options) {
  const BackendKind backend = resolve_bench_backend(options.backend);
  BenchRun run("md", options.json_path);
  auto record = [&](const std::string& case_name, BackendKind b, Precision p,
                    const std::string& device, std::size_t n, double sec_per_step, int steps,
                    nlohmann::json params) {
    BenchRecord r;
    r.suite = "md";
    r.case_name = case_name;
    r.backend = std::string(to_string(b));
    r.precision = std::string(to_string(p));
    r.device = device;
    r.n = n;
    r.metric = "atom_steps_per_second";
    r.value = double(n) / sec_per_step;
    r.unit = "1/s";
    r.time_s = sec_per_step;
    params["timesteps_per_second"] = 1.0 / sec_per_step;
    params["steps"] = steps;
    r.params = params;
    std::printf("%-10s %-9s %-7s %9zu %12.1f TPS %10.4f G atom-steps/s  %s\n", case_name.c_str(),
                r.backend.c_str(), r.precision.c_str(), n, 1.0 / sec_per_step, r.value * 1e-9,
                params.dump().c_str());
    run.add(r);
  };

  run.cases([&] {
    for (const std::size_t n : options.sizes) {
      const System s = in_lj(n, 2.5);
      const int steps = options.steps > 0 ? options.steps : (n <= 256000 ? 2000 : 200);
      for (const Precision p : options.precisions) {
        run.next_case();
        try {
          const Timed t = time_engine(backend, p, s, 0.3, 100, steps, options.sort_every);
          record("in.lj", backend, p, t.device, n, t.seconds_per_step, steps,
                 {{"rc", 2.5},
                  {"skin", 0.3},
                  {"dt", 0.005},
                  {"neighbor_builds", t.stats.rebuilds},
                  {"regrows", t.stats.regrows},
                  {"capacity", t.stats.capacity},
                  {"sort_every", options.sort_every},
                  {"timed", "advance() incl. the end-of-run overflow check; warm-up 100 steps"}});
        } catch (const Error& e) {
          std::printf("# N=%zu %s: skipped (%s)\n", n, std::string(to_string(p)).c_str(), e.what());
        }
        if (options.formula) {
          auto& records = run.records();
          if (records.empty() || records.back().n != n || records.back().case_name != "in.lj")
            continue;
          const double builtin = records.back().value;
          const System f = in_lj_formula(n);
          if (backend == BackendKind::cuda && p == Precision::single &&
              n == options.sizes.front()) {
            run.next_case();
            const nlohmann::json c = formula_compile_times(f);
            std::printf("# NVRTC compile: %s\n", c.dump().c_str());
            for (const char* what : {"first_use_s", "cache_read_s"}) {
              BenchRecord r;
              r.suite = "md", r.case_name = "formula-compile", r.backend = "cuda";
              r.precision = "single", r.device = run.records().back().device, r.n = n;
              r.metric =
                  what == std::string("first_use_s") ? "compile_first_use" : "compile_from_cache";
              r.value = r.time_s = double(c[what]), r.unit = "s", r.params = c;
              run.add(r);
            }
          }
          run.next_case();
          const Timed t = time_engine(backend, p, f, 0.3, 100, steps, options.sort_every);
          record("in.lj-formula", backend, p, t.device, n, t.seconds_per_step, steps,
                 {{"rc", 2.5},
                  {"formula", "4*epsilon*(s6^2 - s6); s6 = (sigma/r)^6"},
                  {"ratio_to_builtin", double(n) / t.seconds_per_step / builtin},
                  {"kernel_compile_s", t.stats.custom_compile_seconds},
                  {"kernel_from_cache", t.stats.custom_compiled_from_cache},
                  {"neighbor_builds", t.stats.rebuilds}});
        }
        if (options.table) {
          auto& records = run.records();
          auto builtin = std::find_if(records.rbegin(), records.rend(), [&](const BenchRecord& r) {
            return r.case_name == "in.lj" && r.n == n && r.precision == to_string(p);
          });
          if (builtin == records.rend()) continue;
          const double builtin_value = builtin->value;
          for (const io::TableStyle style : {io::TableStyle::linear, io::TableStyle::spline}) {
            run.next_case();
            const Timed t =
                time_engine(backend, p, in_lj_table(n, style), 0.3, 100, steps, options.sort_every);
            record(style == io::TableStyle::linear ? "in.lj-table-linear" : "in.lj-table-spline",
                   backend, p, t.device, n, t.seconds_per_step, steps,
                   {{"rc", 2.5},
                    {"table", table_description(style)},
                    {"ratio_to_builtin", double(n) / t.seconds_per_step / builtin_value},
                    {"kernel_compile_s", t.stats.custom_compile_seconds},
                    {"kernel_from_cache", t.stats.custom_compiled_from_cache},
                    {"neighbor_builds", t.stats.rebuilds}});
          }
        }
      }
      if (options.compare_cpu && n <= 32000) {
        const int threads = omp_get_max_threads();
        for (int th : {threads, 1}) {
          run.next_case();
          omp_set_num_threads(th);
          const int cpu_steps = th == 1 ? 100 : 300;
          const Timed t = time_engine(BackendKind::cpu, Precision::mixed, s, 0.3, 20, cpu_steps);
          record("in.lj", BackendKind::cpu, Precision::mixed, t.device, n, t.seconds_per_step,
                 cpu_steps,
                 {{"rc", 2.5},
                  {"skin", 0.3},
                  {"threads", th},
                  {"timesteps_per_second_per_core", 1.0 / t.seconds_per_step / th}});
          if (th == threads && threads == 1) break;
        }
        omp_set_num_threads(threads);
      }
    }

    if (options.sweep) {
      std::printf("# Liu et al. sweep: total ms for 100 steps, skin 0.5\n%8s", "N");
      const double rcs[] = {2.5, 3.0, 3.5, 4.0, 4.5};
      for (double rc : rcs) std::printf("   rc=%.1f", rc);
      std::printf("\n");
      for (std::size_t n : {8192u, 16384u, 32768u, 65536u, 131072u}) {
        std::printf("%8zu", n);
        for (double rc : rcs) {
          run.next_case();
          const System s = in_lj(n, rc);
          const Timed t = time_engine(backend, Precision::single, s, 0.5, 10, 100);
          nlohmann::json params{
              {"rc", rc}, {"skin", 0.5}, {"total_ms_100_steps", t.seconds_per_step * 1e5}};
          if (options.sweep_cpu) {
            const Timed c = time_engine(BackendKind::cpu, Precision::single, s, 0.5, 0, 100);
            params["cpu_total_ms_100_steps"] = c.seconds_per_step * 1e5;
            params["speedup_vs_cpu"] = c.seconds_per_step / t.seconds_per_step;
            params["cpu_threads"] = omp_get_max_threads();
          }
          BenchRecord r;
          r.suite = "md";
          r.case_name = "liu-sweep";
          r.backend = std::string(to_string(backend));
          r.precision = "single";
          r.device = t.device;
          r.n = n;
          r.metric = "total_ms_100_steps";
          r.value = t.seconds_per_step * 1e5;
          r.unit = "ms";
          r.time_s = t.seconds_per_step * 100;
          r.params = params;
          std::printf(" %9.2f", r.value);
          if (options.sweep_cpu) std::printf(" (%5.1fx)", double(params["speedup_vs_cpu"]));
          run.add(r);
        }
        std::printf("\n");
      }
    }
  });
  return run.finish();
}

int run_rng_bench(const RngBenchOptions& o) {
  BenchRun run("rng", o.json_path);
  const std::size_t count = o.count;
  auto add = [&](const std::string& case_name, const std::string& backend, double seconds,
                 std::size_t draws, std::uint64_t checksum) {
    BenchRecord r;
    r.suite = "rng";
    r.case_name = case_name;
    r.backend = backend;
    r.precision = "int48";
    r.device = backend == "cuda" ? cuda_devices().at(0).name : "host";
    r.n = draws;
    r.metric = "draws_per_second";
    r.value = double(draws) / seconds;
    r.unit = "1/s";
    r.time_s = seconds;
    r.params = {{"generator", "lrand48"}, {"seed", 12345}, {"checksum", checksum}};
    std::printf("%-22s %-6s %12zu draws %10.4f s %12.4g draws/s\n", case_name.c_str(),
                backend.c_str(), draws, seconds, r.value);
    run.add(r);
    return r.value;
  };
  using Clock = std::chrono::steady_clock;
  run.cases([&] {
    run.next_case();  // glibc
    srand48(12345);
    auto t0 = Clock::now();
    std::uint64_t sum = 0;
    for (std::size_t k = 0; k < count; ++k) sum += std::uint64_t(lrand48());
    const double glibc_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const double glibc = add("glibc-lrand48", "cpu", glibc_s, count, sum);
    run.next_case();  // plain 64-bit loop
    random::Rand48 r{12345};
    t0 = Clock::now();
    std::uint64_t sum2 = 0;
    for (std::size_t k = 0; k < count; ++k) sum2 += std::uint64_t(r.lrand48());
    const double plain_s = std::chrono::duration<double>(Clock::now() - t0).count();
    const double plain = add("plain-64bit-loop", "cpu", plain_s, count, sum2);
    if (sum2 != sum) throw Error("bench rng: the 64-bit loop differs from glibc");
    run.next_case();
    double secs = 0;
    auto states = rand48_states(BackendKind::cpu, 12345, count, &secs);
    std::uint64_t sum3 = 0;
    for (auto x : states) sum3 += std::uint64_t(random::rand48_lrand(x));
    if (sum3 != sum) throw Error("bench rng: the cpu backend differs from glibc");
    add("leap-ahead", "cpu", secs, count, sum3);
    if (!cuda_devices().empty()) {
      run.next_case();
      states = rand48_states(BackendKind::cuda, 12345, count, &secs);
      std::uint64_t sum4 = 0;
      for (auto x : states) sum4 += std::uint64_t(random::rand48_lrand(x));
      if (sum4 != sum) throw Error("bench rng: the cuda backend differs from glibc");
      const double gpu = add("leap-ahead", "cuda", secs, count, sum4);
      run.records().back().params["speedup_vs_glibc"] = gpu / glibc;
      run.records().back().params["speedup_vs_plain_loop"] = gpu / plain;
      std::printf("# cuda vs glibc %.1fx, vs the plain 64-bit loop %.1fx (paper: 150x, 40x)\n",
                  gpu / glibc, gpu / plain);
    }
  });
  return run.finish();
}

}  // namespace pairwise::md
