// End-to-end tests of `pairwise run` with workload = "ljc": a short run writes its CSV and final
// topology; bad input (a type without parameters, bonds or exclusions naming atoms that do not
// exist, unknown keys) fails with a clear message, exit code 1 and no output files; a declared net
// charge that the atoms do not sum to is a warning.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

// The ljc run's error cases share one run file; CliTest (tests/cli_runner.hpp) runs the executable.
class CliLjc : public pairwise::test::CliTest {
 protected:
  // `pairwise <args>` in the test directory: the exit code, with the output appended to `out`.
  int run(const std::string& args, std::string& out) {
    const auto r = pairwise(args);
    out += r.output;
    return r.code;
  }
  void expect_error(const std::string& molecule, const std::string& fragment) {
    write("mol.toml", molecule);
    write("run.toml", kFileRun);
    CliTest::expect_error("run run.toml", {fragment});
  }
  static constexpr const char* kFileRun =
      "workload = \"ljc\"\n[system]\nmolecule = \"file\"\nfile = \"mol.toml\"\n[run]\nsteps = "
      "10\nbackend = \"reference\"\nprecision = \"double\"\n[output]\nprogress = false\n";
  static constexpr const char* kTypes = "[types.C]\nsigma = 3.0\nepsilon = 0.12\nmass = 12.0\n";
  static constexpr const char* kAtoms =
      "atoms = [{type = \"C\", charge = 0.4, pos = [0, 0, 0]}, {type = \"C\", charge = -0.4, pos "
      "= [3.8, 0, 0]}, {type = \"C\", charge = 0.0, pos = [3.8, 3.8, 0]}]\n";
};

TEST_F(CliLjc, GlobuleRunWritesCsvAndFinalTopology) {
  write("run.toml",
        "workload = \"ljc\"\n[system]\nn = 64\n[forcefield]\ndielectric = \"linear\"\n"
        "[integrator]\nthermostat = \"langevin\"\nfriction = 10.0\n[run]\nsteps = 40\nbackend = "
        "\"cpu\"\nprecision = \"double\"\n[output]\ninterval = 20\nprogress = false\n");
  std::string out;
  ASSERT_EQ(run("run run.toml", out), 0) << out;
  EXPECT_NE(out.find("globule n=64, 63 bonds, dielectric linear, Langevin"), std::string::npos)
      << out;
  EXPECT_NE(out.find("done: 40 steps"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir_ / "run.csv"));
  EXPECT_TRUE(fs::exists(dir_ / "run.final.json"));
  std::ifstream csv(dir_ / "run.csv");
  std::string line;
  int rows = 0;
  while (std::getline(csv, line)) ++rows;
  EXPECT_EQ(rows, 4);  // header + steps 0, 20, 40
}

