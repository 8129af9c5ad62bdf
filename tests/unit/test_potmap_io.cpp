// Readers and writers of the potmap workload (issue 3): PQR and PDB atom records with errors naming
// file:line:field, the charge table, OpenDX written as APBS writes it and read back identically (by
// our reader and by GridDataFormats), .npy headers, and the lattice and validation errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/opendx.hpp"
#include "core/io/pdb.hpp"
#include "core/io/pqr.hpp"
#include "error_message.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/coulomb_potential.hpp"
#include "potmap/map.hpp"
#include "potmap/run_config.hpp"

namespace {

using pairwise::test::error_of;

namespace fs = std::filesystem;
using namespace pairwise;

const fs::path kData = PAIRWISE_TEST_DATA;

fs::path temp_dir() {
  const auto* info = testing::UnitTest::GetInstance()->current_test_info();
  const fs::path d =
      fs::temp_directory_path() / ("pw_potmap_" + std::to_string(::getpid()) + "_" + info->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(PotmapIo, PqrRecordsWithAndWithoutChain) {
  const auto atoms = io::read_pqr(kData / "potmap-small.pqr");
  ASSERT_EQ(atoms.size(), 6u);
  EXPECT_EQ(atoms[0].serial, 1);
  EXPECT_EQ(atoms[0].name, "OH2");
  EXPECT_EQ(atoms[0].resname, "TIP3");
  EXPECT_EQ(atoms[0].chain, "");
  EXPECT_EQ(atoms[0].resid, 1);
  EXPECT_DOUBLE_EQ(atoms[0].x, 1.463);
  EXPECT_DOUBLE_EQ(atoms[0].charge, -0.834);
  EXPECT_DOUBLE_EQ(atoms[0].radius, 1.7682);
  EXPECT_EQ(atoms[3].chain, "W");
  EXPECT_EQ(atoms[5].resid, 2);
  EXPECT_DOUBLE_EQ(atoms[5].z, 3.098);
}

TEST(PotmapIo, PqrErrorsNameLineAndField) {
  auto parse = [](const std::string& text) {
    std::istringstream in(text);
    return io::parse_pqr(in, "w.pqr");
  };
  EXPECT_NE(error_of([&] {
              parse("REMARK\nATOM 1 O HOH 1 1.0 2.0 nan -0.8 1.5\n");
            }).find("bad z 'nan' (not a finite number), w.pqr:2:z"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { parse("ATOM 1 O HOH 1 1.0 2.0 3.0 -0.8x 1.5\n"); }).find("bad charge '-0.8x'"),
      std::string::npos);
  EXPECT_NE(error_of([&] { parse("ATOM 1 O HOH 1 1.0 2.0 3.0\n"); }).find("w.pqr:1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { parse("ATOM 1 O HOH A 1x 1.0 2.0 3.0 0 1\n"); }).find("w.pqr:1:resSeq"),
            std::string::npos);
}

TEST(PotmapIo, PdbWithChargeTable) {
  auto atoms = io::read_pdb(kData / "potmap-small.pdb");
  ASSERT_EQ(atoms.size(), 6u);
  EXPECT_EQ(atoms[0].resname, "TIP3");
  EXPECT_EQ(atoms[3].chain, "W");
  EXPECT_DOUBLE_EQ(atoms[4].y, 4.319);
  io::assign_charges(atoms, io::read_charge_table(kData / "potmap-tip3.charges"), "x.pdb");
  const auto pqr = io::read_pqr(kData / "potmap-small.pqr");
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    EXPECT_EQ(atoms[i].charge, pqr[i].charge);
    EXPECT_EQ(atoms[i].radius, pqr[i].radius);
    EXPECT_EQ(atoms[i].x, pqr[i].x);
  }
  std::istringstream partial("TIP3 OH2 -0.834\n");
  const auto table = io::parse_charge_table(partial, "t.txt");
  EXPECT_NE(error_of([&] {
              io::assign_charges(atoms, table, "x.pdb");
            }).find("no charge for atom H1 of residue TIP3 1"),
            std::string::npos);
  std::istringstream bad("TIP3 OH2 -0.834\nTIP3 OH2 0.1\n");
  EXPECT_NE(error_of([&] { io::parse_charge_table(bad, "t.txt"); }).find("duplicate"),
            std::string::npos);
  std::istringstream pdb("ATOM      1  OH2 TIP3    1       1.463   1.2x4   1.383\n");
  EXPECT_NE(error_of([&] { io::parse_pdb(pdb, "p.pdb"); }).find("bad y '1.2x4'"),
            std::string::npos);
}

TEST(PotmapIo, XyzqTable) {
  const auto d = temp_dir();
  std::ofstream(d / "a.xyzq") << "# x y z q\n1 2 3 -0.5\n\n4 5 6 0.5  # comment\n";
  const auto a = potmap::read_xyzq(d / "a.xyzq");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.z[1], 6.0);
  EXPECT_EQ(a.q[0], -0.5);
  std::ofstream(d / "b.xyzq") << "1 2 3\n";
  EXPECT_NE(error_of([&] { potmap::read_xyzq(d / "b.xyzq"); }).find("b.xyzq:1"), std::string::npos);
  fs::remove_all(d);
}

io::ScalarGrid sample_grid() {
  io::ScalarGrid g;
  g.origin = {-4.714, 0.1, 1e-3};
  g.spacing = {0.5, 0.5, 0.5};
  g.counts = {5, 4, 7};
  g.values.resize(g.size());
  for (std::size_t i = 0; i < g.size(); ++i)
    g.values[i] = double(float(std::sin(0.37 * double(i)) * 123.4));
  g.comments = {"test grid", "units: kT/e"};
  return g;
}

TEST(PotmapIo, OpenDxRoundTripAndLayout) {
  const auto d = temp_dir();
  const auto g = sample_grid();
  io::write_dx(d / "g.dx", g);
  EXPECT_FALSE(fs::exists(d / ("g.dx.tmp." + std::to_string(::getpid()))));
  const auto r = io::read_dx(d / "g.dx");
  EXPECT_EQ(r.origin, g.origin);
  EXPECT_EQ(r.spacing, g.spacing);
  EXPECT_EQ(r.counts, g.counts);
  EXPECT_EQ(r.values, g.values);  // bit for bit
  EXPECT_EQ(r.comments, g.comments);
  // APBS's layout: the header lines and three values a line.
  std::ifstream in(d / "g.dx");
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  EXPECT_EQ(lines[2], "object 1 class gridpositions counts 5 4 7");
  EXPECT_EQ(lines[4], "delta 0.5 0 0");
  EXPECT_EQ(lines[8], "object 3 class array type double rank 0 items 140 data follows");
  std::istringstream first(lines[9]);
  int values = 0;
  for (std::string w; first >> w;) ++values;
  EXPECT_EQ(values, 3);
  EXPECT_EQ(lines.back(), "component \"data\" value 3");
  fs::remove_all(d);
}

TEST(PotmapIo, SinglePrecisionOpenDxHoldsTheShortestFloatText) {
  // A grid of FP32 values large enough for several formatting batches (blocks of 24,576 values, 2
  // a thread): written as single precision, every value reads back as the same FP32 value, the
  // layout stays three a line, and the file is smaller than the FP64 text of the same values.
  const auto d = temp_dir();
  io::ScalarGrid g;
  g.spacing = {0.25, 0.25, 0.25};
  g.counts = {61, 67, 71};  // 290,177 values: not a multiple of 3 or of the block size
  g.values.resize(g.size());
  for (std::size_t i = 0; i < g.size(); ++i)
    g.values[i] = double(float(std::sin(0.37 * double(i)) * std::exp(double(i % 40) - 20)));
  g.values[7] = 0, g.values[8] = -0.0;
  io::write_dx(d / "double.dx", g);
  g.single_precision = true;
  io::write_dx(d / "single.dx", g);
  const auto r = io::read_dx(d / "single.dx");
  ASSERT_EQ(r.values.size(), g.values.size());
  for (std::size_t i = 0; i < g.values.size(); ++i)
    ASSERT_EQ(float(r.values[i]), float(g.values[i])) << i;
  EXPECT_EQ(io::read_dx(d / "double.dx").values, g.values);  // FP64 text: bit for bit
  EXPECT_LT(fs::file_size(d / "single.dx"), fs::file_size(d / "double.dx") * 3 / 4);
  std::ifstream in(d / "single.dx");
  std::string line;
  std::size_t data_lines = 0, values = 0;
  bool data = false;
  while (std::getline(in, line)) {
    if (line.rfind("attribute", 0) == 0) break;
    if (data) {
      ++data_lines;
      std::istringstream words(line);
      for (std::string w; words >> w;) ++values;
    }
    data = data || line.rfind("object 3", 0) == 0;
  }
  EXPECT_EQ(values, g.values.size());
  EXPECT_EQ(data_lines, (g.values.size() + 2) / 3);
  fs::remove_all(d);
}

TEST(PotmapIo, OpenDxReadsBackInGridDataFormats) {
  // GridDataFormats (python3-griddataformats) is installed for the system python.
  std::string python;
  for (const char* p : {"/usr/bin/python3", "python3"}) {
    if (std::system((std::string(p) + " -c 'import gridData' >/dev/null 2>&1").c_str()) == 0) {
      python = p;
      break;
    }
  }
  if (python.empty()) GTEST_SKIP() << "the Python module gridData (GridDataFormats) is missing";
  const auto d = temp_dir();
  const auto g = sample_grid();
  io::write_dx(d / "g.dx", g);
  // Python writes what it read: origin, delta, shape and every value (C order = z fastest).
  const std::string cmd = python +
                          " -c \"from gridData import Grid\nimport numpy as np\n"
                          "g = Grid('" +
                          (d / "g.dx").string() + "')\nwith open('" + (d / "out.txt").string() +
                          "', 'w') as f:\n"
                          "  f.write(' '.join(repr(float(v)) for v in g.origin) + '\\n')\n"
                          "  f.write(' '.join(repr(float(v)) for v in g.delta) + '\\n')\n"
                          "  f.write(' '.join(str(v) for v in g.grid.shape) + '\\n')\n"
                          "  f.write(' '.join(repr(float(v)) for v in g.grid.ravel(order='C')))\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(d / "out.txt");
  std::array<double, 3> origin{}, delta{};
  std::array<std::size_t, 3> shape{};
  for (auto& v : origin) in >> v;
  for (auto& v : delta) in >> v;
  for (auto& v : shape) in >> v;
  for (int a = 0; a < 3; ++a) {
    // GridDataFormats stores cell edges and gives the origin back as (o - h/2) + h/2: an ulp.
    EXPECT_NEAR(origin[a], g.origin[a], 4e-16 * (std::abs(g.origin[a]) + g.spacing[a])) << a;
    EXPECT_EQ(delta[a], g.spacing[a]) << a;
  }
  EXPECT_EQ(shape, g.counts);
  std::vector<double> values;
  for (double v; in >> v;) values.push_back(v);
  EXPECT_EQ(values, g.values);
  fs::remove_all(d);
}

TEST(PotmapIo, NpyHeader) {
  const auto d = temp_dir();
  const auto g = sample_grid();
  io::write_npy(d / "g.npy", g, true);
  std::ifstream in(d / "g.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const std::size_t header =
      std::size_t(std::uint8_t(bytes[8])) | (std::size_t(std::uint8_t(bytes[9])) << 8);
  EXPECT_EQ((10 + header) % 64, 0u);
  EXPECT_NE(bytes.find("'shape': (5, 4, 7)"), std::string::npos);
  EXPECT_NE(bytes.find("'<f4'"), std::string::npos);
  EXPECT_EQ(bytes.size(), 10 + header + g.size() * 4);
  float v5;
  std::memcpy(&v5, bytes.data() + 10 + header + 5 * 4, 4);
  EXPECT_EQ(double(v5), g.values[5]);
  fs::remove_all(d);
}

TEST(PotmapIo, LatticeAroundAtoms) {
  potmap::Atoms a;
  a.push_back(0, 0, 0, 1);
  a.push_back(10, 4.9, 1, -1);
  const auto l = potmap::lattice_around(a, 0.5, 1.0);
  EXPECT_EQ(l.origin, (std::array<double, 3>{-1, -1, -1}));
  EXPECT_EQ(l.counts,
            (std::array<std::size_t, 3>{25, 15, 7}));  // 12/0.5+1, ceil(6.9/0.5)+1, 3/0.5+1
  EXPECT_NE(error_of([&] { potmap::lattice_around(a, 0.0, 1.0); }).find("spacing 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { potmap::lattice_around(a, -0.5, 1.0); }).find("must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { potmap::lattice_around({}, 0.5, 1.0); }).find("no atoms"),
            std::string::npos);
}

TEST(PotmapIo, ValidationErrors) {
  potmap::Atoms a;
  a.push_back(0, 0, 0, 1);
  a.push_back(1, NAN, 0, 1);
  potmap::Lattice l;
  l.spacing = 0.5;
  l.counts = {4, 4, 4};
  potmap::MapOptions o;
  EXPECT_NE(error_of([&] { potmap::validate(a, l, o); }).find("atom 2: y is not finite"),
            std::string::npos);
  a.y[1] = 0;
  o.cutoff = 0.4;
  EXPECT_NE(error_of([&] {
              potmap::validate(a, l, o);
            }).find("cutoff 0.4 Å is smaller than the lattice spacing 0.5 Å"),
            std::string::npos);
  o.cutoff = 0;
  l.counts = {1u << 20, 1u << 20, 1u << 20};  // 2^60 points
  EXPECT_NE(error_of([&] { potmap::validate(a, l, o); }).find("bytes of host memory"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { potmap::validate(a, {{0, 0, 0}, 0.5, {4, 4, 4}}, o); }), "");
}

TEST(PotmapIo, WaterBoxIsNeutralAndDense) {
  const auto w = potmap::water_box(30.0, 1);
  EXPECT_EQ(w.size() % 3, 0u);
  double q = 0;
  for (double c : w.q) q += c;
  EXPECT_NEAR(q, 0.0, 1e-9);
  EXPECT_NEAR(double(w.size()) / 3 / (30.0 * 30 * 30), 0.0334, 0.0045) << w.size();
  EXPECT_EQ(potmap::water_box(30.0, 1).x, w.x);  // seeded
}

}  // namespace

namespace {

// The switching of coulomb_potential.hpp is exactly 0 at and beyond rc, in float and double, and
// (1 - r²/rc²)² inside.
TEST(PotmapEvaluator, SwitchingIsExactlyZeroFromTheCutoff) {
  using namespace pairwise::physics;
  for (const double rc : {12.0, 7.5, 3.3, 0.7}) {
    const auto pf = switch_params<float>(rc);
    const auto pd = switch_params<double>(rc);
    EXPECT_EQ(switching(pf.rc2, pf), 0.0f);
    EXPECT_EQ(switching(pd.rc2, pd), 0.0);
    float r2 = pf.rc2;
    for (int s = 0; s < 1000; ++s, r2 = std::nextafter(r2, 1e30f)) {
      ASSERT_EQ(cutoff_term(1.0f, r2, pf), 0.0f) << rc << " " << r2;
    }
    // Just inside the cutoff the switch is positive and tiny (1e-14 in float), not cut to 0.
    const float inside = switching(std::nextafter(pf.rc2, 0.0f), pf);
    EXPECT_GT(inside, 0.0f) << rc;
    EXPECT_LT(inside, 1e-6f) << rc;
    const double r = 0.6 * rc;
    EXPECT_NEAR(cutoff_term(2.0, r * r, pd), 2.0 * std::pow(1 - 0.36, 2) / r, 1e-15);
    EXPECT_EQ(cutoff_term(2.0, 0.0, pd), 0.0);
    EXPECT_EQ(direct_term(2.0f, 0.0f), 0.0f);
  }
}

}  // namespace
