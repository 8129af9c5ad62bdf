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
