// potmap custom φ(r) (issue 13): φ = 1/r as a formula gives the built-in direct map (reference
// 1e-12, cpu double 1e-12, single 1e-5); a Debye–Hückel φ against a direct double sum; cutoff as
// plain truncation; errors name the column. cuda (NVRTC): the generated program compiles for
// sm_90 without a GPU; on a GPU, 1/r against the built-in map and Debye–Hückel with a cutoff
// against the reference at tests/tolerances.hpp's bounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "engine/formula/nvrtc_loader.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/error.hpp"
#include "potmap/cuda_custom_phi.hpp"
#include "potmap/custom_phi.hpp"
#include "potmap/frames.hpp"
#include "potmap/map.hpp"
#include "tolerances.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::potmap;

Atoms random_atoms(int n, std::uint64_t seed) {
  Atoms a;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 10), q(-1, 1);
  for (int i = 0; i < n; ++i) a.push_back(u(rng), u(rng), u(rng), q(rng));
  return a;
}

double max_rel(const std::vector<double>& got, const std::vector<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    num = std::max(num, std::abs(got[i] - ref[i])), den = std::max(den, std::abs(ref[i]));
  return num / den;
}

TEST(PotmapCustom, CoulombFormulaMatchesBuiltInDirectMap) {
  const Atoms atoms = random_atoms(300, 3);
  const Lattice lattice = lattice_around(atoms, 0.7, 1.0);
  MapOptions o;
  o.precision = Precision::double_;
  o.exclusion = 0.5;
  const auto ref = compute_map(BackendKind::reference, atoms, lattice, o).values;
  o.custom = std::make_shared<const CustomPhi>("1/r", 0.0, "[map] phi", "t");
  for (auto [b, p, tol] : {std::tuple{BackendKind::reference, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::single, 1e-5}}) {
    o.precision = p;
    const auto got = compute_map(b, atoms, lattice, o).values;
    EXPECT_LT(max_rel(got, ref), tol) << to_string(b) << " " << to_string(p);
  }
}

TEST(PotmapCustom, DebyeHuckelWithCutoffAgainstDirectSum) {
  const Atoms atoms = random_atoms(200, 5);
  const Lattice lattice = lattice_around(atoms, 1.0, 0.5);
  MapOptions o;
  o.precision = Precision::double_;
  o.cutoff = 6.0;
  o.custom = std::make_shared<const CustomPhi>(
      "exp(-r/lambda)/(eps_r*r); lambda = 7.8; eps_r = 78.5", 6.0, "[map] phi", "t");
  const auto got = compute_map(BackendKind::cpu, atoms, lattice, o).values;
  const auto& n = lattice.counts;
  for (std::size_t idx = 0; idx < lattice.size(); idx += 97) {
    const std::size_t i = idx / (n[1] * n[2]), j = (idx / n[2]) % n[1], k = idx % n[2];
    double v = 0;
    for (std::size_t a = 0; a < atoms.size(); ++a) {
      const double r =
          std::hypot(lattice.coord(0, i) - atoms.x[a], lattice.coord(1, j) - atoms.y[a],
                     lattice.coord(2, k) - atoms.z[a]);
      if (r < 6.0) v += atoms.q[a] * std::exp(-r / 7.8) / (78.5 * r);
    }
    EXPECT_NEAR(got[idx], v, 1e-12 * std::max(1.0, std::abs(v)));
  }
}

TEST(PotmapCustom, ErrorsNameTheColumn) {
  try {
    CustomPhi("exp(-r/lamda)/r; lambda = 7.8", 0, "[map] phi", "dh.toml:12");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(
        e.what(),
        "unknown name 'lamda' at column 8 in [map] phi, did you mean 'lambda'?, dh.toml:12");
  }
}

