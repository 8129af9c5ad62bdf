// End-to-end tests of `pairwise potmap` and `pairwise run` with workload = "potmap": the map read
// back equals the reference computed in-process; PQR, PDB + charges and x y z q inputs give the
// same map; bad input gives "error: ...", exit code 1 and no output file (not even a temporary
// one).
#include <gtest/gtest.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli_runner.hpp"
#include "core/io/opendx.hpp"
#include "core/io/pqr.hpp"
#include "pairwise/physics/coulomb_potential.hpp"
#include "potmap/map.hpp"

namespace {

namespace fs = std::filesystem;
using namespace pairwise;

const fs::path kData = PAIRWISE_TEST_DATA;

using pairwise::test::CliTest;
using pairwise::test::Result;

class CliPotmap : public CliTest {
 protected:
  // The data files every test reads, copied in as inputs.
  void SetUp() override {
    CliTest::SetUp();
    for (const char* f : {"potmap-small.pqr", "potmap-small.pdb", "potmap-tip3.charges"}) {
      fs::copy_file(kData / f, dir_ / f);
      inputs_.insert(f);
    }
  }
};

potmap::Atoms small_atoms() {
  potmap::Atoms a;
  for (const auto& r : io::read_pqr(kData / "potmap-small.pqr"))
    a.push_back(r.x, r.y, r.z, r.charge);
  return a;
}

TEST_F(CliPotmap, PqrToDxEqualsReferenceInKtPerE) {
  const Result r = pairwise(
      "potmap potmap-small.pqr -o map.dx --spacing 0.4 --padding 3 --cutoff 6 --exclusion 1 "
      "--backend reference");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("cutoff summation"), std::string::npos) << r.output;
  const auto g = io::read_dx(dir_ / "map.dx");
  const auto atoms = small_atoms();
  const auto l = potmap::lattice_around(atoms, 0.4, 3.0);
  EXPECT_EQ(g.origin, l.origin);
  EXPECT_EQ(g.counts, l.counts);
  EXPECT_EQ(g.spacing, (std::array<double, 3>{0.4, 0.4, 0.4}));
  potmap::MapOptions o;
  o.cutoff = 6;
  o.exclusion = 1;
  const auto ref = potmap::reference_map(atoms, l, o).values;
  ASSERT_EQ(g.values.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    ASSERT_EQ(g.values[i], ref[i] * physics::kKtPerEPerAngstrom) << i;
  }
  bool named = false;
  for (const auto& c : g.comments) named = named || c.find("kT/e at 298.15 K") != std::string::npos;
  EXPECT_TRUE(named);
  // Volts and kcal/(mol e): the same map times the other factor, named in the comment.
  ASSERT_EQ(pairwise("potmap potmap-small.pqr -o v.dx --spacing 0.4 --padding 3 --cutoff 6 "
                     "--exclusion 1 --backend reference --units V")
                .code,
            0);
  const auto v = io::read_dx(dir_ / "v.dx");
  EXPECT_EQ(v.values[100], ref[100] * physics::kVoltsPerEPerAngstrom);
  EXPECT_NE(v.comments[0].find("in V"), std::string::npos);
}

TEST_F(CliPotmap, PdbWithChargesAndXyzqGiveThePqrMap) {
  const std::string common = " --spacing 0.5 --padding 2 --backend cpu --precision double";
  ASSERT_EQ(pairwise("potmap potmap-small.pqr -o a.dx" + common).code, 0);
  const Result pdb =
      pairwise("potmap potmap-small.pdb --charges potmap-tip3.charges -o b.dx" + common);
  ASSERT_EQ(pdb.code, 0) << pdb.output;
  std::string table;
  for (const auto& r : io::read_pqr(kData / "potmap-small.pqr")) {
    table += std::to_string(r.x) + " " + std::to_string(r.y) + " " + std::to_string(r.z) + " " +
             std::to_string(r.charge) + "\n";
  }
  write("atoms.txt", table);
  ASSERT_EQ(pairwise("potmap atoms.txt -o c.dx" + common).code, 0);
  const auto a = io::read_dx(dir_ / "a.dx"), b = io::read_dx(dir_ / "b.dx"),
             c = io::read_dx(dir_ / "c.dx");
  EXPECT_EQ(a.values, b.values);
  EXPECT_EQ(a.values, c.values);
  ASSERT_EQ(pairwise("potmap potmap-small.pqr -o a.npy" + common).code, 0);
  EXPECT_EQ(fs::file_size(dir_ / "a.npy"), 128 + a.values.size() * 8);
}

