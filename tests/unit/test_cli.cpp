// End-to-end tests of the `pairwise` executable: bad input gives a clear message, exit code 1 and
// no output file; a short Kepler run writes a CSV with a small energy error.
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

#include "pairwise/backend.hpp"

namespace {

namespace fs = std::filesystem;

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr together
};

// The executable: $PAIRWISE_BINARY, else the path this test was built with, else the build tree's
// apps/pairwise/pairwise beside this test (scripts/device-check runs copied executables elsewhere).
std::string binary() {
  if (const char* env = std::getenv("PAIRWISE_BINARY"); env && *env) return env;
  if (fs::exists(PAIRWISE_BINARY)) return PAIRWISE_BINARY;
  return (fs::read_symlink("/proc/self/exe").parent_path() / ".." / "apps" / "pairwise" /
          "pairwise")
      .string();
}

// Runs `pairwise <args>` in `dir` (a shell command line; arguments are quoted by the caller).
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

// A fresh directory per test, removed afterwards.
class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / ("pw_cli_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    inputs_.insert(name);
  }
  // A config reading `particles` (a file in the test directory) with softening eps.
  void file_config(const std::string& particles, double eps) {
    std::ostringstream toml;
    toml << "workload = \"nbody\"\n[system]\ninitial = \"file\"\nfile = \"" << particles
         << "\"\neps = " << eps << "\n[run]\nt_end = 0.0625\nbackend = \"reference\"\n";
    write("run.toml", toml.str());
  }
  // Every file in the directory is one the test wrote: the failed run created nothing.
  void expect_no_output() {
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      EXPECT_TRUE(inputs_.count(e.path().filename().string())) << "left behind: " << e.path();
    }
  }
  // Runs, expects exit code 1, "error: " and every fragment in the message, and no output.
  void expect_error(const std::string& args, std::initializer_list<std::string> fragments) {
    const Result r = pairwise(dir_, args);
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("error: "), std::string::npos) << r.output;
    for (const auto& f : fragments) EXPECT_NE(r.output.find(f), std::string::npos) << r.output;
    expect_no_output();
  }

  fs::path dir_;
  std::set<std::string> inputs_;
};

const std::string kTwoStars = "# m x y z vx vy vz\n0.5 1 0 0 0 0.5 0\n0.5 -1 0 0 0 -0.5 0\n";