TEST(PotmapCustom, GeneratedCudaProgramCompiles) {
  const CustomPhi coulomb("1/r", 0.0, "[map] phi", "t");
  const CustomPhi dh("exp(-r/lambda)/(eps_r*r); lambda = 7.8; eps_r = 78.5", 6.0, "[map] phi", "t");
  PhiVariant mixed;
  mixed.mode = 1;
  PhiVariant dbl;
  dbl.t = dbl.out = "double";
  const std::string src = custom_phi_source(coulomb, mixed);
  // 1/r is one rsqrt (formula::radial_program), and its FMA-pipe twin for the direct kernel.
  EXPECT_NE(src.find("pairwise::rsqrt("), std::string::npos) << src;
  EXPECT_NE(src.find("pairwise::physics::rsqrt_fma("), std::string::npos) << src;
  EXPECT_EQ(src.find("sqrt(s)"), std::string::npos) << src;
  const auto names = custom_phi_kernel_names(mixed);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0],
            "&pairwise::potmap::device::direct_regions<float, float, 1, "
            "pairwise::potmap::device::FormulaPhi>");
  if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty())
    GTEST_SKIP() << why;
  for (const auto& [phi, v] : {std::pair{&coulomb, mixed}, {&dh, dbl}}) {
    auto program = custom_phi_program(*phi, v, 90);
    program.use_cache = false;
    const formula::CompiledProgram k = formula::compile_cuda_program(program);
    EXPECT_GT(k.cubin.size(), 1000u);
    ASSERT_EQ(k.lowered.size(), 2u);
    EXPECT_NE(k.lowered[0].find("direct_regions"), std::string::npos) << k.lowered[0];
    EXPECT_NE(k.lowered[1].find("cutoff_regions"), std::string::npos) << k.lowered[1];
    std::printf("NVRTC compile of the potmap custom phi kernels (%s): %.3f s\n", v.t.c_str(),
                k.seconds);
  }
}

double map_error(const std::vector<double>& got, const std::vector<double>& ref) {
  return test::max_relative_error({&got}, {&ref});
}

// On the GPU (skipped without a device): the NVRTC-compiled direct and cutoff kernels.
TEST(PotmapCustomCuda, FormulaMapsMatchTheReference) {
  std::string why;
  if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  const Atoms atoms = random_atoms(3000, 11);
  const Lattice lattice = lattice_around(atoms, 0.5, 1.0);
  MapOptions o;
  o.exclusion = 0.5;
  o.precision = Precision::double_;
  const auto coulomb_ref = compute_map(BackendKind::reference, atoms, lattice, o).values;
  o.custom = std::make_shared<const CustomPhi>("1/r", 0.0, "[map] phi", "t");
  for (Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
    o.precision = p;
    const MapResult r = compute_map(BackendKind::cuda, atoms, lattice, o);
    EXPECT_NE(r.device.find("custom phi"), std::string::npos) << r.device;
    const double e = map_error(r.values, coulomb_ref);
    EXPECT_LT(e, test::force_tolerance(p)) << "1/r direct " << to_string(p);
    std::printf("custom 1/r direct, %s: max relative error %.3g (%s)\n",
                std::string(to_string(p)).c_str(), e, r.device.c_str());
  }
  o.cutoff = 8.0;
  // Shifted to 0 at rc: with plain truncation an atom within FP32 rounding of rc counts in one
  // precision and not in the other (q φ(rc) at that point; docs/formulas.md).
  o.custom = std::make_shared<const CustomPhi>(
      "exp(-r/lambda)/(eps_r*r) - exp(-rc/lambda)/(eps_r*rc); lambda = 7.8; eps_r = 78.5", 8.0,
      "[map] phi", "t");
  o.precision = Precision::double_;
  const auto dh_ref = compute_map(BackendKind::reference, atoms, lattice, o).values;
  for (Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
    o.precision = p;
    const double e = map_error(compute_map(BackendKind::cuda, atoms, lattice, o).values, dh_ref);
    EXPECT_LT(e, test::force_tolerance(p)) << "Debye-Hueckel cutoff " << to_string(p);
    std::printf("custom Debye-Hueckel cutoff, %s: max relative error %.3g\n",
                std::string(to_string(p)).c_str(), e);
  }
}

// Trajectories on the GPU: the frame pipeline (buffers kept across frames, an FP64 device
// accumulator) with a custom φ gives the average of the reference's per-frame maps.
TEST(PotmapCustomCuda, TrajectoryAverageMatchesTheReference) {
  std::string why;
  if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  const Atoms a = random_atoms(500, 21), b = random_atoms(700, 22);
  const Lattice lattice = lattice_around(a, 0.5, 1.0);
  MapOptions o;
  o.cutoff = 6.0;
  o.precision = Precision::double_;
  o.custom =
      std::make_shared<const CustomPhi>("exp(-r/3)/r - exp(-rc/3)/rc", 6.0, "[map] phi", "t");
  const auto ra = compute_map(BackendKind::reference, a, lattice, o).values;
  const auto rb = compute_map(BackendKind::reference, b, lattice, o).values;
  std::vector<double> ref(ra.size());
  for (std::size_t i = 0; i < ref.size(); ++i) ref[i] = 0.5 * (ra[i] + rb[i]);
  for (Precision p : {Precision::mixed, Precision::double_}) {
    o.precision = p;
    auto frames = make_frame_maps(BackendKind::cuda, lattice, o, Combine::average);
    frames->add(a);
    frames->add(b);
    EXPECT_NE(frames->device().find("custom phi"), std::string::npos) << frames->device();
    EXPECT_LT(map_error(frames->result(), ref), test::force_tolerance(p)) << to_string(p);
  }
}

