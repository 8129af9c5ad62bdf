// Custom pair styles of md (issue 13): examples/custom-lj.toml against examples/lj-melt.toml (the
// same melt, LJ as a formula: thermo within 1e-12 relative in double on cpu); for eight formula
// styles, forces = −∇U by central differences on the reference, and the cpu engine against the
// reference (1e-12 double, 1e-5 FP32 pair arithmetic) with three atom types, combining rules and
// per-pair formulas; a LAMMPS table of LJ against lj/cut within its interpolation error; formulas
// and tables (linear, spline, a table per type pair) on cuda against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend_params.hpp"
#include "cli_runner.hpp"
#include "core/config.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "md/cuda_custom_pair.hpp"
#include "md/custom_force_field.hpp"
#include "md/engine.hpp"
#include "md/run.hpp"
#include "md_systems.hpp"
#include "tolerances.hpp"

namespace {

using namespace pairwise;
namespace fs = std::filesystem;

fs::path examples() {
  return fs::path(PAIRWISE_TEST_DATA).parent_path().parent_path() / "examples";
}

md::MdRunConfig load(const fs::path& file, const std::string& cells) {
  auto config = config::Config::load(file);
  config.set("system.cells=\"" + cells + "\"");
  config.set("run.backend=cpu");
  config.set("run.precision=double");
  return md::read_md_config(config);
}

// The example as written but on 12³ cells (6,912 atoms, so the test takes seconds): 100 steps of
// the same melt, thermo every 10 steps, on `backend` in double: potential, kinetic energy and
// pressure within 1e-12 relative of the built-in lj/cut.
void expect_custom_lj_example_matches_lj_melt(BackendKind backend, const char* name) {
  const auto custom = load(examples() / "custom-lj.toml", "12 12 12");
  const auto builtin = load(examples() / "lj-melt.toml", "12 12 12");
  ASSERT_EQ(custom.custom.kind, md::CustomForceFieldSpec::Kind::formula);
  md::System sc = md::build_system(custom), sb = md::build_system(builtin);
  md::EngineOptions o;
  o.precision = Precision::double_;
  o.skin = custom.skin;
  o.dynamics = custom.dynamics;
  auto ec = md::make_md_engine(backend, o), eb = md::make_md_engine(backend, o);
  ec->set_state(sc), eb->set_state(sb);
  double worst = 0;
  for (int step = 0; step <= 100; step += 10) {
    if (step > 0)
      ec->advance(std::uint64_t(step - 9), 10), eb->advance(std::uint64_t(step - 9), 10);
    const md::Thermo a = ec->thermo(), b = eb->thermo();
    const double pa = md::pressure(a, sc.box.volume()), pb = md::pressure(b, sb.box.volume());
    for (auto [x, y] : {std::pair{a.potential, b.potential}, {a.kinetic, b.kinetic}, {pa, pb}}) {
      worst = std::max(worst, std::abs(x - y) / std::abs(y));
      EXPECT_NEAR(x, y, 1e-12 * std::abs(y)) << "step " << step;
    }
  }
  std::printf("custom-lj vs lj-melt (6,912 atoms, 100 steps, %s double): max relative %.2e\n", name,
              worst);
}

TEST(MdCustom, CustomLjExampleMatchesLjMeltThermo) {
  expect_custom_lj_example_matches_lj_melt(BackendKind::cpu, "cpu");
}

struct Style {
  const char* name;
  const char* energy;
  std::map<std::string, double> params;
  formula::Truncation truncation;
};

const std::vector<Style>& styles() {
  static const std::vector<Style> s = {
      {"lj",
       "4*epsilon*((sigma/r)^12 - (sigma/r)^6)",
       {{"epsilon", 1}, {"sigma", 1}},
       formula::Truncation::cut},
      {"morse",
       "D*(exp(-2*a*(r - r0)) - 2*exp(-a*(r - r0)))",
       {{"D", 1}, {"a", 3}, {"r0", 1.1}},
       formula::Truncation::shift},
      {"buckingham",
       "A*exp(-r/rho) - C/r^6",
       {{"A", 1000}, {"rho", 0.1}, {"C", 1}},
       formula::Truncation::shifted_force},
      {"yukawa", "A*exp(-kappa*r)/r", {{"A", 2}, {"kappa", 1.5}}, formula::Truncation::shift},
      {"soft_core",
       "4*epsilon*lambda*(1/(alpha*(1 - lambda)^2 + (r/sigma)^6)^2 - 1/(alpha*(1 - lambda)^2 + "
       "(r/sigma)^6))",
       {{"epsilon", 1}, {"sigma", 1}, {"lambda", 0.7}, {"alpha", 0.5}},
       formula::Truncation::shift},
      {"gaussian_core",
       "epsilon*exp(-(r/sigma)^2)",
       {{"epsilon", 2}, {"sigma", 1}},
       formula::Truncation::shifted_force},
      {"wca",
       "select(step(rm - r), 4*epsilon*((sigma/r)^12 - (sigma/r)^6) + epsilon, 0); rm = "
       "2^(1/6)*sigma",
       {{"epsilon", 1}, {"sigma", 1}},
       formula::Truncation::cut},
      {"mie",
       "(n/(n - m))*(n/m)^(m/(n - m))*epsilon*((sigma/r)^n - (sigma/r)^m)",
       {{"epsilon", 1}, {"sigma", 1}, {"n", 14}, {"m", 7}},
       formula::Truncation::shifted_force},
  };
  return s;
}

md::System system_with(const Style& st, int cells = 4) {
  md::System s = test::jittered_lattice("fcc", 0.8442, cells, 0.12, 5, 1.0);
  md::CustomForceFieldSpec spec;
  spec.kind = md::CustomForceFieldSpec::Kind::formula;
  spec.cutoff = 2.5;
  spec.truncation = st.truncation;
  spec.energy = {st.energy, std::string("[test] ") + st.name, "test"};
  spec.globals = st.params;
  s.ff.custom = md::build_custom_pairs(spec, 1);
  return s;
}

double potential(const md::System& s) {
  md::EngineOptions o;
  o.precision = Precision::double_;
  auto e = md::make_md_engine(BackendKind::reference, o);
  e->set_state(s);
  return e->thermo().potential;
}

TEST(MdCustom, ForcesAreMinusGradientForEveryStyle) {
  for (const auto& st : styles()) {
    md::System s = system_with(st, 3);  // 108 atoms, L = 5.04: minimum image within rc = 2.5
    md::EngineOptions o;
    o.precision = Precision::double_;
    auto e = md::make_md_engine(BackendKind::reference, o);
    e->set_state(s);
    std::vector<double> fx, fy, fz;
    e->forces(fx, fy, fz);
    double fscale = 0;
    for (double f : fx) fscale = std::max(fscale, std::abs(f));
    for (std::size_t i : {0u, 17u, 55u, 101u}) {
      for (int d = 0; d < 3; ++d) {
        const double h = 1e-5;
        md::System p = s, m = s;
        (d == 0 ? p.atoms.x : d == 1 ? p.atoms.y : p.atoms.z)[i] += h;
        (d == 0 ? m.atoms.x : d == 1 ? m.atoms.y : m.atoms.z)[i] -= h;
        const double fd = -(potential(p) - potential(m)) / (2 * h);
        const double f = (d == 0 ? fx : d == 1 ? fy : fz)[i];
        EXPECT_NEAR(f, fd, 1e-6 * std::max(1.0, fscale))
            << st.name << " atom " << i << " dim " << d;
      }
    }
  }
}

double force_error(const std::vector<double>* got, const std::vector<double>* ref) {
  double num = 0, den = 0;
  for (int d = 0; d < 3; ++d)
    for (std::size_t i = 0; i < ref[d].size(); ++i) {
      num += (got[d][i] - ref[d][i]) * (got[d][i] - ref[d][i]);
      den += ref[d][i] * ref[d][i];
    }
  return std::sqrt(num / den);
}

struct Forces {
  std::vector<double> f[3];
  md::Thermo thermo;
};

Forces run(BackendKind b, Precision p, const md::System& s, int steps) {
  md::EngineOptions o;
  o.precision = p;
  o.dynamics.dt = 0.002;
  auto e = md::make_md_engine(b, o);
  e->set_state(s);
  if (steps) e->advance(1, steps);
  Forces r;
  e->forces(r.f[0], r.f[1], r.f[2]);
  r.thermo = e->thermo();
  return r;
}

TEST(MdCustom, CpuMatchesReferenceForEveryStyle) {
  for (const auto& st : styles())
    for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
      const md::System s = system_with(st, 5);
      const Forces ref = run(BackendKind::reference, Precision::double_, s, 5);
      const Forces got = run(BackendKind::cpu, p, s, 5);
      const double tol = p == Precision::double_ ? 1e-12 : 1e-5;
      EXPECT_LT(force_error(got.f, ref.f), tol) << st.name << " " << to_string(p);
      EXPECT_NEAR(got.thermo.potential, ref.thermo.potential, tol * std::abs(ref.thermo.potential))
          << st.name;
      EXPECT_NEAR(got.thermo.virial, ref.thermo.virial, tol * std::abs(ref.thermo.virial) + tol)
          << st.name;
    }
}