TEST_F(CliPotmap, TomlFormAndExplicitLattice) {
  write("map.toml",
        "workload = \"potmap\"\n[input]\nfile = \"potmap-small.pqr\"\n[lattice]\nspacing = 0.5\n"
        "origin_x = -1.0\norigin_y = -2.0\norigin_z = 0.0\nnx = 10\nny = 12\nnz = 14\n"
        "[map]\ncutoff = 5.0\nunits = \"kcal/mol/e\"\n[run]\nbackend = \"reference\"\n"
        "[output]\nfile = \"out.dx\"\n");
  const Result r = pairwise("run map.toml");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto g = io::read_dx(dir_ / "out.dx");
  EXPECT_EQ(g.origin, (std::array<double, 3>{-1, -2, 0}));
  EXPECT_EQ(g.counts, (std::array<std::size_t, 3>{10, 12, 14}));
  const Result same = pairwise(
      "potmap potmap-small.pqr -o cli.dx --spacing 0.5 --origin=-1,-2,0 --counts 10,12,14 "
      "--cutoff 5 --units kcal/mol/e --backend reference");
  ASSERT_EQ(same.code, 0) << same.output;
  EXPECT_EQ(io::read_dx(dir_ / "cli.dx").values, g.values);
  inputs_.insert("out.dx"), inputs_.insert("cli.dx");  // made by the successful runs above
  write("typo.toml",
        "workload = \"potmap\"\n[input]\nfile = \"potmap-small.pqr\"\n[map]\ncutof = 5\n"
        "[output]\nfile = \"t.dx\"\n");
  expect_error("run typo.toml", {"cutof", "did you mean 'cutoff'", "typo.toml:5"});
  write("small.toml",
        "workload = \"potmap\"\n[input]\nfile = \"potmap-small.pqr\"\n[map]\n"
        "cutoff = 0.2\n[output]\nfile = \"t.dx\"\n");
  expect_error("run small.toml", {"cutoff is smaller than the lattice spacing", "small.toml:5"});
}

TEST_F(CliPotmap, BadInputIsAClearErrorWithoutOutput) {
  expect_error("potmap potmap-small.pqr -o m.dx --spacing 0", {"spacing 0", "must be > 0"});
  expect_error("potmap potmap-small.pqr -o m.dx --spacing -0.5", {"spacing -0.5", "must be > 0"});
  expect_error("potmap potmap-small.pqr -o m.dx --cutoff 0.3",
               {"cutoff 0.3 Å is smaller than the lattice spacing 0.5 Å"});
  write("nan.pqr", "ATOM 1 O HOH 1 1.0 nan 3.0 -0.8 1.5\n");
  expect_error("potmap nan.pqr -o m.dx", {"bad y 'nan' (not a finite number)", "nan.pqr:1:y"});
  write("nan.txt", "1 2 3 0.5\n1 2 -nan 0.5\n");
  expect_error("potmap nan.txt -o m.dx", {"nan.txt:2:z"});
  write("empty.pqr", "REMARK nothing\nEND\n");
  expect_error("potmap empty.pqr -o m.dx", {"no atoms", "empty.pqr"});
  expect_error("potmap potmap-small.pqr -o m.dx --origin=0,0,0 --counts 2000000,2000000,2000000",
               {"bytes of host memory"});
  expect_error("potmap potmap-small.pdb -o m.dx", {"needs a charge table"});
  expect_error("potmap potmap-small.pqr -o m.txt", {"must end in .dx, .dx.gz or .npy"});
  expect_error("potmap missing.pqr -o m.dx", {"cannot open PQR file", "missing.pqr"});
}

