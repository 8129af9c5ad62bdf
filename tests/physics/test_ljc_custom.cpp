// ljc custom non-bonded term (issue 13): LJ (Lorentz–Berthelot) + constant-dielectric Coulomb
// written as a formula in place of the built-in term gives the built-in forces and energy (1-4
// scales equal, so the one 1-4 factor of the custom term matches), on reference and cpu; a term
// beside LJ + Coulomb adds −∇U (central differences, exclusions and 1-4 scaling kept); a LAMMPS
// table term reproduces LJ to its interpolation error; formulas and tables on cuda against the
// reference.
#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "backend_params.hpp"
#include "core/config.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "engine/table_pair.hpp"
#include "ljc/cuda_custom_term.hpp"
#include "ljc/custom_nonbonded.hpp"
#include "ljc/run_config.hpp"
#include "ljc/velocities.hpp"
#include "ljc_sets.hpp"
#include "pairwise/error.hpp"
#include "tolerances.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::ljc;

const char* kLjCoulomb =
    "4*eps*((sig/r)^12 - (sig/r)^6) + 332.0636*q1*q2/(2*r); eps = sqrt(epsilon1*epsilon2); "
    "sig = (sigma1 + sigma2)/2";

LjcForces forces(BackendKind b, const Molecule& m, const NonbondedOptions& nb,
                 std::shared_ptr<const CustomNonbonded> custom, Precision p = Precision::double_) {
  LjcKernelOptions o;
  o.precision = p;
  o.custom = std::move(custom);
  auto k = make_ljc_kernel(b, o);
  return test::ljc_forces(*k, m, nb);
}

double rel(const LjcForces& a, const LjcForces& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.fx.size(); ++i) {
    num += std::pow(a.fx[i] - b.fx[i], 2) + std::pow(a.fy[i] - b.fy[i], 2) +
           std::pow(a.fz[i] - b.fz[i], 2);
    den += b.fx[i] * b.fx[i] + b.fy[i] * b.fy[i] + b.fz[i] * b.fz[i];
  }
  return std::sqrt(num / den);
}

TEST(LjcCustom, FormulaReplacingLjCoulombMatchesBuiltIn) {
  const Molecule m = test::ljc_globule_per_atom_lj(200);
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);  // ε = 2
  nb.scale14_lj = nb.scale14_coulomb = 0.5;
  const LjcForces ref = forces(BackendKind::reference, m, nb, nullptr);
  auto custom = std::make_shared<const CustomNonbonded>(kLjCoulomb, true, "[t]", "t");
  for (BackendKind b : {BackendKind::reference, BackendKind::cpu}) {
    const LjcForces got = forces(b, m, nb, custom);
    EXPECT_LT(rel(got, ref), 1e-12) << to_string(b);
    EXPECT_EQ(got.lj, 0.0);
    EXPECT_EQ(got.coulomb, 0.0);
    EXPECT_NEAR(got.custom, ref.lj + ref.coulomb, 1e-12 * std::abs(ref.lj + ref.coulomb));
    EXPECT_NEAR(got.bond, ref.bond, 1e-12 * std::abs(ref.bond));
  }
}

TEST(LjcCustom, TermBesideLjCoulombIsMinusGradient) {
  const Molecule m = test::ljc_globule(60);
  const NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  auto custom = std::make_shared<const CustomNonbonded>(
      "A*exp(-r/(sigma1 + sigma2))*(1 + q1*q2); A = 0.3", false, "[t]", "t");
  const LjcForces f = forces(BackendKind::cpu, m, nb, custom);
  const LjcForces base = forces(BackendKind::cpu, m, nb, nullptr);
  EXPECT_NE(f.custom, 0.0);
  EXPECT_NEAR(f.lj, base.lj, 1e-12 * std::abs(base.lj));
  const double h = 1e-5;
  for (std::size_t i : {0u, 13u, 59u})
    for (int d = 0; d < 3; ++d) {
      Molecule p = m, q = m;
      (d == 0 ? p.x : d == 1 ? p.y : p.z)[i] += h;
      (d == 0 ? q.x : d == 1 ? q.y : q.z)[i] -= h;
      const double fd = -(forces(BackendKind::reference, p, nb, custom).energy() -
                          forces(BackendKind::reference, q, nb, custom).energy()) /
                        (2 * h);
      const double got = (d == 0 ? f.fx : d == 1 ? f.fy : f.fz)[i];
      EXPECT_NEAR(got, fd, 1e-6 * std::max(1.0, std::abs(got))) << i << " " << d;
    }
}

