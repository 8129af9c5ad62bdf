#include "potmap/bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <random>
#include <tuple>

#include "core/bench_json.hpp"
#include "core/io/pqr.hpp"
#include "pairwise/error.hpp"
#include "potmap/map.hpp"
#include "potmap/run_config.hpp"

namespace pairwise::potmap {

namespace {

constexpr double kSpacing = 0.5, kPadding = 0.5, kCutoff = 12.0, kExclusion = 1.0;
constexpr std::size_t kSamples = 4096;
// Flops per evaluation, counted as Rodrigues et al. count them (a rsqrt as one flop):
// direct: dz (1), r² = dz² + (dx² + dy²) (2), 1/r (1), V += q/r (2).
constexpr int kDirectFlops = 6;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Timed {
  MapResult result;  // of the last repetition
  double seconds = 0;
  int repeats = 0;
};

Timed time_map(BackendKind b, const Atoms& atoms, const Lattice& l, const MapOptions& o,
               int repeats) {
  Timed t;
  std::vector<double> s;
  const int total = b == BackendKind::cuda ? repeats + 1 : repeats;  // one warm-up on the GPU
  for (int r = 0; r < total; ++r) {
    t.result = compute_map(b, atoms, l, o);
    if (b != BackendKind::cuda || r > 0) s.push_back(t.result.seconds);
  }
  t.seconds = median(s);
  t.repeats = int(s.size());
  return t;
}

// Table 2 errors of `map` against the reference at sampled points (with the exclusions applied
// to the reference's values).
MapErrors sampled_errors(const Atoms& atoms, const Lattice& l, const MapOptions& o,
                         const std::vector<double>& map, const std::vector<std::size_t>& idx,
                         const std::vector<double>& ref) {
  std::vector<double> got(idx.size());
  for (std::size_t p = 0; p < idx.size(); ++p) got[p] = map[idx[p]];
  (void)atoms, (void)o, (void)l;
  return map_errors(got, ref);
}

std::vector<std::size_t> sample_indices(std::size_t points, std::size_t n) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::size_t> u(0, points - 1);
  std::vector<std::size_t> idx(std::min(n, points));
  for (auto& i : idx) i = u(rng);
  return idx;
}

}  // namespace