TEST_F(CliPotmap, BadTrajectoriesAreClearErrorsWithoutOutput) {
  // potmap-small.pqr has 6 atoms; frame 1 of this XYZ has 5.
  write("t.xyz", std::string("6\nf0\n") +
                     "O 1 2 3\nH 1 2 4\nH 1 3 3\nO 5 2 3\nH 5 2 4\nH 5 3 3\n"
                     "5\nf1\nO 1 2 3\nH 1 2 4\nH 1 3 3\nO 5 2 3\nH 5 2 4\n");
  expect_error("potmap --topology potmap-small.pqr --trajectory t.xyz -o m.dx --cutoff 4",
               {"frame 1", "5 atoms, but earlier frames have 6"});
  expect_error(
      "potmap --topology potmap-small.pqr --trajectory t.xyz -o m.dx --frames 1: --cutoff 4",
      {"frame 1", "5 atoms, but earlier frames have 6"});
  expect_error("potmap --topology potmap-small.pqr --trajectory t.xyz -o m.dx --frames 3:1",
               {"bad frame range '3:1'"});
  expect_error("potmap potmap-small.pqr -o m.dx --combine min", {"need --trajectory"});
  expect_error("potmap --topology potmap-small.pqr --trajectory t.xyz -o m.dx --box 10,10,10",
               {"periodic map needs a cutoff"});
}

TEST_F(CliPotmap, SignalStopsBetweenFramesWithTheMapOfTheFramesDone) {
  // Four frames of potmap-small.pqr's 6 atoms, each shifted by 0.25 A along x.
  std::string xyz;
  for (int f = 0; f < 4; ++f) {
    const double d = 0.25 * f;
    char frame[512];
    std::snprintf(frame, sizeof frame,
                  "6\nf%d\nO %g 2 3\nH %g 2 4\nH %g 3 3\nO %g 2 3\nH %g 2 4\nH %g 3 3\n", f, 1 + d,
                  1 + d, 1 + d, 5 + d, 5 + d, 5 + d);
    xyz += frame;
  }
  write("t.xyz", xyz);
  const std::string common =
      "potmap --topology potmap-small.pqr --trajectory t.xyz --cutoff 4 --spacing 0.5 "
      "--origin 0,0,0 --counts 16,12,14 --precision double ";
  // SIGTERM raised through the real handler before frame 2 is read (src/core/signals.hpp).
  ::setenv("PAIRWISE_TEST_SIGNAL_AT_STEP", "2", 1);
  const Result stopped = pairwise(common + "-o stopped.npy");
  ::unsetenv("PAIRWISE_TEST_SIGNAL_AT_STEP");
  EXPECT_EQ(stopped.code, 128 + SIGTERM) << stopped.output;
  EXPECT_NE(stopped.output.find("stopped by SIGTERM after 2 frames"), std::string::npos)
      << stopped.output;
  const Result first_two = pairwise(common + "--frames 0:1 -o first_two.npy");
  ASSERT_EQ(first_two.code, 0) << first_two.output;
  const auto bytes = [&](const char* name) {
    std::ifstream in(dir_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_FALSE(bytes("first_two.npy").empty());
  EXPECT_EQ(bytes("stopped.npy"), bytes("first_two.npy"));  // the average of frames 0 and 1
  // A stop before the first frame writes nothing.
  ::setenv("PAIRWISE_TEST_SIGNAL_AT_STEP", "0", 1);
  const Result early = pairwise(common + "-o none.npy");
  ::unsetenv("PAIRWISE_TEST_SIGNAL_AT_STEP");
  EXPECT_EQ(early.code, 128 + SIGTERM) << early.output;
  EXPECT_FALSE(fs::exists(dir_ / "none.npy"));
}

TEST_F(CliPotmap, GzipCompressedPqrGivesThePqrMap) {
  ASSERT_EQ(std::system(("gzip -c '" + (dir_ / "potmap-small.pqr").string() + "' > '" +
                         (dir_ / "small.pqr.gz").string() + "'")
                            .c_str()),
            0);
  inputs_.insert("small.pqr.gz");
  const std::string lattice = " --spacing 0.5 --cutoff 4 --precision double";
  ASSERT_EQ(pairwise("potmap potmap-small.pqr -o plain.npy" + lattice).code, 0);
  const Result gz = pairwise("potmap small.pqr.gz -o gz.npy" + lattice);
  ASSERT_EQ(gz.code, 0) << gz.output;
  const auto bytes = [&](const char* name) {
    std::ifstream in(dir_ / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_FALSE(bytes("plain.npy").empty());
  EXPECT_EQ(bytes("gz.npy"), bytes("plain.npy"));
  // A damaged gzip stream is a clear error naming the file, and no map.
  inputs_.insert("plain.npy"), inputs_.insert("gz.npy");
  write("bad.pqr.gz", std::string("\x1f\x8b\x08\x00garbage", 12));
  expect_error("potmap bad.pqr.gz -o bad.npy" + lattice, {"bad.pqr.gz"});
}

}  // namespace
