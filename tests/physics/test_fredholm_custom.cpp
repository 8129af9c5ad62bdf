// Fredholm custom kernels (issue 13): K(t, s) = exp(t s) with h(t) from formulas gives the built-in
// exp_ts problem's solution (exact f = e^t) on reference and cpu; a 1-D Yukawa kernel
// e^{−κ|t−s|}/(2κ) on cpu (double and mixed) against the reference; the compiled program against
// the graph walk; formula errors name the column and the key. Complex kernels (two formulas, real
// and imaginary part): the 3-D Helmholtz kernel e^{ikr}/r written as formulas against the built-in
// helmholtz matvec (1e-12, double), and the separable e^{i(t−s)} with h = e^{it} against its exact
// solution f = e^{it}/(1 − λ).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <tuple>

#include "core/config.hpp"
#include "engine/formula/nvrtc_loader.hpp"
#include "fredholm/cuda_formula_matvec.hpp"
#include "fredholm/run.hpp"
#include "fredholm/solve.hpp"
#include "pairwise/backend.hpp"
#include "tolerances.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::fredholm;

std::vector<double> solve_with(const Spec& spec, BackendKind b, Precision p) {
  const Nodes nodes = make_nodes(spec);
  auto mv = make_matvec<double>({b, p, 0}, spec, nodes);
  SolveOptions o;
  return solve<double>(spec, nodes, *mv, SolverKind::gmres, o).f;
}

Spec parse_spec(const std::string& equation) {
  auto config = config::Config::parse(
      "workload = \"fredholm\"\n[domain]\nn = 16\n[equation]\n" + equation, "k.toml");
  return read_run_config(config).spec;
}

TEST(FredholmCustom, ExpTsFormulaMatchesBuiltInAndExact) {
  const Spec custom = parse_spec(
      "kernel = \"custom\"\nkernel_formula = \"exp(t*s)\"\n"
      "rhs_formula = \"exp(t) - (exp(t + 1) - 1)/(t + 1)\"\n");
  ASSERT_TRUE(custom.custom);
  Spec builtin = custom;
  builtin.custom.reset();
  builtin.kernel = KernelKind::exp_ts;
  builtin.rhs = RhsKind::exp_ts_smooth;
  const Nodes nodes = make_nodes(custom);
  const auto ref = solve_with(builtin, BackendKind::reference, Precision::double_);
  for (BackendKind b : {BackendKind::reference, BackendKind::cpu}) {
    const auto f = solve_with(custom, b, Precision::double_);
    for (std::size_t i = 0; i < f.size(); ++i) {
      EXPECT_NEAR(f[i], ref[i], 1e-12 * std::abs(ref[i]));
      EXPECT_NEAR(f[i], std::exp(nodes.p[i].x), 1e-9);
    }
  }
}

TEST(FredholmCustom, YukawaKernelCpuMatchesReference) {
  const Spec spec = parse_spec(
      "kernel = \"custom\"\nkernel_formula = \"exp(-kappa*abs(t - s))/(2*kappa); kappa = 1.5\"\n"
      "rhs = \"one\"\nlambda = 0.8\n");
  const Nodes nodes = make_nodes(spec);
  for (std::size_t i = 0; i < nodes.size(); i += 5)
    for (std::size_t j = 0; j < nodes.size(); j += 3)
      EXPECT_DOUBLE_EQ(spec.custom->kernel(nodes.p[i].x, 0, 0, nodes.p[j].x, 0, 0),
                       spec.custom->kernel_reference(nodes.p[i], nodes.p[j]));
  const auto ref = solve_with(spec, BackendKind::reference, Precision::double_);
  const auto cpu = solve_with(spec, BackendKind::cpu, Precision::double_);
  const auto mixed = solve_with(spec, BackendKind::cpu, Precision::mixed);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    EXPECT_NEAR(cpu[i], ref[i], 1e-12 * std::abs(ref[i]));
    EXPECT_NEAR(mixed[i], ref[i], 1e-5 * std::abs(ref[i]));
  }
}

template <class S>
std::vector<S> product(const Spec& spec, BackendKind b, Precision p, const std::vector<S>& g) {
  const Nodes nodes = make_nodes(spec);
  auto mv = make_matvec<S>({b, p, 0}, spec, nodes);
  std::vector<S> y(g.size());
  mv->apply(g, y);
  return y;
}

