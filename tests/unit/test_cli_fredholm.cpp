// End-to-end tests of `pairwise fredholm`: the CSV outputs of a small problem, and clear errors
// (exit code 1, no output files) for bad input: a diverging fixed point, N <= 0, an unknown
// kernel, a = b.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using pairwise::test::CliTest;
using pairwise::test::Result;

class CliFredholm : public CliTest {};

const char* kSmooth =
    "[domain]\na = 0\nb = 1\nn = 16\n[equation]\nkernel = \"exp_ts\"\nrhs = \"exp_ts_smooth\"\n"
    "[run]\nbackend = \"cpu\"\nprecision = \"double\"\n[output]\ngrid_points = 11\n";

TEST_F(CliFredholm, SmoothProblemWritesNodesAndGridCsv) {
  write("smooth.toml", kSmooth);
  const Result r = pairwise(dir_, "fredholm smooth.toml");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("max error at the nodes"), std::string::npos) << r.output;
  std::ifstream nodes(dir_ / "smooth.nodes.csv"), grid(dir_ / "smooth.grid.csv");
  ASSERT_TRUE(nodes && grid);
  std::string line;
  std::getline(nodes, line);
  EXPECT_EQ(line, "t,w,f,exact,error");
  int rows = 0;
  double worst = 0;
  while (std::getline(grid, line)) {
    if (rows++ == 0) {
      EXPECT_EQ(line, "t,f,exact,error");
      continue;
    }
    double t, f;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf", &t, &f), 2) << line;
    worst = std::max(worst, std::abs(f - std::exp(t)));
  }
  EXPECT_EQ(rows, 12);
  EXPECT_LT(worst, 1e-13);
  // The same through `pairwise run` with workload = "fredholm".
  write("run.toml", std::string("workload = \"fredholm\"\n") + kSmooth);
  const Result r2 = pairwise(dir_, "run run.toml");
  EXPECT_EQ(r2.code, 0) << r2.output;
}

// A complex custom kernel (two formulas): the separable e^{i(t−s)} with h = e^{it}, λ = 1/2, whose
// solution is 2 e^{it}; the nodes CSV gets f_re and f_im.
TEST_F(CliFredholm, ComplexCustomKernelWritesComplexNodes) {
  write("c.toml",
        "[domain]\nn = 12\n[equation]\nkernel = \"custom\"\n"
        "kernel_formula_real = \"cos(t - s)\"\nkernel_formula_imag = \"sin(t - s)\"\n"
        "rhs_formula_real = \"cos(t)\"\nrhs_formula_imag = \"sin(t)\"\nlambda = 0.5\n"
        "[run]\nbackend = \"cpu\"\nprecision = \"double\"\n");
  const Result r = pairwise(dir_, "fredholm c.toml");
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream nodes(dir_ / "c.nodes.csv");
  ASSERT_TRUE(nodes);
  std::string line;
  std::getline(nodes, line);
  EXPECT_EQ(line, "t,w,f_re,f_im");
  int rows = 0;
  double worst = 0;
  while (std::getline(nodes, line)) {
    double t, w, re, im;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf", &t, &w, &re, &im), 4) << line;
    worst = std::max(worst, std::hypot(re - 2 * std::cos(t), im - 2 * std::sin(t)));
    ++rows;
  }
  EXPECT_EQ(rows, 12);
  EXPECT_LT(worst, 1e-12);
  nodes.close();
  fs::remove(dir_ / "c.nodes.csv");  // expect_error checks that nothing but the inputs is left
  write("bad.toml", "[equation]\nkernel = \"custom\"\nkernel_formula_real = \"cos(t - s)\"\n");
  expect_error("fredholm bad.toml", {"kernel_formula_imag"});
}

TEST_F(CliFredholm, DivergingFixedPointIsAClearError) {
  write("p.toml", kSmooth);
  expect_error("fredholm p.toml --method fixed_point", {"diverges", "gmres"});
}

TEST_F(CliFredholm, BadInputIsAClearError) {
  write("p.toml", kSmooth);
  expect_error("fredholm p.toml --n 0", {"n", "positive", "--n 0"});
  expect_error("fredholm p.toml --n -5", {"positive"});
  expect_error("fredholm p.toml --set equation.kernel=exp_st",
               {"unknown kernel 'exp_st'", "did you mean 'exp_ts'"});
  expect_error("fredholm p.toml --set domain.b=0", {"a < b"});
  expect_error("fredholm p.toml --set equation.lamda=2", {"unknown key 'lamda'", "lambda"});
  expect_error("fredholm p.toml --set equation.kernel=helmholtz", {"not integrable in 1-D"});
}

}  // namespace