// Three types: per-type parameters combined by formulas (Lorentz–Berthelot), one pair with its
// own formula and cutoff; the custom formula of LJ against the built-in LJ with the same mixing.
TEST(MdCustom, CombiningRulesAndPerPairFormulasMatchBuiltInMixing) {
  md::System s = test::jittered_lattice("fcc", 0.8442, 5, 0.1, 9, 1.0);
  test::make_three_types(s, 4);
  s.ff.mixing = md::Mixing::arithmetic;
  md::CustomForceFieldSpec spec;
  spec.kind = md::CustomForceFieldSpec::Kind::formula;
  spec.cutoff = 2.5;
  spec.truncation = formula::Truncation::shifted_force;
  s.ff.style = physics::LjStyle::shifted_force;
  spec.energy = {"4*eps*((sig/r)^12 - (sig/r)^6)", "[test] energy", "test"};
  spec.type_params[1] = {{"eps", 1.0}, {"sig", 1.0}};
  spec.type_params[2] = {{"eps", 0.8}, {"sig", 1.1}};
  spec.type_params[3] = {{"eps", 1.3}, {"sig", 0.9}};
  spec.combine["eps"] = {"sqrt(eps1*eps2)", "[test] combine.eps", "test"};
  spec.combine["sig"] = {"(sig1 + sig2)/2", "[test] combine.sig", "test"};
  md::CustomForceFieldSpec::Pair p13;
  p13.i = 1, p13.j = 3, p13.cutoff = 2.2;
  p13.energy = {"4*e13*(s6*s6 - s6); s6 = (0.95/r)^6", "[test] pair_1_3.energy", "test"};
  p13.params = {{"e13", 0.5}};
  spec.pairs.push_back(p13);
  md::System custom = s;
  custom.ff.custom = md::build_custom_pairs(spec, 3);
  for (BackendKind b : {BackendKind::reference, BackendKind::cpu}) {
    const Forces ref = run(BackendKind::reference, Precision::double_, s, 3);
    const Forces got = run(b, Precision::double_, custom, 3);
    EXPECT_LT(force_error(got.f, ref.f), 1e-12) << to_string(b);
    EXPECT_NEAR(got.thermo.potential, ref.thermo.potential, 1e-12 * std::abs(ref.thermo.potential));
  }
}