TEST_F(Cli, HelpVersionAndUsageErrors) {
  EXPECT_EQ(pairwise(dir_, "--help").code, 0);
  const Result v = pairwise(dir_, "--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_NE(v.output.find("pairwise " PAIRWISE_VERSION), std::string::npos);
  EXPECT_EQ(pairwise(dir_, "").code, 2);
  EXPECT_EQ(pairwise(dir_, "run").code, 2);
  EXPECT_EQ(pairwise(dir_, "run x.toml --no-such-flag").code, 2);
  EXPECT_EQ(pairwise(dir_, "bench nbody --precision quad").code, 2);
}

TEST_F(Cli, InfoListsBackendsAndPrecisions) {
  const Result r = pairwise(dir_, "info");
  EXPECT_EQ(r.code, 0);
  for (const char* s : {"reference", "cpu", "cuda", "CUDA devices", "single", "mixed", "double"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s;
}

TEST_F(Cli, MalformedParticleFileNamesFileLineAndField) {
  write("stars.txt", kTwoStars + "0.5 0 1 0 0.1x 0 0\n");
  file_config("stars.txt", 0.01);
  expect_error("run run.toml", {"field 'vx' is not a number: '0.1x'", "stars.txt:4:vx"});
  write("short.txt", "1 2 3\n");
  file_config("short.txt", 0.01);
  expect_error("run run.toml", {"expected 7 fields", "short.txt:1"});
}

TEST_F(Cli, ZeroParticlesIsAnError) {
  write("empty.txt", "# m x y z vx vy vz\n");
  file_config("empty.txt", 0.01);
  expect_error("run run.toml", {"N = 0", "empty.txt"});
  write("plummer.toml", "[system]\ninitial = \"plummer\"\n");
  expect_error("run plummer.toml --n 0", {"[system] n", "out of range", "--n 0"});
}

TEST_F(Cli, NonFiniteValuesAreErrors) {
  write("nan.txt", kTwoStars + "0.5 nan 0 0 0 0 0\n");
  file_config("nan.txt", 0.01);
  expect_error("run run.toml", {"not finite", "nan.txt:4:x"});
  write("inf.txt", kTwoStars + "0.5 0 0 0 0 0 inf\n");
  file_config("inf.txt", 0.01);
  expect_error("run run.toml", {"not finite", "inf.txt:4:vz"});
}

TEST_F(Cli, NonPositiveMassesAreErrors) {
  write("massless.txt", kTwoStars + "0 0 0 1 0 0 0\n");
  file_config("massless.txt", 0.01);
  expect_error("run run.toml", {"mass must be positive", "massless.txt:4:m"});
  write("negative.txt", "-0.5 0 0 1 0 0 0\n" + kTwoStars);
  file_config("negative.txt", 0.01);
  expect_error("run run.toml", {"mass must be positive", "negative.txt:1:m"});
}

TEST_F(Cli, CoincidentParticlesWithoutSofteningAreAnError) {
  write("pair.txt", kTwoStars + "0.5 1 0 0 0 0 0\n");  // on top of particle 0
  file_config("pair.txt", 0.0);
  expect_error("run run.toml", {"coincide", "eps", "pair.txt"});
}

TEST_F(Cli, UnknownConfigKeyGetsADidYouMean) {
  write("plummer.toml",
        "workload = \"nbody\"\n[system]\nn = 64\n[integrator]\neta = 0.01\n\nintegrater = "
        "\"hermite\"\n");
  expect_error(
      "run plummer.toml",
      {"unknown key 'integrater' in [integrator], did you mean 'integrator'?", "plummer.toml:7"});
  expect_error("run plummer.toml --set system.sed=3",
               {"unknown key 'sed' in [system], did you mean 'seed'?", "--set system.sed=3"});
  expect_error("run plummer.toml --t-end soon", {"[run] t_end", "expected a number", "--t-end"});
}

TEST_F(Cli, BackendCudaWithoutAUsableGpuIsAnError) {
  if (!pairwise::cuda_devices().empty()) GTEST_SKIP() << "a CUDA device is present";
  write("plummer.toml", "[system]\nn = 64\n");
  expect_error("run plummer.toml --backend cuda", {"cuda", "GPU"});
}

TEST_F(Cli, CudaProblemTooLargeForDeviceMemorySaysHowManyBytes) {
  const auto devices = pairwise::cuda_devices();
  if (devices.empty()) GTEST_SKIP() << "no CUDA device";
  // Each particle needs well over 64 bytes on the device (positions, velocities, Hermite terms), so
  // free / 64 particles cannot fit. A cold sphere is the cheapest large set to generate on the
  // host.
  const std::size_t n = devices[0].free_bytes / 64 + 1;
  write("big.toml", "[system]\ninitial = \"uniform_sphere\"\nn = " + std::to_string(n) +
                        "\n[integrator]\nintegrator = \"leapfrog\"\n");
  expect_error("run big.toml --backend cuda", {"bytes"});
}

TEST_F(Cli, KeplerRunWritesACsvWithASmallEnergyError) {
  write("kepler.toml",
        "workload = \"nbody\"\n[system]\ninitial = \"kepler\"\neccentricity = 0.5\neps = 0\n"
        "[integrator]\nintegrator = \"hermite\"\neta = 0.01\n"
        "[run]\nt_end = 6.283185307179586\nbackend = \"cpu\"\nprecision = \"double\"\n"
        "[output]\ninterval = 0.5\nsnapshot_every = 4\ndirectory = \"out\"\n");
  const Result r = pairwise(dir_, "run kepler.toml");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("dE/E0"), std::string::npos) << r.output;
  std::ifstream csv(dir_ / "out" / "kepler.csv");
  ASSERT_TRUE(csv) << "no CSV";
  std::string line, header, last;
  std::getline(csv, header);
  EXPECT_EQ(header, "t,steps,K,W,E,dE/E0,|p|,|L|,Q,wall_s");
  int rows = 0;
  while (std::getline(csv, line)) last = line, ++rows;
  EXPECT_EQ(rows, 14);  // t = 0, 0.5, ..., 6, and 2π
  // Column 6 (dE/E0) of the last row: one period of e = 0.5 with η = 0.01 conserves E to ~1e-6.
  std::istringstream fields(last);
  std::string field;
  for (int c = 0; c < 6; ++c) std::getline(fields, field, ',');
  EXPECT_LT(std::abs(std::stod(field)), 1e-5) << last;
  EXPECT_GT(std::abs(std::stod(field)), 0.0) << last;  // a real measurement, not a placeholder
  EXPECT_TRUE(fs::exists(dir_ / "out" / "kepler.final.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "kepler.snap.000000.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "kepler.snap.000012.txt"));
  for (const auto& e : fs::directory_iterator(dir_ / "out"))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

}  // namespace
