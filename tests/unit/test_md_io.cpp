// LAMMPS data files (read, write, round trip, malformed input with line and section), dump custom
// and XYZ frames, lattices and velocity creation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/lammps_data.hpp"
#include "md/run.hpp"
#include "md/system.hpp"
#include "pairwise/error.hpp"

namespace {

using namespace pairwise;

const char* kGood = R"(LAMMPS data file

3 atoms
2 atom types

0 10 xlo xhi
0 11 ylo yhi
-1 12 zlo zhi

Masses

1 1.0
2 2.5

Pair Coeffs # lj/cut

1 1.0 1.0
2 0.5 1.2 3.0

Atoms # atomic

3 2 1.5 2.5 3.5 0 1 -1
1 1 0.5 0.5 0.5 0 0 0
2 1 5 5 5

Velocities

1 0.1 0.2 0.3
3 -1 -2 -3
2 0 0 0
)";

std::string error_of(const std::string& text) {
  try {
    io::parse_lammps_data(text, "t.data");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MdIo, ReadsAtomicDataFile) {
  const auto d = io::parse_lammps_data(kGood, "t.data");
  ASSERT_EQ(d.id.size(), 3u);
  EXPECT_EQ(d.atom_types, 2);
  EXPECT_DOUBLE_EQ(d.lo[2], -1.0);
  EXPECT_DOUBLE_EQ(d.masses[1], 2.5);
  ASSERT_EQ(d.pair_coeffs.size(), 2u);
  EXPECT_DOUBLE_EQ(d.pair_coeffs[1].cutoff, 3.0);
  EXPECT_EQ(d.id[0], 3u);
  EXPECT_EQ(d.iy[0], 1);
  EXPECT_EQ(d.iz[0], -1);
  EXPECT_DOUBLE_EQ(d.vz[0], -3.0);
  EXPECT_DOUBLE_EQ(d.vy[1], 0.2);
}

TEST(MdIo, RoundTripIsExact) {
  const auto d = io::parse_lammps_data(kGood, "t.data");
  std::ostringstream out;
  io::write_lammps_data(out, d);
  const auto e = io::parse_lammps_data(out.str(), "again");
  EXPECT_EQ(e.id, d.id);
  EXPECT_EQ(e.type, d.type);
  EXPECT_EQ(e.x, d.x);
  EXPECT_EQ(e.vz, d.vz);
  EXPECT_EQ(e.iz, d.iz);
  EXPECT_EQ(e.masses, d.masses);
}

TEST(MdIo, MalformedFilesNameLineAndSection) {
  auto replace = [](std::string s, const std::string& a, const std::string& b) {
    return s.replace(s.find(a), a.size(), b);
  };
  std::string msg = error_of(replace(kGood, "2 1 5 5 5", "2 1 5 five 5"));
  EXPECT_NE(msg.find("bad number 'five'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t.data:24 (Atoms)"), std::string::npos) << msg;
  msg = error_of(replace(kGood, "2 1 5 5 5", "2 7 5 5 5"));
  EXPECT_NE(msg.find("unknown atom type 7"), std::string::npos) << msg;
  msg = error_of(replace(kGood, "Velocities", "Velocitees"));
  EXPECT_NE(msg.find("unknown section 'Velocitees'"), std::string::npos) << msg;
  msg = error_of(replace(kGood, "2 0 0 0\n", ""));
  EXPECT_NE(msg.find("section ends after 2 of 3 lines"), std::string::npos) << msg;
  msg = error_of(replace(kGood, "-1 12 zlo zhi", "12 -1 zlo zhi"));
  EXPECT_NE(msg.find("t.data:8"), std::string::npos) << msg;
  msg = error_of(replace(kGood, "1 1 0.5 0.5 0.5 0 0 0", "3 1 0.5 0.5 0.5 0 0 0"));
  EXPECT_NE(msg.find("duplicate atom id 3"), std::string::npos) << msg;
  msg = error_of(replace(kGood, "Masses", "1 2 3 xy xz yz\n\nMasses"));
  EXPECT_NE(msg.find("triclinic"), std::string::npos) << msg;
  EXPECT_THROW(io::read_lammps_data("/nonexistent/x.data"), Error);
}

TEST(MdIo, DumpAndXyzFrames) {
  const auto d = io::parse_lammps_data(kGood, "t.data");
  std::ostringstream dump, xyz;
  io::write_lammps_dump_frame(dump, 40, d);
  EXPECT_NE(dump.str().find("ITEM: TIMESTEP\n40\nITEM: NUMBER OF ATOMS\n3\n"), std::string::npos);
  EXPECT_NE(dump.str().find("ITEM: ATOMS id type x y z vx vy vz\n3 2 1.5 2.5 3.5 -1 -2 -3\n"),
            std::string::npos);
  io::write_xyz_frame(xyz, 40, d);
  EXPECT_EQ(xyz.str().substr(0, 2), "3\n");
  EXPECT_NE(xyz.str().find("\n1 0.5 0.5 0.5\n"), std::string::npos);
}

TEST(MdIo, LatticesAndVelocities) {
  for (auto [kind, basis] : {std::pair{"fcc", 4}, {"bcc", 2}, {"sc", 1}}) {
    md::System s = md::make_lattice(kind, 0.8, {3, 4, 5});
    EXPECT_EQ(s.atoms.size(), std::size_t(60 * basis));
    EXPECT_NEAR(double(s.atoms.size()) / s.box.volume(), 0.8, 1e-12);
    md::create_velocities(s, 1.5, 3);
    double p[3] = {0, 0, 0};
    for (std::size_t i = 0; i < s.atoms.size(); ++i)
      p[0] += s.atoms.vx[i], p[1] += s.atoms.vy[i], p[2] += s.atoms.vz[i];
    for (double c : p) EXPECT_NEAR(c, 0.0, 1e-10);
    EXPECT_NEAR(md::temperature_of(md::kinetic_energy(s), s.atoms.size()), 1.5, 1e-12);
  }
  EXPECT_THROW(md::make_lattice("hcp", 0.8, {3, 3, 3}), Error);
}

TEST(MdIo, SystemDataRoundTripThroughAFile) {
  md::System s = md::make_lattice("bcc", 0.7, {3, 3, 3});
  md::create_velocities(s, 1.0, 8);
  const auto path = std::filesystem::temp_directory_path() / "pairwise_test_md_io.data";
  io::write_lammps_data(path, md::data_from_system(s));
  const md::System r = md::system_from_data(path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.atoms.x, s.atoms.x);
  EXPECT_EQ(r.atoms.vy, s.atoms.vy);
  EXPECT_EQ(r.ff.mass, s.ff.mass);
  EXPECT_TRUE(r.ff.at(1, 1).given);
}

}  // namespace
