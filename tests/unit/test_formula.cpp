// The formula engine (issue 13): parsing with column-accurate errors and did-you-mean, intermediate
// definitions, constant folding, symbolic derivatives against central differences, and the
// compiled batch program against the double graph walk.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "engine/formula/pair_potential.hpp"
#include "engine/formula/parser.hpp"
#include "engine/formula/program.hpp"

namespace {

using namespace pairwise::formula;

double eval1(const std::string& text, double x, std::map<std::string, double> params = {}) {
  Graph g;
  Scope s{{"x"}, std::move(params)};
  return g.evaluate(parse(g, text, s), {x});
}

TEST(Formula, ArithmeticPrecedenceAndFunctions) {
  EXPECT_DOUBLE_EQ(eval1("1 + 2*3 - 4/2", 0), 5.0);
  EXPECT_DOUBLE_EQ(eval1("2^3^2", 0), 512.0);  // right associative
  EXPECT_DOUBLE_EQ(eval1("-x^2", 3), -9.0);
  EXPECT_DOUBLE_EQ(eval1("(-x)^2", 3), 9.0);
  EXPECT_DOUBLE_EQ(eval1("sqrt(x) + exp(0) + log(1) + abs(-2)", 4), 5.0);
  EXPECT_DOUBLE_EQ(eval1("min(x, 2) + max(x, 2)", 5), 7.0);
  EXPECT_DOUBLE_EQ(eval1("step(x - 1) + step(-1)", 1), 1.0);
  EXPECT_DOUBLE_EQ(eval1("select(x - 1, 10, 20)", 1), 20.0);
  EXPECT_DOUBLE_EQ(eval1("select(x, 10, 20)", 1), 10.0);
  EXPECT_DOUBLE_EQ(eval1("erf(x) + erfc(x)", 0.3), 1.0);
  EXPECT_DOUBLE_EQ(eval1("pow(x, 0.5)", 9), 3.0);
  EXPECT_DOUBLE_EQ(eval1("x^-2", 2), 0.25);
  EXPECT_NEAR(eval1("cos(pi) + sin(0)", 0), -1.0, 1e-15);
  EXPECT_DOUBLE_EQ(eval1("1.5e1 + .5", 0), 15.5);
}

TEST(Formula, DefinitionsInAnyOrderAndParameters) {
  EXPECT_DOUBLE_EQ(
      eval1("E = 4*eps*(s6^2 - s6); s6 = (sigma/x)^6", 1.0, {{"eps", 2}, {"sigma", 1}}), 0.0);
  EXPECT_DOUBLE_EQ(eval1("a + b; a = 2*b; b = x + 1", 1.0), 6.0);
}

FormulaError error_of(const std::string& text, std::map<std::string, double> params = {}) {
  try {
    Graph g;
    parse(g, text, Scope{{"r"}, std::move(params)});
  } catch (const FormulaError& e) {
    return e;
  }
  return FormulaError("no error", -1);
}

TEST(Formula, ErrorsNameTheColumn) {
  auto e = error_of("4*epsilon*((sigm/r)^12 - (sigma/r)^6)", {{"epsilon", 1}, {"sigma", 1}});
  EXPECT_EQ(e.message(), "unknown name 'sigm'");
  EXPECT_EQ(e.column(), 13);
  EXPECT_EQ(e.suggestion(), "sigma");
  EXPECT_EQ(e.describe("[force_field] pair_1_1.energy"),
            "unknown name 'sigm' at column 13 in [force_field] pair_1_1.energy, did you mean "
            "'sigma'?");
  e = error_of("4*(r - 1");
  EXPECT_EQ(e.column(), 9);
  EXPECT_NE(e.message().find("syntax error: expected ')'"), std::string::npos) << e.message();
  e = error_of("r ** 2");
  EXPECT_EQ(e.column(), 4);
  e = error_of("expp(r)");
  EXPECT_EQ(e.column(), 1);
  EXPECT_EQ(e.suggestion(), "exp");
  e = error_of("1/(s - 1)", {{"s", 1}});
  EXPECT_EQ(e.message(), "division by zero");
  EXPECT_EQ(e.column(), 2);
  e = error_of("a; a = b; b = a");
  EXPECT_NE(e.message().find("in terms of itself"), std::string::npos);
  e = error_of("r $ 2");
  EXPECT_EQ(e.column(), 3);
  e = error_of("min(r)");
  EXPECT_NE(e.message().find("min takes 2 arguments"), std::string::npos);
}

TEST(Formula, ConstantFoldingAndSharedSubexpressions) {
  Graph g;
  const NodeId n = parse(g, "2*3 + 0*r + 1*r", Scope{{"r"}, {}});
  EXPECT_EQ(g.to_string(n, {"r"}), "(r + 6)");
  Graph h;
  const NodeId m = parse(h, "(r+1)^2 + (r+1)^2", Scope{{"r"}, {}});
  Program p(h, {m});
  EXPECT_LE(p.size(), 4u);  // r+1 once, squared once, doubled
}

// Symbolic derivatives against central differences of the reference evaluation, for the
// potentials of the issue and every function of the language.
TEST(Formula, DerivativesMatchCentralDifferences) {
  const std::vector<std::string> formulas = {
      "4*eps*((sigma/x)^12 - (sigma/x)^6)",
      "D*(exp(-2*a*(x - r0)) - 2*exp(-a*(x - r0)))",
      "A*exp(-x/rho) - C/x^6",
      "q*exp(-kappa*x)/x",
      "4*eps*(1/(alpha + (x/sigma)^6)^2 - 1/(alpha + (x/sigma)^6))",
      "eps*exp(-(x/sigma)^2)",
      "select(step(2^(1/6)*sigma - x), 4*eps*((sigma/x)^12 - (sigma/x)^6) + eps, 0)",
      "(n/(n-m))*(n/m)^(m/(n-m))*eps*((sigma/x)^n - (sigma/x)^m)",
      "erfc(x)/x + erf(0.5*x) + sin(x)*cos(x) + tan(0.1*x) + sinh(0.2*x) + cosh(0.1*x)",
      "tanh(x) + abs(x - 1.3) + min(x, 1.4) + max(x^2, 2) + log(x) + sqrt(x) + pow(x, 2.5) + "
      "pow(2, x) + x^x",
  };
  const std::map<std::string, double> params = {
      {"eps", 1.3},   {"sigma", 0.9}, {"D", 0.7}, {"a", 1.6}, {"r0", 1.1},
      {"A", 1000},    {"rho", 0.3},   {"C", 2.0}, {"q", 1.5}, {"kappa", 0.8},
      {"alpha", 0.5}, {"n", 14},      {"m", 7}};
  for (const auto& f : formulas) {
    Graph g;
    const NodeId u = parse(g, f, Scope{{"x"}, params});
    const NodeId du = g.derivative(u, 0);
    for (double x : {0.85, 1.0, 1.2, 1.37, 1.9, 2.4}) {
      const double h = 1e-6 * x;
      const double fd = (g.evaluate(u, {x + h}) - g.evaluate(u, {x - h})) / (2 * h);
      const double an = g.evaluate(du, {x});
      EXPECT_NEAR(an, fd, 1e-6 * std::max(1.0, std::abs(fd))) << f << " at x = " << x;
    }
  }
}

TEST(Formula, CompiledProgramMatchesReference) {
  Graph g;
  const NodeId u = parse(g,
                         "4*eps*((sigma/x)^12 - (sigma/x)^6) + q*exp(-k*x)/x + erfc(x) + "
                         "select(step(x - 1.5), x^-3, sqrt(x)) + min(x, 1.2)",
                         Scope{{"x"}, {{"eps", 1.2}, {"sigma", 1.05}, {"q", 0.3}, {"k", 2}}});
  const NodeId du = g.derivative(u, 0);
  Program p(g, {u, du});
  std::vector<double> x(1000), o0(1000), o1(1000), scratch;
  std::vector<float> xf(1000), f0(1000), f1(1000), fscratch;
  for (int k = 0; k < 1000; ++k)
    x[std::size_t(k)] = 0.8 + 2.0 * k / 1000.0, xf[std::size_t(k)] = float(x[std::size_t(k)]);
  const double* in[] = {x.data()};
  double* out[] = {o0.data(), o1.data()};
  p.run(in, 1000, out, scratch);
  const float* inf[] = {xf.data()};
  float* outf[] = {f0.data(), f1.data()};
  p.run(inf, 1000, outf, fscratch);
  for (std::size_t k = 0; k < 1000; ++k) {
    const double ru = g.evaluate(u, {x[k]}), rdu = g.evaluate(du, {x[k]});
    EXPECT_NEAR(o0[k], ru, 1e-14 * std::max(1.0, std::abs(ru)));
    EXPECT_NEAR(o1[k], rdu, 1e-14 * std::max(1.0, std::abs(rdu)));
    EXPECT_NEAR(f0[k], ru, 2e-5 * std::max(1.0, std::abs(ru)));
  }
}

TEST(Formula, PairPotentialTruncationsAndChecks) {
  PairPotentialSpec spec{"4*epsilon*((sigma/r)^12 - (sigma/r)^6)",
                         {{"epsilon", 1}, {"sigma", 1}},
                         2.5,
                         Truncation::shifted_force};
  const PairPotential p = compile_pair_potential(spec);
  double e = 0, fr = 0;
  p.reference(2.5 * 2.5, e, fr);
  EXPECT_NEAR(e, 0.0, 1e-15);
  EXPECT_NEAR(fr, 0.0, 1e-15);
  spec.truncation = Truncation::cut;
  const PairPotential c = compile_pair_potential(spec);
  c.reference(1.21, e, fr);
  const double s6 = 1 / std::pow(1.1, 6);
  EXPECT_NEAR(e, 4 * (s6 * s6 - s6), 1e-14);
  EXPECT_NEAR(fr, (48 * s6 * s6 - 24 * s6) / 1.21, 1e-13);

  auto error = [](PairPotentialSpec s) -> std::string {
    try {
      compile_pair_potential(s);
    } catch (const FormulaError& e) {
      return e.describe("") + "|" + std::to_string(e.column());
    }
    return "";
  };
  EXPECT_EQ(error({"1/(r - 1)", {}, 2.5, Truncation::cut}),
            "division by zero (at r = 1) at column 2|2");
  EXPECT_NE(error({"1/(2.5 - r)", {}, 2.5, Truncation::cut})
                .find("division by zero (at r = rc = 2.5) at column 2"),
            std::string::npos);
  EXPECT_NE(error({"log(r - 2.5)", {}, 2.5, Truncation::cut}).find("at r = rc = 2.5"),
            std::string::npos);
  EXPECT_NE(
      error({"sqrt(2 - r)", {}, 2.5, Truncation::cut}).find("non-finite value at r = rc = 2.5"),
      std::string::npos);
}

}  // namespace