TEST(LjcCustom, ErrorsNameTheColumn) {
  try {
    CustomNonbonded("4*sqrt(epsilon1*epsilonn2)/r", false, "[forcefield] custom", "g.toml:7");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown name 'epsilonn2' at column 17 in [forcefield] custom, did you "
                 "mean 'epsilon2'?, g.toml:7");
  }
}

// A LAMMPS table (section LJ) of LJ(σ, ε) shifted by `shift` (kcal/mol, Å) on an RSQ grid of n
// points from lo to hi.
void write_lj_table(const std::filesystem::path& file, int n, double lo, double hi, double sigma,
                    double eps, double shift = 0) {
  std::ofstream out(file);
  out.precision(17);
  out << "# LJ of the globule\n\nLJ\nN " << n << " RSQ " << lo << " " << hi << "\n\n";
  for (int k = 0; k < n; ++k) {
    const double r = std::sqrt(lo * lo + (hi * hi - lo * lo) * k / (n - 1));
    const double s6 = std::pow(sigma / r, 6);
    out << k + 1 << " " << r << " " << 4 * eps * (s6 * s6 - s6) - shift << " "
        << 24 * eps * (2 * s6 * s6 - s6) / r << "\n";
  }
}

// The closest and the farthest pair distances of m.
std::pair<double, double> distance_range(const Molecule& m) {
  double rmin = 1e300, rmax = 0;
  for (std::size_t i = 0; i < m.size(); ++i)
    for (std::size_t j = i + 1; j < m.size(); ++j) {
      const double r = std::sqrt(std::pow(m.x[i] - m.x[j], 2) + std::pow(m.y[i] - m.y[j], 2) +
                                 std::pow(m.z[i] - m.z[j], 2));
      rmin = std::min(rmin, r), rmax = std::max(rmax, r);
    }
  return {rmin, rmax};
}

// A LAMMPS table of the globule's LJ (uniform σ, ε; RSQ grid from below the closest pair to beyond
// the farthest) in place of LJ + Coulomb reproduces the built-in LJ (charges zeroed) to the
// table's interpolation error: linear second order in the bin width, spline far below.
TEST(LjcCustom, LammpsTableOfLjReproducesBuiltInLj) {
  const Molecule m = test::ljc_globule(120);
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  nb.scale14_lj = 0.5;
  Molecule neutral = m;
  std::fill(neutral.q.begin(), neutral.q.end(), 0.0);
  const LjcForces ref = forces(BackendKind::reference, neutral, nb, nullptr);
  const auto [rmin, rmax] = distance_range(m);
  const double sigma = m.sigma[0], eps = m.epsilon[0], lo = 0.9 * rmin, hi = 1.05 * rmax;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pw_ljc_table_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto error_with = [&](int n, const char* style, BackendKind b) {
    const auto file = dir / ("lj" + std::to_string(n) + ".table");
    write_lj_table(file, n, lo, hi, sigma, eps);
    auto custom = std::make_shared<const CustomNonbonded>(
        engine::make_table_pair(file.string(), "LJ", style, n, 0, "[t] table_file"), true);
    const LjcForces got = forces(b, m, nb, custom);
    EXPECT_EQ(got.coulomb, 0.0);
    EXPECT_NEAR(got.custom, ref.lj, 1e-3 * std::abs(ref.lj)) << style << " " << n;
    return rel(got, ref);
  };
  const double lin1 = error_with(2000, "linear", BackendKind::cpu);
  const double lin2 = error_with(4000, "linear", BackendKind::cpu);
  const double spl = error_with(2000, "spline", BackendKind::cpu);
  const double spl_ref = error_with(2000, "spline", BackendKind::reference);
  std::printf(
      "ljc table of LJ vs built-in LJ, force error: linear N=2000 %.2e, N=4000 %.2e, "
      "spline %.2e\n",
      lin1, lin2, spl);
  EXPECT_LT(lin1, 1e-2);
  EXPECT_GT(lin1 / lin2, 3.0);  // second order in the bin width
  EXPECT_LT(lin1 / lin2, 5.0);
  EXPECT_LT(spl, 0.05 * lin1);
  EXPECT_NEAR(spl, spl_ref, 1e-12);
  // The configuration keys: [forcefield] table_file (relative to the file) and its companions.
  auto config = config::Config::parse(
      "workload = \"ljc\"\n[forcefield]\ntable_file = \"lj2000.table\"\ntable_keyword = "
      "\"LJ\"\ntable_style = \"spline\"\ncustom_replaces = true\n",
      (dir / "t.toml").string());
  config.set_base_directory(dir);
  const RunConfig rc = read_run_config(config);
  ASSERT_TRUE(rc.custom && rc.custom->table());
  EXPECT_TRUE(rc.custom->replaces());
  auto bad = config::Config::parse("workload = \"ljc\"\n[forcefield]\ntable_keyword = \"LJ\"\n",
                                   (dir / "t.toml").string());
  EXPECT_THROW(read_run_config(bad), Error);
  std::filesystem::remove_all(dir);
}