using C = std::complex<double>;

std::vector<C> test_vector(std::size_t n) {
  std::vector<C> g(n);
  for (std::size_t j = 0; j < n; ++j)
    g[j] = C(std::cos(0.7 * double(j)), std::sin(0.3 * double(j)));
  return g;
}

Spec helmholtz_formula_spec(const std::string& extra = {}) {
  auto config = config::Config::parse(
      "workload = \"fredholm\"\n[domain]\ndim = 3\nn = 6\n[equation]\nkernel = \"custom\"\n"
      "kernel_formula_real = \"select(r, cos(k*r)/r, 0); k = 2.5\"\n"
      "kernel_formula_imag = \"select(r, sin(k*r)/r, 0); k = 2.5\"\n"
      "rhs_formula_real = \"cos(2.5*tz)\"\nrhs_formula_imag = \"sin(2.5*tz)\"\n" +
          extra,
      "h.toml");
  return read_run_config(config).spec;
}

Spec builtin_helmholtz(const Spec& custom) {
  Spec builtin = custom;
  builtin.custom.reset();
  builtin.kernel = KernelKind::helmholtz;
  builtin.params.k = 2.5;
  builtin.rhs = RhsKind::plane_wave;
  return builtin;
}

TEST(FredholmCustom, HelmholtzFormulaMatchesBuiltIn) {
  const Spec custom = helmholtz_formula_spec();
  ASSERT_TRUE(custom.custom && custom.custom->is_complex());
  EXPECT_TRUE(is_complex(custom));
  const Spec builtin = builtin_helmholtz(custom);
  const Nodes nodes = make_nodes(custom);
  for (std::size_t i = 0; i < nodes.size(); i += 7) {  // h(t) = e^{ik z}, as plane_wave
    EXPECT_NEAR(std::abs(rhs_value<C>(custom, nodes.p[i]) - rhs_value<C>(builtin, nodes.p[i])), 0.0,
                1e-15);
    for (std::size_t j = 0; j < nodes.size(); j += 5)
      EXPECT_NEAR(std::abs(custom.custom->complex_kernel_reference(nodes.p[i], nodes.p[j]) -
                           kernel_value<C>(ph::Helmholtz{2.5}, nodes.p[i], nodes.p[j])),
                  0.0, 1e-12);
  }
  const auto g = test_vector(nodes.size());
  const auto ref = product<C>(builtin, BackendKind::reference, Precision::double_, g);
  double scale = 0;
  for (const C& v : ref) scale = std::max(scale, std::abs(v));
  for (BackendKind b : {BackendKind::reference, BackendKind::cpu}) {
    const auto y = product<C>(custom, b, Precision::double_, g);
    for (std::size_t i = 0; i < y.size(); ++i) EXPECT_LE(std::abs(y[i] - ref[i]), 1e-12 * scale);
  }
  for (Precision p : {Precision::mixed, Precision::single}) {
    const auto y = product<C>(custom, BackendKind::cpu, p, g);
    for (std::size_t i = 0; i < y.size(); ++i)
      EXPECT_LE(std::abs(y[i] - ref[i]), 1e-5 * scale) << to_string(p);
  }
}

TEST(FredholmCustom, ComplexSeparableKernelSolvesExactly) {
  auto config = config::Config::parse(
      "workload = \"fredholm\"\n[domain]\nn = 12\n[equation]\nkernel = \"custom\"\n"
      "kernel_formula_real = \"cos(t - s)\"\nkernel_formula_imag = \"sin(t - s)\"\n"
      "rhs_formula_real = \"cos(t)\"\nrhs_formula_imag = \"sin(t)\"\nlambda = 0.5\n",
      "c.toml");
  const Spec spec = read_run_config(config).spec;
  const Nodes nodes = make_nodes(spec);
  for (auto [b, p, tol] : {std::tuple{BackendKind::reference, Precision::double_, 1e-12},
                           std::tuple{BackendKind::cpu, Precision::double_, 1e-12},
                           std::tuple{BackendKind::cpu, Precision::mixed, 1e-6}}) {
    auto mv = make_matvec<C>({b, p, 0}, spec, nodes);
    SolveOptions o;
    o.tolerance = 1e-14;
    const auto f = solve<C>(spec, nodes, *mv, SolverKind::gmres, o).f;
    for (std::size_t i = 0; i < f.size(); ++i) {  // f = e^{it} / (1 − λ)
      const C exact = std::exp(C(0, nodes.p[i].x)) / 0.5;
      EXPECT_LE(std::abs(f[i] - exact), tol) << to_string(b) << " " << to_string(p);
    }
  }
}