// Speed of the formula kernels against the built-in ones for the same φ (no bound: the figures
// are printed as JSON lines "BENCHJSON {...}" for bench/results): 1/r direct, and the built-in
// cutoff map's switched Coulomb (1 − r²/rc²)²/r written as a formula with the same cutoff.
TEST(PotmapCustomCuda, FormulaSpeedAgainstBuiltIn) {
  std::string why;
  if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  Atoms atoms;  // 21,600 atoms in a 60 Å box (the density of water's atoms), charges ±
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> u(0, 60), q(-0.8, 0.8);
  for (int i = 0; i < 21600; ++i) atoms.push_back(u(rng), u(rng), u(rng), q(rng));
  const Lattice lattice = lattice_around(atoms, 0.5, 0.0);
  auto median_seconds = [&](const MapOptions& o, MapResult& last) {
    std::vector<double> s;
    for (int r = 0; r < 6; ++r) {
      last = compute_map(BackendKind::cuda, atoms, lattice, o);
      if (r > 0) s.push_back(last.seconds);  // the first one compiles (or reads the cache)
    }
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  };
  auto record = [&](const char* name, const MapOptions& o, const MapResult& r, double seconds,
                    double pairs) {
    std::printf(
        "BENCHJSON {\"suite\": \"potmap\", \"case\": \"%s\", \"backend\": \"cuda\", "
        "\"precision\": \"%s\", \"device\": \"%s\", \"n\": %zu, \"params\": {\"points\": "
        "%zu, \"cutoff\": %g, \"phi\": \"%s\", \"statistic\": \"median of 5\"}, \"metric\": "
        "\"time\", \"value\": %.6g, \"unit\": \"ms\", \"time_s\": %.6g, \"pairs_per_s\": "
        "%.6g}\n",
        name, std::string(to_string(o.precision)).c_str(), r.device.c_str(), atoms.size(),
        lattice.size(), o.cutoff, o.custom ? o.custom->text().c_str() : "built-in", seconds * 1e3,
        seconds, pairs / seconds);
  };
  for (Precision p : {Precision::single, Precision::mixed}) {
    MapOptions o;
    o.precision = p;
    MapResult builtin, formula;
    const double direct_pairs = double(lattice.size()) * double(atoms.size());
    const double tb = median_seconds(o, builtin);
    record("direct-builtin", o, builtin, tb, direct_pairs);
    o.custom = std::make_shared<const CustomPhi>("1/r", 0.0, "[map] phi", "t");
    const double tf = median_seconds(o, formula);
    record("direct-formula", o, formula, tf, direct_pairs);
    EXPECT_LT(map_error(formula.values, builtin.values), 2 * test::force_tolerance(p));
    o.custom = nullptr;
    o.cutoff = 12.0;
    const double cutoff_pairs = double(lattice.size()) * double(atoms.size()) *
                                (4.0 / 3.0 * M_PI * 12 * 12 * 12) / (60.0 * 60 * 60);
    const double cb = median_seconds(o, builtin);
    record("cutoff-builtin", o, builtin, cb, cutoff_pairs);
    o.custom = std::make_shared<const CustomPhi>("(1 - r^2/rc^2)^2/r", 12.0, "[map] phi", "t");
    const double cf = median_seconds(o, formula);
    record("cutoff-formula", o, formula, cf, cutoff_pairs);
    EXPECT_LT(map_error(formula.values, builtin.values), 2 * test::force_tolerance(p));
    std::printf("%s: formula/built-in speed: direct 1/r %.3f, cutoff switched Coulomb %.3f\n",
                std::string(to_string(p)).c_str(), tb / tf, cb / cf);
  }
}

}  // namespace