// The GPU form of the formula (ljc_pair_program: the normal form the tile kernels evaluate, in r²
// with one rsqrt) has the values of the formula in r, for a formula with r, r², 1/r, r^-6 and a
// sqrt of its own, with the first atom's parameters invariant and with all of them (uniform).
TEST(LjcCustom, GpuPairProgramHasTheSameValues) {
  const CustomNonbonded c(
      "4*eps*((sig/r)^12 - (sig/r)^6) + 332.0636*q1*q2/r + 0.01*r^2 + 0.2*r + exp(-sqrt(r)) + "
      "r^-6; eps = sqrt(epsilon1*epsilon2); sig = (sigma1 + sigma2)/2",
      false, "[t]", "t");
  for (bool uniform : {false, true}) {
    const formula::RadialProgram p = ljc_pair_program(c, uniform);
    for (double r : {0.9, 2.5, 3.7, 11.0}) {
      const double in[7] = {r * r, 0.4, -0.7, 3.1, 3.5, 0.12, 0.2};
      double e = 0, fr = 0;
      c.reference(in, e, fr);
      const std::vector<double> out = p.evaluate(std::vector<double>(in, in + 7));
      EXPECT_NEAR(out[0], e, 1e-13 * std::abs(e)) << r;
      EXPECT_NEAR(out[1], fr, 1e-13 * std::abs(fr)) << r;
    }
  }
}

// Table terms of the globule `m` (its first atom's σ, ε), in `dir`: LJ shifted to 0 at a cutoff
// of 0.6 of the farthest pair (so pairs beyond it count 0), from 0.9 of the closest pair; linear
// beside LJ + Coulomb (the table's own grid) and spline replacing them (N = 1500, re-splined).
std::vector<std::shared_ptr<const CustomNonbonded>> table_terms(const Molecule& m,
                                                                const std::filesystem::path& dir) {
  const auto [rmin, rmax] = distance_range(m);
  const double lo = 0.9 * rmin, hi = 0.6 * rmax, s6 = std::pow(m.sigma[0] / hi, 6);
  const auto file = dir / "lj.table";
  write_lj_table(file, 2000, lo, hi, m.sigma[0], m.epsilon[0], 4 * m.epsilon[0] * (s6 * s6 - s6));
  return {
      std::make_shared<const CustomNonbonded>(
          engine::make_table_pair(file.string(), "LJ", "linear", 2000, 0, "[t] table_file"), false),
      std::make_shared<const CustomNonbonded>(
          engine::make_table_pair(file.string(), "LJ", "spline", 1500, 0, "[t] table_file"), true)};
}