// examples/fredholm-scattering-1d.toml: ψ inside a square well U = −u0 on [0, L] from matching
// A e^{iqx} + B e^{−iqx} to e^{ikx} + R e^{−ikx} at 0 and T e^{ikx} at L.
C well_wave(double k, double u0, double length, double x) {
  const double q = std::sqrt(k * k + u0);
  const C i(0, 1);
  const C tau = 2.0 / ((1 + k / q) * (1 + q / k) / 2.0 * std::exp(-i * q * length) +
                       (1 - k / q) * (1 - q / k) / 2.0 * std::exp(i * q * length));
  const C a = tau * (1 + k / q) / 2.0 * std::exp(-i * q * length);
  const C b = tau * (1 - k / q) / 2.0 * std::exp(i * q * length);
  return a * std::exp(i * q * x) + b * std::exp(-i * q * x);
}

TEST(FredholmCustom, ScatteringExampleMatchesMatching) {
  auto config = config::Config::load(std::string(PAIRWISE_TEST_DATA) +
                                     "/../../examples/fredholm-scattering-1d.toml");
  const RunConfig rc = read_run_config(config);
  ASSERT_TRUE(is_complex(rc.spec));
  const Nodes nodes = make_nodes(rc.spec);
  auto mv = make_matvec<C>({BackendKind::cpu, Precision::double_, 0}, rc.spec, nodes);
  SolveOptions o;
  o.tolerance = 1e-13;
  const auto f = solve<C>(rc.spec, nodes, *mv, SolverKind::gmres, o).f;
  double worst = 0;
  for (std::size_t i = 0; i < f.size(); ++i)
    worst = std::max(worst, std::abs(f[i] - well_wave(2.0, 4.0, 1.0, nodes.p[i].x)));
  EXPECT_LT(worst, 2e-4);
  EXPECT_GT(worst, 1e-9);  // the kink: algebraic convergence (a check that the test can see it)
  std::printf("max |psi - exact| at N = %lld: %.3g\n", rc.spec.n, worst);
}

// The cuda backend's program (the engine's all-pairs kernel with a functor generated from the
// formulas) compiles with NVRTC for sm_90 without a GPU (skipped without libnvrtc).
TEST(FredholmCustom, GeneratedCudaProgramCompiles) {
  const Spec complex = helmholtz_formula_spec();
  const Spec real = parse_spec(
      "kernel = \"custom\"\nkernel_formula = \"exp(-kappa*abs(t - s))/(2*kappa); kappa = 1.5\"\n");
  FormulaMatvecVariant mixed;
  mixed.mixed = true, mixed.dim = 3;
  FormulaMatvecVariant dbl;
  dbl.f = "double";
  const std::string src = formula_matvec_source(*complex.custom, mixed);
  EXPECT_NE(src.find("static constexpr bool kComplex = true"), std::string::npos) << src;
  EXPECT_NE(src.find("cos("), std::string::npos) << src;
  EXPECT_EQ(formula_matvec_kernel_name(mixed),
            "&pairwise::engine::all_pairs_kernel<pairwise::fredholm::device::MatvecPolicy<"
            "pairwise::fredholm::device::FormulaKernel, float, true, 3>, 4, 1>");
  if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty())
    GTEST_SKIP() << why;
  for (const auto& [spec, v] : {std::pair{&complex, mixed}, {&real, dbl}}) {
    auto program = formula_matvec_program(*spec->custom, v, 90);
    program.use_cache = false;
    const formula::CompiledProgram k = formula::compile_cuda_program(program);
    EXPECT_GT(k.cubin.size(), 1000u);
    ASSERT_EQ(k.lowered.size(), 1u);
    EXPECT_NE(k.lowered[0].find("all_pairs_kernel"), std::string::npos) << k.lowered[0];
    std::printf("NVRTC compile of a fredholm formula kernel (%s): %.3f s\n", v.f.c_str(),
                k.seconds);
  }
}

