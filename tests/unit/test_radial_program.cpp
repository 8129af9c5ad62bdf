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

namespace {

// A pair formula in r with the atoms' parameters (ljc's inputs: r², q1, q2, σ1, σ2, ε1, ε2; r is
// variable 7 while differentiating), its energy and F/r in r², as ljc/custom_nonbonded.cpp builds
// them.
void build_pair(Outputs& o, const std::string& energy) {
  Graph& g = o.g;
  Scope scope;
  scope.variables = {"__r2", "q1", "q2", "sigma1", "sigma2", "epsilon1", "epsilon2", "r"};
  const NodeId u = parse(g, energy, scope);
  const NodeId r = g.variable(7);
  const NodeId fr = g.neg(g.div(g.derivative(u, 7), r));
  const NodeId s = g.unary(Op::sqrt, g.variable(0));
  o.ids = {g.substitute(u, 7, s), g.substitute(fr, 7, s)};
}

// The parameters as the ljc custom term declares them: the first atom's (side 1), the second's
// (side 2, or 1 where every atom is the same: `uniform`), σ and ε nonnegative.
std::vector<PairParameter> ljc_parameters(bool uniform) {
  const int second = uniform ? 1 : 2;
  return {{1, 1, false},     {2, second, false}, {3, 1, true},
          {4, second, true}, {5, 1, true},       {6, second, true}};
}

constexpr const char* kLjCoulomb =
    "4*eps*((sig/r)^12 - (sig/r)^6) + 332.0636*q1*q2/r; eps = sqrt(epsilon1*epsilon2); "
    "sig = (sigma1 + sigma2)/2";

}  // namespace

// The pair program's outputs equal the graph's (double, 1e-12 relative) over atoms of different
// charges, σ and ε, for formulas with sums of parameters, exp, odd and even powers of r, positive
// powers of r and a constant shift.
TEST(PairProgram, MatchesGraph) {
  for (const char* u :
       {kLjCoulomb, "4*epsilon1*((sigma1/r)^12 - (sigma1/r)^6)",
        "sqrt(epsilon1*epsilon2)*(exp(-2*(r - sig)) - 2*exp(-(r - sig))); sig = sigma1 + sigma2",
        "A*exp(-r/0.3) - C/r^6 + 332*q1*q2/r; A = 1000*sqrt(epsilon1*epsilon2); C = "
        "(sigma1*sigma2)^3",
        "q1*q2*exp(-r/(sigma1 + sigma2))/r + 0.5*(r - sigma1)^2 + 0.1",
        "eps*((sig/r)^9 - (sig/r)^6) - 0.01*eps; eps = (epsilon1 + epsilon2)/2; sig = "
        "sqrt(sigma1*sigma2)",
        "q1*q2*erfc(0.3*r)/r + 4*(sigma1*sigma2)^6/r^12"}) {
    SCOPED_TRACE(u);
    Outputs o;
    build_pair(o, u);
    for (bool uniform : {false, true}) {
      const RadialProgram p = pair_program(o.g, o.ids, 0, ljc_parameters(uniform));
      EXPECT_EQ(p.inputs, 7);
      for (double r2 : {0.7, 4.0, 9.5, 30.0, 150.0}) {
        for (const std::vector<double>& a : {std::vector<double>{0.4, -0.7, 3.1, 2.6, 0.12, 0.09},
                                             std::vector<double>{-1.0, -0.2, 2.0, 3.5, 0.3, 0.0}}) {
          std::vector<double> in = {r2};
          in.insert(in.end(), a.begin(), a.end());
          in.push_back(std::sqrt(r2));
          std::vector<double> want;
          o.g.evaluate(o.ids, in, want);
          in.pop_back();
          const std::vector<double> got = p.evaluate(in);
          ASSERT_EQ(got.size(), want.size());
          for (std::size_t k = 0; k < got.size(); ++k)
            EXPECT_NEAR(got[k], want[k], 1e-12 * std::max(1e-3, std::abs(want[k])))
                << "output " << k << " at r² = " << r2 << (uniform ? " (uniform)" : "");
        }
      }
    }
  }
}

// LJ + Coulomb with Lorentz-Berthelot combining costs what the hand-written pair does: one rsqrt
// of r², the two √ε, and no more multiplies and adds than the built-in's energy and F/r with its
// combining (σ1 + σ2 once, (σ/r)² once, one Horner chain in (σ/r)^6 shared by both outputs, the
// Coulomb term once): 24, of which the first atom's parts (c·√ε1, 332·q1) leave the pair loop.
TEST(PairProgram, LjCoulombIsHandWrittenArithmetic) {
  Outputs o;
  build_pair(o, kLjCoulomb);
  const RadialProgram p = pair_program(o.g, o.ids, 0, ljc_parameters(false));
  int rsqrt = 0, sqrt = 0, arithmetic = 0, other = 0;
  for (const auto& i : p.code) {
    rsqrt += i.code == RadialProgram::Code::rsqrt;
    sqrt += i.code == RadialProgram::Code::sqrt;
    arithmetic += i.code == RadialProgram::Code::mul || i.code == RadialProgram::Code::add ||
                  i.code == RadialProgram::Code::neg;
    other += i.code == RadialProgram::Code::rcp || i.code == RadialProgram::Code::call;
  }
  EXPECT_EQ(rsqrt, 1);
  EXPECT_EQ(sqrt, 2);
  EXPECT_EQ(other, 0);
  EXPECT_LE(arithmetic, 24);
  const std::string src = p.cuda_function("pw_term", "float");
  EXPECT_NE(src.find("(const float x0, const float x1,"), std::string::npos) << src;
}
