// The md workload and the rng command end to end through the `pairwise` executable: the example
// (shortened), LAMMPS-style output files, an error with a non-zero exit and no partial files, and
// `pairwise rng` against glibc.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

using pairwise::test::CliTest;
using pairwise::test::Result;

class CliMd : public CliTest {};

std::string example() {
  return fs::path(PAIRWISE_TEST_DATA).parent_path().parent_path().string() +
         "/examples/lj-melt.toml";
}

TEST_F(CliMd, ExampleRunsWithOutputs) {
  const Result r =
      pairwise(dir_, "run '" + example() +
                         "' --backend cpu --output out --set system.cells='\"6 6 6\"' "
                         "--set integrator.steps=20 --set output.dump_every=10 "
                         "--set output.final_data='\"final.data\"' --set output.progress=false");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Step           Temp"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("864 atoms"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "lj-melt.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "final.data"));
  std::ifstream dump(dir_ / "out" / "lj-melt.lammpstrj");
  std::stringstream text;
  text << dump.rdbuf();
  std::size_t frames = 0;
  for (std::size_t p = 0; (p = text.str().find("ITEM: TIMESTEP", p)) != std::string::npos; ++p)
    ++frames;
  EXPECT_EQ(frames, 3u);
  // The final data file restarts a run.
  std::ofstream toml(dir_ / "restart.toml");
  toml << "workload = \"md\"\n[system]\ndata_file = \"out/final.data\"\n[integrator]\nsteps = "
          "10\n[run]\nbackend = \"cpu\"\n[output]\nprogress = false\ndump_every = 5\n"
          "dump_format = \"xyz\"\n";
  toml.close();
  const Result again = pairwise(dir_, "run restart.toml");
  EXPECT_EQ(again.code, 0) << again.output;
  EXPECT_TRUE(fs::exists(dir_ / "restart.xyz"));
}

TEST_F(CliMd, BadInputExitsNonZeroWithoutFiles) {
  const Result r = pairwise(
      dir_, "run '" + example() + "' --backend cpu --output out --set system.cells='\"3 3 3\"'");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.output.find("error: box length"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "lj-melt.csv"));
  std::ofstream bad(dir_ / "bad.data");
  bad << "x\n\n2 atoms\n1 atom types\n0 9 xlo xhi\n0 9 ylo yhi\n0 9 zlo zhi\n\nMasses\n\n1 1\n\n"
         "Atoms\n\n1 1 1 1 1\n2 3 2 2 2\n";
  bad.close();
  std::ofstream toml(dir_ / "bad.toml");
  toml << "workload = \"md\"\n[system]\ndata_file = \"bad.data\"\n[force_field]\ncutoff = 2.0\n";
  toml.close();
  const Result d = pairwise(dir_, "run bad.toml --backend cpu");
  EXPECT_EQ(d.code, 1);
  EXPECT_NE(d.output.find("unknown atom type 3"), std::string::npos) << d.output;
  EXPECT_NE(d.output.find("bad.data:16 (Atoms)"), std::string::npos) << d.output;
}

TEST_F(CliMd, RngMatchesGlibc) {
  const long seeds[] = {0, 1, 12345, (1L << 32) + 7};
  for (long seed : seeds) {
    const Result r = pairwise(dir_, "rng --seed " + std::to_string(seed) + " --count 1000");
    ASSERT_EQ(r.code, 0) << r.output;
    std::istringstream in(r.output);
    srand48(seed);
    for (int k = 0; k < 1000; ++k) {
      long v = -1;
      in >> v;
      ASSERT_EQ(v, lrand48()) << "seed " << seed << " draw " << k;
    }
    const Result d =
        pairwise(dir_, "rng --kind drand48 --seed " + std::to_string(seed) + " --count 100");
    std::istringstream din(d.output);
    srand48(seed);
    for (int k = 0; k < 100; ++k) {
      double v = -1;
      din >> v;
      ASSERT_EQ(v, drand48()) << "seed " << seed << " draw " << k;
    }
  }
  EXPECT_EQ(pairwise(dir_, "rng --kind xrand48").code, 2);
}

}  // namespace