int run_potmap_bench(const BenchOptions& options) {
  std::string note;
  const BackendKind backend = resolve_backend(options.backend, &note);
  if (backend == BackendKind::reference) {
    throw Error(
        "bench potmap: the reference backend would take hours on the benchmark map "
        "(it is the oracle of the accuracy columns); use cpu or cuda",
        "--backend");
  }
  std::printf("# %s\n", note.c_str());
  BenchRun run("potmap", options.json_path);
  const int repeats = std::max(1, options.repeats);

  auto record = [&](const MapResult& r, std::size_t n, const std::string& case_name,
                    const std::string& metric, double value, const std::string& unit, double time_s,
                    nlohmann::json params) {
    BenchRecord rec;
    rec.suite = "potmap";
    rec.case_name = case_name;
    rec.backend = std::string(to_string(r.backend));
    rec.precision = std::string(to_string(r.precision));
    rec.device = r.device;
    rec.n = n;
    rec.metric = metric;
    rec.value = value;
    rec.unit = unit;
    rec.time_s = time_s;
    rec.params = std::move(params);
    std::printf("%-14s %-9s %-7s n=%-8zu %-28s %12.4g %-4s time %.4g ms\n", case_name.c_str(),
                rec.backend.c_str(), rec.precision.c_str(), n, metric.c_str(), value, unit.c_str(),
                time_s * 1e3);
    run.add(rec);
  };

  // ---- The benchmark map.
  PotmapConfig pc;
  if (!options.input.empty()) {
    pc.input = options.input;
  } else {
    pc.water_box = 100.0;
  }
  const Atoms atoms = load_atoms(pc);
  const Lattice lattice = lattice_around(atoms, kSpacing, kPadding);
  const std::string source = options.input.empty() ? "generated 100 A water box" : options.input;
  std::printf("# %zu atoms (%s); lattice %zu x %zu x %zu = %zu points\n", atoms.size(),
              source.c_str(), lattice.counts[0], lattice.counts[1], lattice.counts[2],
              lattice.size());
  if (options.e2e && !options.input.empty()) {
    BenchOptions e = options;
    e.backend = backend;
    run.cases([&] {
      run_e2e_cases(e, atoms,
                    [&](const std::string& name, std::size_t n, const std::string& metric,
                        double value, const std::string& unit, double time_s, nlohmann::json p) {
                      BenchRecord rec;
                      rec.suite = "potmap";
                      rec.case_name = name;
                      rec.backend = std::string(to_string(backend));
                      rec.precision = "single";
                      rec.device = note;
                      rec.n = n;
                      rec.metric = metric;
                      rec.value = value;
                      rec.unit = unit;
                      rec.time_s = time_s;
                      rec.params = std::move(p);
                      std::printf("%-20s %-6s n=%-8zu %-18s %10.4g %s\n", name.c_str(),
                                  rec.backend.c_str(), n, metric.c_str(), value, unit.c_str());
                      run.add(rec);
                      run.next_case();  // between two end-to-end cases
                    });
    });
    if (options.e2e_only || run.stop_signal()) return run.finish();
  }
  MapOptions o;
  o.precision = Precision::single;
  o.cutoff = kCutoff;
  o.exclusion = kExclusion;
  // Pairs within the cutoff, from the density (the map's volume per atom).
  double vol = 1;
  {
    double lo[3], hi[3];
    const std::vector<double>* c[3] = {&atoms.x, &atoms.y, &atoms.z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = *std::min_element(c[a]->begin(), c[a]->end());
      hi[a] = *std::max_element(c[a]->begin(), c[a]->end());
      vol *= hi[a] - lo[a];
    }
  }
  const double pairs = double(lattice.size()) * double(atoms.size()) * 4.0 / 3.0 *
                       std::numbers::pi * kCutoff * kCutoff * kCutoff / vol;

  const auto idx = sample_indices(lattice.size(), kSamples);
  std::vector<double> ref = reference_points(atoms, lattice, o, idx);
  {
    const auto ex = excluded_points(atoms, lattice, o, idx);
    for (std::size_t p = 0; p < idx.size(); ++p)
      if (ex[p]) ref[p] = 0;
  }

  const nlohmann::json base = {{"input", source},
                               {"spacing", kSpacing},
                               {"padding", kPadding},
                               {"cutoff", kCutoff},
                               {"exclusion", kExclusion},
                               {"points", lattice.size()},
                               {"counts", lattice.counts},
                               {"pairs_within_cutoff_estimate", pairs},
                               {"statistic", "median"},
                               {"error_points_sampled", idx.size()},
                               {"timed",
                                "binning, summation, exclusions (CUDA events on the GPU); "
                                "no file I/O, no host-device copies of atoms or map"}};

  run.cases([&] {
    double cpu_seconds = 0;
    if (options.compare_cpu && backend != BackendKind::cpu) {
      run.next_case();
      const Timed c = time_map(BackendKind::cpu, atoms, lattice, o, 1);
      cpu_seconds = c.seconds;
      nlohmann::json p = base;
      const auto e = sampled_errors(atoms, lattice, o, c.result.values, idx, ref);
      p["max_relative_error"] = e.max_relative, p["max_absolute_error"] = e.max_absolute;
      p["repeats"] = c.repeats;
      record(c.result, atoms.size(), "cutoff", "time", c.seconds * 1e3, "ms", c.seconds, p);
    }
    for (const auto& [prec, kahan, bin, name] :
         {std::tuple{Precision::single, false, 0.0, "cutoff"},
          std::tuple{Precision::single, false, 2.0, "cutoff-bin2"},
          std::tuple{Precision::single, false, 1.0, "cutoff-bin1"},
          std::tuple{Precision::single, true, 0.0, "cutoff-kahan"},
          std::tuple{Precision::mixed, false, 0.0, "cutoff-mixed"}}) {
      if (bin > 0 && backend != BackendKind::cuda) continue;  // bins are the cuda backend's
      MapOptions oo = o;
      oo.precision = prec;
      oo.kahan = kahan;
      oo.bin_size = bin;
      run.next_case();
      const Timed t = time_map(backend, atoms, lattice, oo, repeats);
      nlohmann::json p = base;
      const auto e = sampled_errors(atoms, lattice, oo, t.result.values, idx, ref);
      p["max_relative_error"] = e.max_relative, p["max_absolute_error"] = e.max_absolute;
      p["error_points_over_1e-4"] = e.points;
      p["repeats"] = t.repeats;
      p["kahan"] = kahan;
      if (bin > 0) p["bin_size"] = bin;
      p["pairs_within_cutoff_per_second"] = pairs / t.seconds;
      p["slabs"] = t.result.slabs;
      if (cpu_seconds > 0)
        p["speedup_vs_cpu"] = cpu_seconds / t.seconds, p["cpu_time_s"] = cpu_seconds;
      record(t.result, atoms.size(), name, "time", t.seconds * 1e3, "ms", t.seconds, p);
    }

    // ---- Direct summation: every atom at every point of a 128³ lattice inside the box (32³ on the
    // cpu).
    {
      Lattice d = lattice;
      const std::size_t edge = backend == BackendKind::cuda ? 128 : 32;
      for (auto& c : d.counts) c = std::min<std::size_t>(c, edge);
      for (int a = 0; a < 3; ++a)
        d.origin[std::size_t(a)] += 0.25 * double(lattice.counts[std::size_t(a)]) * kSpacing;
      MapOptions od;
      od.precision = Precision::single;
      const double evals = double(d.size()) * double(atoms.size());
      const auto didx = sample_indices(d.size(), 1024);
      const auto dref = reference_points(atoms, d, od, didx);
      for (const bool kahan : {false, true}) {
        od.kahan = kahan;
        run.next_case();
        const Timed t = time_map(backend, atoms, d, od, repeats);
        std::vector<double> got(didx.size());
        for (std::size_t p = 0; p < didx.size(); ++p) got[p] = t.result.values[didx[p]];
        const auto e = map_errors(got, dref);
        nlohmann::json p = {{"points", d.size()},
                            {"counts", d.counts},
                            {"evaluations", evals},
                            {"flops_per_evaluation", kDirectFlops},
                            {"gflops", evals / t.seconds * kDirectFlops * 1e-9},
                            {"max_relative_error", e.max_relative},
                            {"max_absolute_error", e.max_absolute},
                            {"error_points_sampled", didx.size()},
                            {"kahan", kahan},
                            {"repeats", t.repeats},
                            {"statistic", "median"}};
        record(t.result, atoms.size(), kahan ? "direct-kahan" : "direct", "evaluations_per_second",
               evals / t.seconds, "1/s", t.seconds, p);
      }
    }

    // ---- Scaling over generated water boxes (Figures 4-6 of the paper).
    if (options.scaling) {
      for (const double volume : options.volumes) {
        // The cpu backend alone: only the boxes up to cpu_max_volume.
        if (backend == BackendKind::cpu && volume > options.cpu_max_volume) continue;
        const double edge = std::cbrt(volume);
        const Atoms w = water_box(edge, 1);
        const Lattice l = lattice_around(w, kSpacing, kPadding);
        double cpu_s = 0;
        if (options.compare_cpu && backend != BackendKind::cpu &&
            volume <= options.cpu_max_volume) {
          run.next_case();
          const Timed c = time_map(BackendKind::cpu, w, l, o, 1);
          cpu_s = c.seconds;
          record(c.result, w.size(), "scaling-cutoff", "time", c.seconds * 1e3, "ms", c.seconds,
                 {{"box_volume_A3", volume}, {"points", l.size()}, {"cutoff", kCutoff}});
        }
        run.next_case();
        const Timed t = time_map(backend, w, l, o, repeats);
        nlohmann::json p = {{"box_volume_A3", volume}, {"points", l.size()},
                            {"cutoff", kCutoff},       {"exclusion", kExclusion},
                            {"repeats", t.repeats},    {"slabs", t.result.slabs}};
        if (cpu_s > 0) p["speedup_vs_cpu"] = cpu_s / t.seconds, p["cpu_time_s"] = cpu_s;
        record(t.result, w.size(), "scaling-cutoff", "time", t.seconds * 1e3, "ms", t.seconds, p);
      }
    }
  });
  return run.finish();
}

}  // namespace pairwise::potmap