// Sections of LJ(ε, σ) tables (E, F = −dE/dr) on an RSQ grid of n points from lo to hi, written
// to `file` (one keyword per section).
struct LjSection {
  std::string keyword;
  double epsilon = 1, sigma = 1;
};
void write_lj_tables(const fs::path& file, const std::vector<LjSection>& sections, int n, double lo,
                     double hi) {
  std::ofstream out(file);
  out.precision(17);
  out << "# LJ tables\n";
  for (const auto& s : sections) {
    out << "\n" << s.keyword << "\nN " << n << " RSQ " << lo << " " << hi << "\n\n";
    for (int i = 0; i < n; ++i) {
      const double r = std::sqrt(lo * lo + (hi * hi - lo * lo) * i / (n - 1));
      const double s6 = std::pow(s.sigma / r, 6);
      out << i + 1 << " " << r << " " << 4 * s.epsilon * (s6 * s6 - s6) << " "
          << s.epsilon * (48 * s6 * s6 - 24 * s6) / r << "\n";
    }
  }
}

// A LAMMPS table of LJ (RSQ grid, N points, 0.8 to 2.5) used as style table, against the built-in
// lj/cut: the error shrinks as the table's interpolation error (linear: h², so ~4x from N to 2N;
// spline: far below linear).
TEST(MdCustom, LammpsTableOfLjReproducesLjCut) {
  const fs::path dir = fs::temp_directory_path() / ("pw_table_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto write_table = [&](int n) {
    const fs::path f = dir / ("lj" + std::to_string(n) + ".table");
    std::ofstream out(f);
    out.precision(17);
    out << "# LJ epsilon = sigma = 1\n\nLJ\nN " << n << " RSQ 0.8 2.5\n\n";
    for (int i = 0; i < n; ++i) {
      const double r = std::sqrt(0.64 + (6.25 - 0.64) * i / (n - 1)), s6 = std::pow(r, -6);
      out << i + 1 << " " << r << " " << 4 * (s6 * s6 - s6) << " " << (48 * s6 * s6 - 24 * s6) / r
          << "\n";
    }
    return f;
  };
  const md::System s = test::jittered_lattice("fcc", 0.8442, 5, 0.1, 3, 1.0);
  const Forces ref = run(BackendKind::reference, Precision::double_, s, 0);
  auto error_with = [&](int n, const char* style, int table_n, BackendKind b) {
    md::CustomForceFieldSpec spec;
    spec.kind = md::CustomForceFieldSpec::Kind::table;
    spec.cutoff = 0;
    spec.table_file = write_table(n).string();
    spec.table_keyword = "LJ";
    spec.table_style = style;
    spec.table_n = table_n;
    md::System t = s;
    t.ff.custom = md::build_custom_pairs(spec, 1);
    const Forces got = run(b, Precision::double_, t, 0);
    EXPECT_NEAR(got.thermo.potential, ref.thermo.potential, 1e-3 * std::abs(ref.thermo.potential));
    return force_error(got.f, ref.f);
  };
  const double lin1 = error_with(1000, "linear", 1000, BackendKind::cpu);
  const double lin2 = error_with(2000, "linear", 2000, BackendKind::cpu);
  const double spl = error_with(1000, "spline", 1000, BackendKind::cpu);
  const double spl_ref = error_with(1000, "spline", 1000, BackendKind::reference);
  std::printf("table of LJ vs lj/cut, force error: linear N=1000 %.2e, N=2000 %.2e, spline %.2e\n",
              lin1, lin2, spl);
  EXPECT_LT(lin1, 1e-3);
  EXPECT_GT(lin1 / lin2, 3.0);  // second order in the bin width
  EXPECT_LT(lin1 / lin2, 5.0);
  EXPECT_LT(spl, 0.05 * lin1);
  EXPECT_NEAR(spl, spl_ref, 1e-9);
  fs::remove_all(dir);
}

