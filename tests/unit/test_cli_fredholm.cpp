// End-to-end tests of `pairwise fredholm`: the CSV outputs of a small problem, and clear errors
// (exit code 1, no output files) for bad input: a diverging fixed point, N <= 0, an unknown
// kernel, a = b.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string output;
};

std::string binary() {
  if (const char* env = std::getenv("PAIRWISE_BINARY"); env && *env) return env;
  if (fs::exists(PAIRWISE_BINARY)) return PAIRWISE_BINARY;
  return (fs::read_symlink("/proc/self/exe").parent_path() / ".." / "apps" / "pairwise" /
          "pairwise")
      .string();
}

Result pairwise(const fs::path& dir, const std::string& args) {
  const std::string command = "cd '" + dir.string() + "' && '" + binary() + "' " + args + " 2>&1";
  Result r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class CliFredholm : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("pw_clif_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    inputs_.insert(name);
  }
  void expect_error(const std::string& args, std::initializer_list<std::string> fragments) {
    const Result r = pairwise(dir_, args);
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("error: "), std::string::npos) << r.output;
    for (const auto& f : fragments)
      EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      EXPECT_TRUE(inputs_.count(e.path().filename().string())) << "left behind: " << e.path();
  }
  fs::path dir_;
  std::set<std::string> inputs_;
};

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