TEST_F(CliLjc, FileRunAndNetChargeWarning) {
  write("mol.toml",
        std::string("net_charge = 1.0\nbonds = [[0, 1, 3.8, 100.0]]\n") + kAtoms + kTypes);
  write("run.toml", kFileRun);
  std::string out;
  ASSERT_EQ(run("run run.toml", out), 0) << out;
  EXPECT_NE(out.find("warning: the atoms' charges sum to 0 e, not the declared net_charge 1 e"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("1 excluded pairs, 0 1-4 pairs"), std::string::npos) << out;
}

TEST_F(CliLjc, TypeWithoutParameters) {
  expect_error(std::string("atoms = [{type = \"X\", pos = [0, 0, 0]}]\n") + kTypes,
               "type 'X' has no parameters");
}

TEST_F(CliLjc, BondNamingMissingAtom) {
  expect_error(std::string("bonds = [[0, 9, 3.8, 100.0]]\n") + kAtoms + kTypes,
               "bond names atom 9, which does not exist (atoms are 0 to 2), mol.toml: bond 0");
}

TEST_F(CliLjc, ExclusionNamingMissingAtom) {
  expect_error(std::string("exclusions = [[1, 3]]\n") + kAtoms + kTypes,
               "exclusion names atom 3, which does not exist");
}

constexpr const char* kWaterDimer =
    "REMARK two TIP3P waters\n"
    "ATOM      1  OH2 TIP3    1       0.000   0.000   0.000 -0.8340 1.7683\n"
    "ATOM      2  H1  TIP3    1       0.957   0.000   0.000  0.4170 0.2245\n"
    "ATOM      3  H2  TIP3    1      -0.240   0.927   0.000  0.4170 0.2245\n"
    "ATOM      4  OH2 TIP3    2       2.900   0.300   0.200 -0.8340 1.7683\n"
    "ATOM      5  H1  TIP3    2       3.500   1.000   0.300  0.4170 0.2245\n"
    "ATOM      6  H2  TIP3    2       3.400  -0.500   0.200  0.4170 0.2245\n"
    "END\n";

TEST_F(CliLjc, PqrMoleculeBondsFromDistances) {
  write("w.pqr", kWaterDimer);
  write("run.toml",
        "workload = \"ljc\"\n[system]\nmolecule = \"file\"\nfile = \"w.pqr\"\npqr_epsilon = "
        "0.15\n[run]\nsteps = 5\nbackend = \"reference\"\n[integrator]\ndt = 0.5\n[output]\n"
        "progress = false\n");
  std::string out;
  ASSERT_EQ(run("run run.toml", out), 0) << out;
  // 4 O-H bonds (no bond between the waters): 2 × 3 excluded pairs (O-H, O-H, H-H), no 1-4.
  EXPECT_NE(out.find("4 bonds"), std::string::npos) << out;
  EXPECT_NE(out.find("6 excluded pairs, 0 1-4 pairs"), std::string::npos) << out;
}

TEST_F(CliLjc, PqrWrongFieldCount) {
  write("w.pqr", "ATOM      1  OH2 TIP3    1       0.000   0.000 -0.8340 1.7683\n");
  write("run.toml",
        "workload = \"ljc\"\n[system]\nmolecule = \"file\"\nfile = \"w.pqr\"\n[run]\nbackend "
        "= \"reference\"\n");
  std::string out;
  EXPECT_EQ(run("run run.toml", out), 1) << out;
  EXPECT_NE(out.find("PQR atom record with 8 fields"), std::string::npos) << out;
  EXPECT_NE(out.find("w.pqr:1"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ / "run.csv"));
}

constexpr const char* kWaterDimerPdb =
    "REMARK two TIP3P waters\n"
    "ATOM      1  OH2 TIP3A   1       0.000   0.000   0.000  1.00  0.00\n"
    "ATOM      2  H1  TIP3A   1       0.957   0.000   0.000  1.00  0.00\n"
    "ATOM      3  H2  TIP3A   1      -0.240   0.927   0.000  1.00  0.00\n"
    "ATOM      4  OH2 TIP3A   2       2.900   0.300   0.200  1.00  0.00\n"
    "ATOM      5  H1  TIP3A   2       3.500   1.000   0.300  1.00  0.00\n"
    "ATOM      6  H2  TIP3A   2       3.400  -0.500   0.200  1.00  0.00\n"
    "END\n";
constexpr const char* kPdbRun =
    "workload = \"ljc\"\n[system]\nmolecule = \"file\"\nfile = \"w.pdb\"\nparameters = "
    "\"w.prm\"\n[run]\nsteps = 5\nbackend = \"reference\"\n[integrator]\ndt = 0.5\n[output]\n"
    "progress = false\n";

TEST_F(CliLjc, PdbWithParameterTable) {
  write("w.pdb", kWaterDimerPdb);
  write("w.prm",
        "TIP3 OH2 -0.834 3.15061 0.1521 15.9994\n* H1 0.417 0.4 0.046 1.008\n"
        "* H2 0.417 0.4 0.046 1.008\n");
  write("run.toml", kPdbRun);
  std::string out;
  ASSERT_EQ(run("run run.toml", out), 0) << out;
  EXPECT_NE(out.find("4 bonds"), std::string::npos) << out;
  EXPECT_NE(out.find("6 excluded pairs, 0 1-4 pairs"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir_ / "run.csv"));
}

TEST_F(CliLjc, PdbAtomWithoutParameters) {
  write("w.pdb", kWaterDimerPdb);
  write("w.prm", "TIP3 OH2 -0.834 3.15061 0.1521 15.9994\n* H1 0.417 0.4 0.046 1.008\n");
  write("run.toml", kPdbRun);
  std::string out;
  EXPECT_EQ(run("run run.toml", out), 1) << out;
  EXPECT_NE(out.find("w.pdb:4"), std::string::npos) << out;
  EXPECT_NE(out.find("'H2'"), std::string::npos) << out;
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_TRUE(inputs_.count(e.path().filename().string())) << "left behind: " << e.path();
  }
}