TEST(FredholmCustom, ComplexKeysAreChecked) {
  for (const char* bad :
       {"kernel = \"custom\"\nkernel_formula_real = \"t\"\n",  // no imaginary part
        "kernel = \"custom\"\nkernel_formula = \"t\"\nkernel_formula_imag = \"s\"\n",
        "kernel = \"custom\"\nkernel_formula = \"t\"\nrhs_formula_imag = \"t\"\n",
        "kernel = \"custom\"\nkernel_formula_real = \"t\"\nkernel_formula_imag = \"s\"\n"
        "rhs_formula = \"1\"\nrhs_formula_real = \"1\"\n",
        "kernel = \"exp_ts\"\nkernel_formula_imag = \"s\"\n"})
    EXPECT_THROW(parse_spec(bad), Error) << bad;
  try {
    parse_spec(
        "kernel = \"custom\"\nkernel_formula_real = \"t\"\nkernel_formula_imag = \"sin(tt)\"\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown name 'tt' at column 5 in [equation] kernel_formula_imag, did you mean "
                 "'t'?, k.toml:7");
  }
}

TEST(FredholmCustom, ErrorsNameColumnAndKey) {
  try {
    parse_spec("kernel = \"custom\"\nkernel_formula = \"exp(t*ss)\"\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown name 'ss' at column 7 in [equation] kernel_formula, did you mean 's'?, "
                 "k.toml:6");
  }
  EXPECT_THROW(parse_spec("kernel = \"exp_ts\"\nkernel_formula = \"t\"\n"), Error);
  EXPECT_THROW(parse_spec("kernel = \"custom\"\n"), Error);
}

// On the GPU (skipped without a device): the NVRTC-compiled matvec of a real (Yukawa, 1-D) and a
// complex (helmholtz as formulas, 3-D) kernel against the reference, at the tolerances of
// tests/tolerances.hpp, relative to the largest |y|.
bool have_gpu(std::string& why) {
  return !cuda_devices(&why).empty();
}

template <class S>
double max_error(const std::vector<S>& y, const std::vector<S>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.size(); ++i)
    num = std::max(num, std::abs(y[i] - ref[i])), den = std::max(den, std::abs(ref[i]));
  return num / den;
}