// The GPU path (md/cuda_custom_pair.hpp): the source generated for every style, and for three
// types with a pair of its own, is the engine's forces_kick / energy_terms with a CustomPair; it
// compiles with NVRTC for sm_90 (no device needed; skipped where libnvrtc is missing).
TEST(MdCustom, CudaSourceOfFormulasCompilesWithNvrtc) {
  md::CustomMdVariant single;  // the 2,048,000-atom single instantiation
  single.fast_math = true;
  md::CustomMdVariant mixed = single;
  mixed.r = "double", mixed.a = "double", mixed.fixed = true, mixed.fast_math = false;
  md::CustomMdVariant dbl;
  dbl.r = dbl.p = dbl.a = "double", dbl.min_blocks = 1, dbl.one_type = false;
  for (const auto& st : styles()) {
    const md::System s = system_with(st, 2);
    const std::string src = md::md_custom_pair_source(*s.ff.custom, single);
    EXPECT_NE(src.find("struct CustomPair"), std::string::npos) << st.name;
    EXPECT_NE(src.find("#include \"md/cuda_md_forces.cuh\""), std::string::npos);
    EXPECT_NE(src.find("float(6.25)"), std::string::npos) << st.name << ": rc² folded in";
    // Even powers of r in r², F/r as −2 dE/d(r²): LJ needs no square root.
    if (std::string(st.name) == "lj") {
      EXPECT_EQ(src.find("sqrt"), std::string::npos) << src;
    }
  }
  const auto names = md::md_custom_kernel_names(mixed);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0],
            "&pairwise::md::forces_kick<double, float, double, false, true, 4, true, 16, false, "
            "true, pairwise::md::CustomPair>");
  if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty())
    GTEST_SKIP() << why;
  md::System three = test::jittered_lattice("fcc", 0.8442, 2, 0.1, 9, 1.0);
  test::make_three_types(three, 4);
  md::CustomForceFieldSpec spec;
  spec.kind = md::CustomForceFieldSpec::Kind::formula;
  spec.energy = {"4*eps*((sig/r)^12 - (sig/r)^6)", "[test] energy", "test"};
  for (int t = 1; t <= 3; ++t) spec.type_params[t] = {{"eps", 1.0 + 0.1 * t}, {"sig", 1.0}};
  spec.combine["eps"] = {"sqrt(eps1*eps2)", "[test] combine.eps", "test"};
  spec.combine["sig"] = {"(sig1 + sig2)/2", "[test] combine.sig", "test"};
  md::CustomForceFieldSpec::Pair p13;
  p13.i = 1, p13.j = 3, p13.cutoff = 2.2;
  p13.energy = {"D*(exp(-2*a*(r - 1.1)) - 2*exp(-a*(r - 1.1)))", "[test] pair_1_3.energy", "test"};
  p13.params = {{"D", 0.5}, {"a", 3}};
  spec.pairs.push_back(p13);
  const auto pairs3 = md::build_custom_pairs(spec, 3);
  for (const auto& [pairs, v] :
       {std::pair{system_with(styles()[0], 2).ff.custom, single}, {pairs3, dbl}, {pairs3, mixed}}) {
    auto program = md::md_custom_program(*pairs, v, 90);
    program.use_cache = false;
    const formula::CompiledProgram k = formula::compile_cuda_program(program);
    EXPECT_GT(k.cubin.size(), 1000u);
    ASSERT_EQ(k.lowered.size(), 2u);
    EXPECT_NE(k.lowered[0].find("forces_kick"), std::string::npos) << k.lowered[0];
    std::printf("NVRTC compile of the md custom kernels (%s): %.3f s\n", v.key().c_str(),
                k.seconds);
  }
}

