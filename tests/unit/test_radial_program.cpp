// formula::RadialProgram (issue 13, the GPU form of a pair formula in r²): the program's outputs
// equal the graph's (double, 1e-10 relative: both forms of G′ cancel at small r) for softened
// kernels and their symbolic derivatives; Plummer's φ, G = φ′/r and G′ = dG/d(r²) become one rsqrt
// of s = r² + ε² (the softening shift folded into the input) and multiplies, as the hand-written
// kernel computes them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/formula/parser.hpp"
#include "engine/formula/radial_program.hpp"

namespace {

using namespace pairwise::formula;

struct Outputs {
  Graph g;
  std::vector<NodeId> ids;
};

// φ, G, G′ of a potential in r, as functions of r² (variable 0), as nbody/custom_gravity.cpp builds
// them.
void build(Outputs& o, const std::string& phi_text, double eps) {
  Graph& g = o.g;
  Scope scope;
  scope.variables = {"__r2", "r"};
  scope.parameters = {{"eps", eps}};
  const NodeId phi = parse(g, phi_text, scope);
  const NodeId r = g.variable(1);
  const NodeId gr = g.div(g.derivative(phi, 1), r);
  const NodeId dg = g.div(g.derivative(gr, 1), g.mul(g.constant(2), r));
  const NodeId s = g.unary(Op::sqrt, g.variable(0));
  o.ids = {g.substitute(phi, 1, s), g.substitute(gr, 1, s), g.substitute(dg, 1, s)};
}

TEST(RadialProgram, MatchesGraph) {
  for (const char* phi :
       {"-1/sqrt(r^2 + eps^2)", "-(1 + 0.3*exp(-r/0.4))/sqrt(r^2 + eps^2)",
        "-(r^2+eps^2)^(-0.5) - 0.5*eps^2*(r^2+eps^2)^(-1.5)", "-1/(r + eps)", "-erf(r/eps)/r",
        "-exp(-r^2/eps^2) + min(r, 2)*0.01", "select(step(r - 1), -1/r, -0.5*(3 - r^2))"}) {
    SCOPED_TRACE(phi);
    Outputs o;
    build(o, phi, 0.1);
    const RadialProgram p = radial_program(o.g, o.ids);
    for (double r2 : {1e-4, 0.01, 0.3, 0.99, 1.2, 2.0, 50.0}) {
      std::vector<double> want;
      o.g.evaluate(o.ids, {r2}, want);
      const std::vector<double> got = p.evaluate(r2);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t k = 0; k < got.size(); ++k)
        EXPECT_NEAR(got[k], want[k], 1e-10 * std::max(1.0, std::abs(want[k])))
            << "output " << k << " at r² = " << r2;
    }
  }
}

TEST(RadialProgram, PlummerIsOneRsqrtOfTheShiftedInput) {
  Outputs o;
  build(o, "-1/sqrt(r^2 + eps^2)", 0.01);
  const RadialProgram p = radial_program(o.g, o.ids);
  EXPECT_TRUE(p.shifted);
  EXPECT_DOUBLE_EQ(p.shift, 1e-4);
  int rsqrt = 0, other = 0;
  for (const auto& i : p.code) {
    rsqrt += i.code == RadialProgram::Code::rsqrt;
    other += i.code == RadialProgram::Code::rcp || i.code == RadialProgram::Code::sqrt ||
             i.code == RadialProgram::Code::call;
  }
  EXPECT_EQ(rsqrt, 1);
  EXPECT_EQ(other, 0);  // no division, sqrt or call
  // At r² = +inf every output is exactly 0 (the equal-mass kernels' pads).
  for (double v : p.evaluate(std::numeric_limits<double>::infinity())) EXPECT_EQ(v, 0.0);
  const std::string src = p.cuda_function("phi", "float");
  EXPECT_NE(src.find("pairwise::rsqrt("), std::string::npos) << src;
}

}  // namespace