TEST(FredholmCustomCuda, FormulaMatvecMatchesTheReference) {
  std::string why;
  if (!have_gpu(why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  auto config = config::Config::parse(
      "workload = \"fredholm\"\n[domain]\nn = 3000\na = -1.0\nb = 2.0\n[equation]\n"
      "kernel = \"custom\"\nkernel_formula = \"exp(-kappa*abs(t - s))/(2*kappa); kappa = 1.5\"\n",
      "y.toml");
  const Spec yukawa = read_run_config(config).spec;
  std::vector<double> g(yukawa.total_nodes());
  for (std::size_t j = 0; j < g.size(); ++j) g[j] = std::cos(0.01 * double(j));
  const auto ref = product<double>(yukawa, BackendKind::reference, Precision::double_, g);
  const Spec helm = helmholtz_formula_spec();
  const auto gc = test_vector(helm.total_nodes());
  const auto ref_c =
      product<C>(builtin_helmholtz(helm), BackendKind::reference, Precision::double_, gc);
  for (Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
    const double e = max_error(product<double>(yukawa, BackendKind::cuda, p, g), ref);
    EXPECT_LT(e, test::force_tolerance(p)) << "yukawa " << to_string(p);
    const double ec = max_error(product<C>(helm, BackendKind::cuda, p, gc), ref_c);
    const double eb =  // the built-in kernel on cuda (the policy header it shares with formulas)
        max_error(product<C>(builtin_helmholtz(helm), BackendKind::cuda, p, gc), ref_c);
    EXPECT_LT(eb, test::force_tolerance(p)) << "helmholtz built-in " << to_string(p);
    EXPECT_LT(ec, test::force_tolerance(p)) << "helmholtz formula " << to_string(p);
    std::printf("cuda formula matvec, %s: yukawa 1-D max error %.3g, helmholtz 3-D %.3g\n",
                std::string(to_string(p)).c_str(), e, ec);
  }
}

// Speed of formula kernels against built-in kernels of the same or similar cost (no bound: the
// figures are printed as JSON lines "BENCHJSON {...}" for bench/results).
TEST(FredholmCustomCuda, FormulaMatvecSpeed) {
  std::string why;
  if (!have_gpu(why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  auto time = [](const Spec& spec, Precision p, const std::string& name,
                 const std::string& kernel) {
    const Nodes nodes = make_nodes(spec);
    double seconds = 0, pairs = double(nodes.size()) * double(nodes.size());
    std::string device;
    if (is_complex(spec)) {
      auto mv = make_matvec<C>({BackendKind::cuda, p, 0}, spec, nodes);
      seconds = mv->time_apply(test_vector(nodes.size()), 10);
      device = mv->device_name();
    } else {
      auto mv = make_matvec<double>({BackendKind::cuda, p, 0}, spec, nodes);
      seconds = mv->time_apply(std::vector<double>(nodes.size(), 1.0), 10);
      device = mv->device_name();
    }
    std::printf(
        "BENCHJSON {\"suite\": \"fredholm\", \"case\": \"%s\", \"backend\": \"cuda\", "
        "\"precision\": \"%s\", \"device\": \"%s\", \"n\": %zu, \"params\": "
        "{\"kernel\": \"%s\", \"dim\": %d, \"statistic\": \"median of 10\"}, "
        "\"metric\": \"kernel evaluations/s\", \"value\": %.6g, \"unit\": \"1/s\", "
        "\"time_s\": %.6g}\n",
        name.c_str(), std::string(to_string(p)).c_str(), device.c_str(), nodes.size(),
        kernel.c_str(), spec.dim, pairs / seconds, seconds);
    return pairs / seconds;
  };
  const std::string head = "workload = \"fredholm\"\n[domain]\nn = 262144\n[equation]\n";
  auto parse = [](const std::string& text) {
    auto config = config::Config::parse(text, "b.toml");
    return read_run_config(config).spec;
  };
  const Spec gauss_builtin = parse(head + "kernel = \"gaussian\"\nsigma = 1.0\n");
  const Spec gauss_formula =
      parse(head + "kernel = \"custom\"\nkernel_formula = \"exp(-(t - s)^2)\"\n");
  const Spec yukawa = parse(
      head +
      "kernel = \"custom\"\nkernel_formula = \"exp(-kappa*abs(t - s))/(2*kappa); kappa = 1.5\"\n");
  const std::string head3 = "workload = \"fredholm\"\n[domain]\ndim = 3\nn = 64\n[equation]\n";
  const Spec helm_builtin = parse(head3 + "kernel = \"helmholtz\"\nk = 2.5\n");
  const Spec helm_formula = parse(head3 +
                                  "kernel = \"custom\"\n"
                                  "kernel_formula_real = \"select(r, cos(k*r)/r, 0); k = 2.5\"\n"
                                  "kernel_formula_imag = \"select(r, sin(k*r)/r, 0); k = 2.5\"\n");
  for (Precision p : {Precision::single, Precision::double_}) {
    const double gb = time(gauss_builtin, p, "matvec-gaussian-builtin", "gaussian (built-in)");
    const double gf = time(gauss_formula, p, "matvec-gaussian-formula", "exp(-(t - s)^2)");
    const double yf = time(yukawa, p, "matvec-yukawa-formula", "exp(-1.5|t-s|)/3");
    const double hb = time(helm_builtin, p, "matvec-helmholtz-builtin", "helmholtz (built-in)");
    const double hf = time(helm_formula, p, "matvec-helmholtz-formula", "cos(kr)/r + i sin(kr)/r");
    std::printf("%s: formula/built-in gaussian %.3f, yukawa/gaussian %.3f, helmholtz %.3f\n",
                std::string(to_string(p)).c_str(), gf / gb, yf / gb, hf / hb);
    EXPECT_GT(gf, 0.0);
  }
}

}  // namespace