// Table systems of the tests below: LJ tables (1 type, `style`), or three types with a table of
// its own for each type pair (the make_three_types ε, σ; pair 1-3 cut at 2.2 inside its table).
struct TableSystem {
  std::string name;
  md::System system;
};
std::vector<TableSystem> table_systems(const fs::path& dir, int cells) {
  write_lj_tables(dir / "lj.table", {{"LJ", 1, 1}}, 1000, 0.8, 2.5);
  write_lj_tables(dir / "three.table",
                  {{"AA", 1.0, 1.0},
                   {"AB", 0.9, 1.05},
                   {"AC", 0.5, 0.95},
                   {"BB", 0.8, 1.1},
                   {"BC", 1.02, 1.0},
                   {"CC", 1.3, 0.9}},
                  600, 0.75, 2.5);
  std::vector<TableSystem> out;
  for (const char* style : {"linear", "spline"}) {
    md::CustomForceFieldSpec spec;
    spec.kind = md::CustomForceFieldSpec::Kind::table;
    spec.cutoff = 0;
    spec.table_file = (dir / "lj.table").string();
    spec.table_keyword = "LJ";
    spec.table_style = style;
    spec.table_n = std::string(style) == "linear" ? 1000 : 600;  // the file's grid, or not
    md::System s = test::jittered_lattice("fcc", 0.8442, cells, 0.1, 3, 1.0);
    s.ff.custom = md::build_custom_pairs(spec, 1);
    out.push_back({std::string("lj ") + style, s});
  }
  for (const char* style : {"linear", "spline"}) {
    md::System s = test::jittered_lattice("fcc", 0.8442, cells, 0.1, 9, 1.0);
    test::make_three_types(s, 4);
    md::CustomForceFieldSpec spec;
    spec.kind = md::CustomForceFieldSpec::Kind::table;
    spec.cutoff = 0;
    spec.table_file = (dir / "three.table").string();
    spec.table_style = style;
    spec.table_n = 700;
    const char* keywords[3][3] = {{"AA", "AB", "AC"}, {"AB", "BB", "BC"}, {"AC", "BC", "CC"}};
    for (int i = 1; i <= 3; ++i)
      for (int j = i; j <= 3; ++j) {
        md::CustomForceFieldSpec::Pair p;
        p.i = i, p.j = j, p.table_keyword = keywords[i - 1][j - 1];
        if (i == 1 && j == 3) p.cutoff = 2.2;
        spec.pairs.push_back(p);
      }
    s.ff.custom = md::build_custom_pairs(spec, 3);
    out.push_back({std::string("three types ") + style, s});
  }
  return out;
}