TEST_F(CliLjc, PdbNeedsParameterTable) {
  write("w.pdb", kWaterDimerPdb);
  write("run.toml", "workload = \"ljc\"\n[system]\nmolecule = \"file\"\nfile = \"w.pdb\"\n");
  std::string out;
  EXPECT_EQ(run("run run.toml", out), 1) << out;
  EXPECT_NE(out.find("parameters"), std::string::npos) << out;
}

TEST_F(CliLjc, BenchWritesJsonRecords) {
  std::string out;
  ASSERT_EQ(
      run("bench ljc --backend cpu --sizes 64 --precision single --repeats 3 --json b.json", out),
      0)
      << out;
  std::ifstream in(dir_ / "b.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Forces for three dielectrics and one MD-step record, suite "ljc".
  for (const char* fragment :
       {"\"suite\": \"ljc\"", "\"case\": \"forces-constant\"", "\"case\": \"forces-sigmoidal\"",
        "\"case\": \"md-step\"", "\"metric\": \"steps_per_second\"",
        "\"flops_per_interaction\": 43"}) {
    EXPECT_NE(text.find(fragment), std::string::npos) << fragment << "\n" << text.substr(0, 400);
  }
}

TEST_F(CliLjc, BenchPerAtomLjIsRecorded) {
  std::string out;
  ASSERT_EQ(run("bench ljc --backend cpu --sizes 64 --precision single --repeats 3 --no-md "
                "--constant-only --per-atom-lj --json b.json",
                out),
            0)
      << out;
  std::ifstream in(dir_ / "b.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"lj_params\": \"per-atom\""), std::string::npos) << text.substr(0, 400);
  EXPECT_EQ(text.find("\"lj_params\": \"uniform\""), std::string::npos);
}

TEST_F(CliLjc, BenchLjTypesIsRecorded) {
  std::string out;
  ASSERT_EQ(run("bench ljc --backend cpu --sizes 64 --precision single --repeats 3 --no-md "
                "--constant-only --lj-types 4 --json b.json",
                out),
            0)
      << out;
  std::ifstream in(dir_ / "b.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"lj_params\": \"4-types\""), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(run("bench ljc --backend cpu --sizes 64 --lj-types 1", out), 0);
}

TEST_F(CliLjc, UnknownConfigKey) {
  write("run.toml", "workload = \"ljc\"\n[forcefield]\ndielectrc = \"linear\"\n");
  std::string out;
  EXPECT_EQ(run("run run.toml", out), 1) << out;
  EXPECT_NE(out.find("did you mean 'dielectric'"), std::string::npos) << out;
}

TEST_F(CliLjc, UnknownDielectric) {
  write("run.toml", "workload = \"ljc\"\n[forcefield]\ndielectric = \"sigmoid\"\n");
  std::string out;
  EXPECT_EQ(run("run run.toml", out), 1) << out;
  EXPECT_NE(out.find("unknown dielectric 'sigmoid', did you mean 'sigmoidal'?"), std::string::npos)
      << out;
}

}  // namespace
