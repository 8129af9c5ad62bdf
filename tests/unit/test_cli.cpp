// End-to-end tests of the `pairwise` executable: bad input gives a clear message, exit code 1 and
// no output file; a short Kepler run writes a CSV with a small energy error.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "pairwise/backend.hpp"

namespace {

namespace fs = std::filesystem;

using pairwise::test::CliTest;
using pairwise::test::Result;

class Cli : public CliTest {
 protected:
  // A config reading `particles` (a file in the test directory) with softening eps.
  void file_config(const std::string& particles, double eps) {
    std::ostringstream toml;
    toml << "workload = \"nbody\"\n[system]\ninitial = \"file\"\nfile = \"" << particles
         << "\"\neps = " << eps << "\n[run]\nt_end = 0.0625\nbackend = \"reference\"\n";
    write("run.toml", toml.str());
  }
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