// A table term on the GPU: its interpolation and the table data in the tile program's CustomPair
// (0 beyond the cutoff), compiled by NVRTC for sm_90 in FP32 (4 targets per lane) and FP64 (no
// device needed; skipped without libnvrtc).
TEST(LjcCustom, CudaTileProgramOfTablesCompilesWithNvrtc) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pw_ljc_tsrc_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto terms = table_terms(test::ljc_globule(120), dir);
  // Mixed compiles the single source (float pair terms) with other kernel names.
  const std::tuple<std::size_t, Precision, int> cases[] = {{0, Precision::single, 4},
                                                           {1, Precision::double_, 2}};
  for (const auto& [t, p, kI] : cases) {
    formula::CudaProgram program = ljc_custom_tiles_program(*terms[t], p, kI, 90);
    EXPECT_NE(program.source.find("pw_term_f["), std::string::npos);
    EXPECT_NE(program.source.find("out[0] = out[1] = "), std::string::npos) << "0 beyond rc";
    if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty()) {
      std::filesystem::remove_all(dir);
      GTEST_SKIP() << why;
    }
    program.use_cache = false;
    const auto k = formula::compile_cuda_program(program);
    EXPECT_GT(k.cubin.size(), 1000u);
    ASSERT_EQ(k.lowered.size(), 3u);
  }
  std::filesystem::remove_all(dir);
}

// The GPU term (ljc/cuda_custom_term.hpp): the tile kernel with the formula's pair functor, as
// NVRTC compiles it for sm_90 (no device needed; skipped without libnvrtc), in FP32 with the wide
// tile (4 targets per lane) and in FP64 with 2.
TEST(LjcCustom, CudaTileProgramCompilesWithNvrtc) {
  const CustomNonbonded c(kLjCoulomb, true, "[t]", "t");
  for (auto [p, kI] : {std::pair{Precision::single, 4}, std::pair{Precision::double_, 2}}) {
    formula::CudaProgram program = ljc_custom_tiles_program(c, p, kI, 90);
    EXPECT_NE(program.source.find("struct CustomPair"), std::string::npos);
    EXPECT_EQ(program.name_expressions.size(), 3u);
    if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty())
      GTEST_SKIP() << why;
    program.use_cache = false;
    const auto k = formula::compile_cuda_program(program);
    EXPECT_GT(k.cubin.size(), 1000u);
    ASSERT_EQ(k.lowered.size(), 3u);
    EXPECT_NE(k.lowered[0].find("tiles_kernel"), std::string::npos);
    EXPECT_NE(k.lowered[2].find("pairs14_kernel"), std::string::npos);
  }
}

// On the GPU (skipped without a device): the formula of LJ + Coulomb in place of the built-in
// term, and a term beside it, run inside the cuda backend's Newton-3 tile kernel in every
// precision, against the reference backend at the tolerances of tests/tolerances.hpp (exclusions
// and 1-4 pairs, scaled 0.5, included). N = 300: one target per lane.
TEST(LjcCustomCuda, MatchesReferenceInEveryPrecision) {
  if (std::string why; cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  const Molecule m = test::ljc_globule_per_atom_lj(300);
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  nb.scale14_lj = nb.scale14_coulomb = 0.5;
  auto replacing = std::make_shared<const CustomNonbonded>(kLjCoulomb, true, "[t]", "t");
  auto beside = std::make_shared<const CustomNonbonded>(
      "A*exp(-r/(sigma1 + sigma2))*(1 + q1*q2); A = 0.3", false, "[t]", "t");
  const LjcForces builtin = forces(BackendKind::reference, m, nb, nullptr);
  const LjcForces ref_beside = forces(BackendKind::reference, m, nb, beside);
  for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
    const double tol = test::force_tolerance(p);
    const LjcForces got = forces(BackendKind::cuda, m, nb, replacing, p);
    EXPECT_LT(rel(got, builtin), tol) << to_string(p);
    EXPECT_EQ(got.lj, 0.0);
    EXPECT_EQ(got.coulomb, 0.0);
    EXPECT_NEAR(got.bond, builtin.bond, tol * std::abs(builtin.lj + builtin.coulomb))
        << to_string(p);
    EXPECT_NEAR(got.custom, builtin.lj + builtin.coulomb,
                tol * std::abs(builtin.lj + builtin.coulomb))
        << to_string(p);
    const LjcForces b = forces(BackendKind::cuda, m, nb, beside, p);
    EXPECT_LT(rel(b, ref_beside), tol) << to_string(p);
    EXPECT_NEAR(b.custom, ref_beside.custom, tol * std::abs(ref_beside.custom)) << to_string(p);
    EXPECT_NEAR(b.lj, ref_beside.lj, tol * std::abs(ref_beside.lj)) << to_string(p);
    std::printf("ljc custom term on cuda %s: replacing %.2e, beside %.2e (force error)\n",
                std::string(to_string(p)).c_str(), rel(got, builtin), rel(b, ref_beside));
  }
}

