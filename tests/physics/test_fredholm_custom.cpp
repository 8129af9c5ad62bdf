// Fredholm custom kernels (issue 13): K(t, s) = exp(t s) with h(t) from formulas gives the built-in
// exp_ts problem's solution (exact f = e^t) on reference and cpu; a 1-D Yukawa kernel
// e^{−κ|t−s|}/(2κ) on cpu (double and mixed) against the reference; the compiled program against
// the graph walk; formula errors name the column and the key.
#include <gtest/gtest.h>

#include <cmath>

#include "core/config.hpp"
#include "fredholm/run.hpp"
#include "fredholm/solve.hpp"

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

}  // namespace