// Tables on the GPU path: the interpolation and the table data (one record per bin, exact
// hexadecimal literals) in the CustomPair source; it compiles with NVRTC for sm_90 in single,
// mixed and double (no device needed; skipped without libnvrtc).
TEST(MdCustom, CudaSourceOfTablesCompilesWithNvrtc) {
  const fs::path dir = fs::temp_directory_path() / ("pw_table_src_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  md::CustomMdVariant single;
  single.fast_math = true;
  md::CustomMdVariant mixed = single;
  mixed.r = "double", mixed.a = "double", mixed.fixed = true, mixed.fast_math = false;
  md::CustomMdVariant dbl;
  dbl.r = dbl.p = dbl.a = "double", dbl.min_blocks = 1, dbl.one_type = false;
  md::CustomMdVariant mixed3 = mixed;
  mixed3.one_type = false;
  const auto systems = table_systems(dir, 2);
  for (const auto& [name, s] : systems) {
    const std::string src = md::md_custom_pair_source(*s.ff.custom, single);
    EXPECT_NE(src.find("__device__ __align__(32) const float" +
                       std::string(name.find("linear") != std::string::npos ? "2" : "4") +
                       " pw_pair_0_f["),
              std::string::npos)
        << name;
    EXPECT_NE(src.find("__ldg(pw_pair_0_f + "), std::string::npos) << name;
    // The first bin's E (linear: E at r = 0.8, the file's own point: no re-spline) exactly.
    if (name == "lj linear") {
      const double r = std::sqrt(0.8 * 0.8), s6 = std::pow(1 / r, 6);  // as written
      std::ostringstream e0;
      e0 << std::hexfloat << double(float(4 * (s6 * s6 - s6))) << "f";
      EXPECT_NE(src.find("{" + e0.str() + ", "), std::string::npos) << e0.str();
    }
    // Six type pairs, six tables; the symmetric cases share them.
    if (name == "three types linear") {
      EXPECT_NE(src.find("pw_pair_5_f["), std::string::npos);
      EXPECT_EQ(src.find("pw_pair_6_f["), std::string::npos);
    }
    // Three types on one table (file, section and cutoff the same): one table in the source.
    if (name == "lj linear") {
      md::CustomForceFieldSpec spec;
      spec.kind = md::CustomForceFieldSpec::Kind::table;
      spec.cutoff = 0;
      spec.table_file = (dir / "lj.table").string();
      spec.table_keyword = "LJ";
      const std::string one = md::md_custom_pair_source(*md::build_custom_pairs(spec, 3), single);
      EXPECT_NE(one.find("pw_pair_0_f["), std::string::npos);
      EXPECT_EQ(one.find("pw_pair_1_f["), std::string::npos);
      EXPECT_NE(one.find("case 8:"), std::string::npos);
    }
    EXPECT_EQ(md::md_custom_pair_source(*s.ff.custom, dbl).find("float"), std::string::npos)
        << name << ": double tables";
  }
  if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty()) {
    fs::remove_all(dir);
    GTEST_SKIP() << why;
  }
  for (const auto& [pairs, v] : {std::pair{systems[0].system.ff.custom, single},
                                 {systems[1].system.ff.custom, mixed},
                                 {systems[3].system.ff.custom, dbl},
                                 {systems[2].system.ff.custom, mixed3}}) {
    auto program = md::md_custom_program(*pairs, v, 90);
    program.use_cache = false;
    const formula::CompiledProgram k = formula::compile_cuda_program(program);
    EXPECT_GT(k.cubin.size(), 1000u);
    ASSERT_EQ(k.lowered.size(), 2u);
    std::printf("NVRTC compile of the md table kernels (%s, %s): %.3f s\n",
                pairs->at(1, 1).describe().c_str(), v.key().c_str(), k.seconds);
  }
  fs::remove_all(dir);
}