// Double precision's energies on the GPU with a custom term beside the built-in one (its tiles
// and 1-4 pairs in their own energy slots, ljc/cuda_tile_args.hpp): bitwise equal from one
// evaluation to the next and from one kernel to another (no FP64 atomics in the energies).
TEST(LjcCustomCuda, DoubleEnergiesAreBitwiseReproducible) {
  if (std::string why; cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  const Molecule m = test::ljc_globule_per_atom_lj(8192);
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  nb.scale14_lj = nb.scale14_coulomb = 0.5;
  auto beside = std::make_shared<const CustomNonbonded>(
      "A*exp(-r/(sigma1 + sigma2))*(1 + q1*q2); A = 0.3", false, "[t]", "t");
  LjcKernelOptions o;
  o.precision = Precision::double_;
  o.custom = beside;
  auto bits = [](const LjcForces& f) {
    return std::vector<std::uint64_t>{
        std::bit_cast<std::uint64_t>(f.lj), std::bit_cast<std::uint64_t>(f.coulomb),
        std::bit_cast<std::uint64_t>(f.bond), std::bit_cast<std::uint64_t>(f.custom)};
  };
  auto first = make_ljc_kernel(BackendKind::cuda, o),
       second = make_ljc_kernel(BackendKind::cuda, o);
  const LjcForces a = test::ljc_forces(*first, m, nb);
  EXPECT_NE(a.custom, 0.0);
  for (int repeat = 0; repeat < 3; ++repeat) {
    LjcForces again;
    first->compute(again);
    EXPECT_EQ(bits(again), bits(a)) << "evaluation " << repeat + 2;
  }
  EXPECT_EQ(bits(test::ljc_forces(*second, m, nb)), bits(a)) << "second kernel";
}

// The wide tiles (N = 8192: 4 targets per lane in FP32, 2 in FP64, the benchmark's kernel), with
// masked and unmasked tiles, exclusions and 1-4 pairs: the formula replacing LJ + Coulomb against
// the reference backend's built-in term, with per-atom σ, ε and with the same σ, ε for every atom
// (the unmasked tiles' uniform path, as in the benchmark).
TEST(LjcCustomCuda, WideTilesMatchReference) {
  if (std::string why; cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  nb.scale14_lj = nb.scale14_coulomb = 0.5;
  auto replacing = std::make_shared<const CustomNonbonded>(kLjCoulomb, true, "[t]", "t");
  for (const bool per_atom : {true, false}) {
    const Molecule m = per_atom ? test::ljc_globule_per_atom_lj(8192) : test::ljc_globule(8192);
    const LjcForces builtin = forces(BackendKind::reference, m, nb, nullptr);
    for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
      const double tol = test::force_tolerance(p);
      const LjcForces got = forces(BackendKind::cuda, m, nb, replacing, p);
      EXPECT_LT(rel(got, builtin), tol) << to_string(p) << " " << per_atom;
      EXPECT_NEAR(got.custom, builtin.lj + builtin.coulomb,
                  tol * std::abs(builtin.lj + builtin.coulomb))
          << to_string(p) << " " << per_atom;
      std::printf("ljc custom term on cuda %s, N = 8192, %s σ, ε: force error %.2e\n",
                  std::string(to_string(p)).c_str(), per_atom ? "per-atom" : "uniform",
                  rel(got, builtin));
    }
  }
}

// Table terms on cuda (inside the Newton-3 tiles: exclusions, 1-4 pairs scaled 0.5, 0 beyond the
// cutoff) in every precision against the reference backend with the same term: forces and
// energies at the tolerances of tests/tolerances.hpp at N = 300 (one target per lane) and 8192
// (the wide tiles), and 20 NVE steps of the shared dynamics (positions in Å and the energy, the
// bounds of test_ljc_kernels' AdvanceMatchesHostDynamics).
TEST(LjcCustomCuda, TablesMatchReferenceInEveryPrecision) {
  if (std::string why; cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pw_ljc_tcuda_" + std::to_string(::getpid()));
  NonbondedOptions nb = test::ljc_options(physics::DielectricKind::constant);
  nb.scale14_lj = nb.scale14_coulomb = 0.5;
  for (const std::size_t n : {std::size_t(300), std::size_t(8192)}) {
    std::filesystem::create_directories(dir);
    Molecule m = test::ljc_globule(n);
    const auto terms = table_terms(m, dir);
    for (std::size_t t = 0; t < terms.size(); ++t) {
      if (n > 300 && t == 0) continue;  // the wide tiles: the spline term only
      const LjcForces ref = forces(BackendKind::reference, m, nb, terms[t]);
      for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
        const double tol = test::force_tolerance(p);
        const LjcForces got = forces(BackendKind::cuda, m, nb, terms[t], p);
        const std::string what =
            terms[t]->text() + " N=" + std::to_string(n) + " " + std::string(to_string(p));
        EXPECT_LT(rel(got, ref), tol) << what;
        EXPECT_NEAR(got.custom, ref.custom, tol * std::abs(ref.custom)) << what;
        EXPECT_NEAR(got.lj, ref.lj, tol * std::abs(ref.lj)) << what;
        EXPECT_NEAR(got.coulomb, ref.coulomb, tol * std::abs(ref.coulomb)) << what;
        std::printf("ljc table term on cuda, %s: force error %.2e, custom energy %.2e\n",
                    what.c_str(), rel(got, ref),
                    std::abs(got.custom - ref.custom) / std::abs(ref.custom));
      }
    }
    std::filesystem::remove_all(dir);
    if (n > 300) break;
    // 20 NVE steps (1 fs) from 300 K velocities, on the reference and on cuda.
    thermal_velocities(m, 300.0, 2);
    std::vector<double> inv_mass(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) inv_mass[i] = kAccelFactor / m.mass[i];
    engine::DynamicsOptions o;
    o.dt = 1.0;
    for (const auto& term : terms)
      for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
        auto advance = [&](BackendKind b, Precision q) {
          LjcKernelOptions ko;
          ko.precision = q;
          ko.custom = term;
          auto k = make_ljc_kernel(b, ko);
          Molecule s = m;
          k->set_system(s, nb);
          LjcForces f;
          k->compute(f);
          k->advance(s, inv_mass, o, 0, 20, f);
          return std::make_pair(s, f);
        };
        const auto [r, rf] = advance(BackendKind::reference, Precision::double_);
        const auto [g, gf] = advance(BackendKind::cuda, p);
        const double tol = p == Precision::double_ ? 1e-10 : 1e-5;
        double worst = 0;
        for (std::size_t i = 0; i < m.size(); ++i)
          worst = std::max({worst, std::abs(g.x[i] - r.x[i]), std::abs(g.y[i] - r.y[i]),
                            std::abs(g.z[i] - r.z[i])});
        const double scale = std::abs(rf.lj) + std::abs(rf.coulomb) + std::abs(rf.custom);
        EXPECT_LE(worst, tol) << term->text() << " " << to_string(p);
        EXPECT_LE(std::abs(gf.energy() - rf.energy()) / scale, 100 * tol)
            << term->text() << " " << to_string(p);
        std::printf("ljc table term, 20 steps on cuda %s: position error %.2e A, energy %.2e\n",
                    std::string(to_string(p)).c_str(), worst,
                    std::abs(gf.energy() - rf.energy()) / scale);
      }
  }
}

}  // namespace