// On the GPU (skipped without a device): examples/custom-lj.toml against examples/lj-melt.toml,
// both on cuda in double (12³ cells, 100 steps), to 1e-12 relative.
bool cuda_device(std::string* why) {
  return !cuda_devices(why).empty();
}

TEST(MdCustomCuda, CustomLjExampleMatchesLjMeltThermo) {
  if (std::string why; !cuda_device(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  expect_custom_lj_example_matches_lj_melt(BackendKind::cuda, "cuda");
}

// Every style and the three-type combining case on cuda, each precision, against the double
// reference at the md conformance tolerances (1e-12 double, 1e-5 FP32 pair terms; 10x after
// steps, as test_md_forces).
TEST(MdCustomCuda, MatchesReferenceForEveryStyleAndPrecision) {
  if (std::string why; !cuda_device(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  std::vector<std::pair<std::string, md::System>> systems;
  for (const auto& st : styles()) systems.emplace_back(st.name, system_with(st, 5));
  {
    md::System s = test::jittered_lattice("fcc", 0.8442, 5, 0.1, 9, 1.0);
    test::make_three_types(s, 4);
    md::CustomForceFieldSpec spec;
    spec.kind = md::CustomForceFieldSpec::Kind::formula;
    spec.truncation = formula::Truncation::shifted_force;
    spec.energy = {"4*eps*((sig/r)^12 - (sig/r)^6)", "[test] energy", "test"};
    spec.type_params[1] = {{"eps", 1.0}, {"sig", 1.0}};
    spec.type_params[2] = {{"eps", 0.8}, {"sig", 1.1}};
    spec.type_params[3] = {{"eps", 1.3}, {"sig", 0.9}};
    spec.combine["eps"] = {"sqrt(eps1*eps2)", "[test] combine.eps", "test"};
    spec.combine["sig"] = {"(sig1 + sig2)/2", "[test] combine.sig", "test"};
    md::CustomForceFieldSpec::Pair p13;
    p13.i = 1, p13.j = 3, p13.cutoff = 2.2;
    p13.energy = {"4*e13*(s6*s6 - s6); s6 = (0.95/r)^6", "[test] pair_1_3.energy", "test"};
    p13.params = {{"e13", 0.5}};
    spec.pairs.push_back(p13);
    s.ff.custom = md::build_custom_pairs(spec, 3);
    systems.emplace_back("three types", s);
  }
  for (const auto& [name, s] : systems)
    for (int steps : {0, 5}) {
      const Forces ref = run(BackendKind::reference, Precision::double_, s, steps);
      for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
        const Forces got = run(BackendKind::cuda, p, s, steps);
        const double tol = (p == Precision::double_ ? 1e-12 : 1e-5) *
                           (steps > 0 && p != Precision::double_ ? 10 : 1);
        const double fe = force_error(got.f, ref.f);
        EXPECT_LT(fe, tol) << name << " " << to_string(p) << " step " << steps;
        EXPECT_NEAR(got.thermo.potential, ref.thermo.potential,
                    tol * std::abs(ref.thermo.potential))
            << name << " " << to_string(p) << " step " << steps;
        // The virial Σ r·F cancels (repulsive against attractive pairs: W = -320 in the
        // three-type liquid, printed below with U), so its FP32 rounding (float positions, 5e-7
        // absolute) is bounded against the scale of its terms, |W| + |U|, as tolerances.hpp
        // floors cancelling sums (H200, three types, single: 1.1e-5 of |W|, 1.5e-6 of |W| + |U|).
        const double w_scale = std::abs(ref.thermo.virial) + std::abs(ref.thermo.potential);
        EXPECT_NEAR(got.thermo.virial, ref.thermo.virial, tol * w_scale)
            << name << " " << to_string(p) << " step " << steps;
        if (steps == 0)
          std::printf("md custom %s, cuda %s vs reference: force error %.2e, U %.2e, W %.2e\n",
                      name.c_str(), std::string(to_string(p)).c_str(), fe,
                      std::abs(got.thermo.potential - ref.thermo.potential) /
                          std::abs(ref.thermo.potential),
                      std::abs(got.thermo.virial - ref.thermo.virial) / w_scale);
        if (steps == 0 && p == Precision::double_)
          std::printf("md custom %s: U = %.6g, W = %.6g (reference)\n", name.c_str(),
                      ref.thermo.potential, ref.thermo.virial);
      }
    }
}

// Tables on cuda (linear and spline, one type and three types with a table per type pair), each
// precision, against the reference backend running the same tables: forces, U and W at the
// tolerances of tests/tolerances.hpp, and after 5 steps (10x in FP32, as above) with the kinetic
// energy too.
TEST(MdCustomCuda, TablesMatchReferenceInEveryPrecision) {
  if (std::string why; !cuda_device(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const fs::path dir = fs::temp_directory_path() / ("pw_table_cuda_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& [name, s] : table_systems(dir, 5))
    for (int steps : {0, 5}) {
      const Forces ref = run(BackendKind::reference, Precision::double_, s, steps);
      for (Precision p : {Precision::double_, Precision::mixed, Precision::single}) {
        const Forces got = run(BackendKind::cuda, p, s, steps);
        const double tol =
            test::force_tolerance(p) * (steps > 0 && p != Precision::double_ ? 10 : 1);
        const double fe = force_error(got.f, ref.f);
        const std::string what =
            name + " " + std::string(to_string(p)) + " step " + std::to_string(steps);
        EXPECT_LT(fe, tol) << what;
        EXPECT_NEAR(got.thermo.potential, ref.thermo.potential,
                    tol * std::abs(ref.thermo.potential))
            << what;
        const double w_scale = std::abs(ref.thermo.virial) + std::abs(ref.thermo.potential);
        EXPECT_NEAR(got.thermo.virial, ref.thermo.virial, tol * w_scale) << what;
        if (steps > 0) {
          EXPECT_NEAR(got.thermo.kinetic, ref.thermo.kinetic, tol * std::abs(ref.thermo.kinetic))
              << what;
        }
        std::printf(
            "md table %s, cuda %s vs reference, step %d: force error %.2e, U %.2e\n", name.c_str(),
            std::string(to_string(p)).c_str(), steps, fe,
            std::abs(got.thermo.potential - ref.thermo.potential) / std::abs(ref.thermo.potential));
      }
    }
  fs::remove_all(dir);
}

// A formula on cuda where libnvrtc cannot be loaded (PAIRWISE_NVRTC names a missing file; an
// empty kernel cache): a clear error (the CLI exits 1).
class MdCustomCudaCli : public test::CliTest {};

TEST_F(MdCustomCudaCli, MissingNvrtcIsAClearError) {
  if (std::string why; !cuda_device(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  std::ifstream in(examples() / "custom-lj.toml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("20 20 20"), 8, "4 4 4");
  text.replace(text.find("../out/custom-lj"), 16, "out");
  write("lj.toml", text);
  setenv("PAIRWISE_NVRTC", "/nonexistent/libnvrtc.so", 1);
  setenv("PAIRWISE_KERNEL_CACHE", (dir_ / "kernels").c_str(), 1);
  const auto r = pairwise("run lj.toml --backend cuda");
  unsetenv("PAIRWISE_NVRTC");
  unsetenv("PAIRWISE_KERNEL_CACHE");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("error: libnvrtc"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PAIRWISE_NVRTC"), std::string::npos) << r.output;
}

}  // namespace
