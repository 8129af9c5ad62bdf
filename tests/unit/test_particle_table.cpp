// The N-body particle table: exact round trips, and malformed input named by file, line and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/io/atomic_file.hpp"
#include "nbody/particle_table.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {
namespace {

std::string read_error(const std::string& text) {
  std::istringstream in(text);
  try {
    read_particle_table(in, "stars.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ParticleTable, RoundTripIsExactAndKeepsTheTime) {
  Particles p;
  p.resize(3);
  for (std::size_t i = 0; i < 3; ++i) {
    p.m[i] = 1.0 / 3.0;
    p.x[i] = 0.1 * i - 1e-300, p.y[i] = -2.0 / 7.0 * i, p.z[i] = 1e10 + i;
    p.vx[i] = 3.14159265358979 * i, p.vy[i] = -1e-20, p.vz[i] = 0.3;
  }
  std::ostringstream out;
  write_particle_table(out, p, 0.125);
  EXPECT_EQ(out.str().rfind("# pairwise nbody snapshot t=0.125 n=3\n# m x y z vx vy vz\n", 0), 0u);
  std::istringstream in(out.str());
  const ParticleTable t = read_particle_table(in, "round-trip");
  EXPECT_EQ(t.time, 0.125);
  ASSERT_EQ(t.particles.size(), 3u);
  EXPECT_EQ(t.particles.m, p.m);
  EXPECT_EQ(t.particles.x, p.x);
  EXPECT_EQ(t.particles.z, p.z);
  EXPECT_EQ(t.particles.vx, p.vx);
  EXPECT_EQ(t.particles.vy, p.vy);
}

TEST(ParticleTable, AcceptsCommentsBlankLinesTabsAndSigns) {
  std::istringstream in("# hand-written\n\n1 0 0 0 0 0 0\n\t+0.5  1e-3 -2 3\t0 0 0  \r\n# end\n");
  const Particles p = read_particle_table(in, "x").particles;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.m[1], 0.5);
  EXPECT_EQ(p.x[1], 1e-3);
  EXPECT_EQ(p.y[1], -2);
}

TEST(ParticleTable, MalformedFieldsNameFileLineAndField) {
  const std::string ok = "# header\n1 0 0 0 0 0 0\n";
  EXPECT_EQ(read_error(ok + "1 0 0 0 abc 0 0\n"),
            "field 'vx' is not a number: 'abc', stars.txt:3:vx");
  EXPECT_EQ(read_error(ok + "1 0 0 0 1.5.2 0 0\n"),
            "field 'vx' is not a number: '1.5.2', stars.txt:3:vx");
  EXPECT_EQ(read_error(ok + "1 0 nan 0 0 0 0\n"), "field 'y' is not finite: 'nan', stars.txt:3:y");
  EXPECT_EQ(read_error(ok + "1 0 0 -inf 0 0 0\n"),
            "field 'z' is not finite: '-inf', stars.txt:3:z");
  EXPECT_EQ(read_error(ok + "0 0 0 0 0 0 0\n"), "mass must be positive, got '0', stars.txt:3:m");
  EXPECT_EQ(read_error(ok + "-1 0 0 0 0 0 0\n"), "mass must be positive, got '-1', stars.txt:3:m");
}

TEST(ParticleTable, WrongColumnCountsAndEmptyFiles) {
  EXPECT_EQ(read_error("1 0 0 0 0 0\n"),
            "expected 7 fields (m x y z vx vy vz), found 6, stars.txt:1");
  EXPECT_EQ(read_error("1 0 0 0 0 0 0 0 0\n"),
            "expected 7 fields (m x y z vx vy vz), found more than 7, stars.txt:1");
  EXPECT_EQ(read_error("# only a header\n\n"),
            "the particle file holds no particles (N = 0), stars.txt");
}

TEST(AtomicFile, AWriterThatThrowsLeavesNothing) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("pw_atomic_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto path = dir / "out.txt";
  EXPECT_THROW(io::write_file_atomically(path,
                                         [](std::ostream& out) {
                                           out << "half";
                                           throw Error("stop");
                                         }),
               Error);
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  io::write_file_atomically(path, [](std::ostream& out) { out << "whole"; });
  std::ifstream in(path);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "whole");
  EXPECT_THROW(io::write_file_atomically(dir / "no" / "such" / "dir", [](std::ostream&) {}), Error);
  std::filesystem::remove_all(dir);
}

TEST(AtomicFile, BackgroundRemovalFreesTheNameAtOnceAndRemovesTheOldFile) {
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("pw_removal_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto path = dir / "map.npy";
  std::ofstream(path) << std::string(1 << 20, 'x');
  {
    const io::BackgroundRemoval removal(path);
    EXPECT_FALSE(std::filesystem::exists(path));  // renamed aside before the constructor returns
    io::write_file_atomically(path, [](std::ostream& out) { out << "new"; });
  }
  // The old content is gone (no aside file left), the new file is whole.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "map.npy");
  }
  EXPECT_EQ(files, 1u);
  EXPECT_EQ(std::filesystem::file_size(path), 3u);
  { const io::BackgroundRemoval nothing(dir / "absent.npy"); }  // no file: nothing happens
  { const io::BackgroundRemoval directory(dir); }               // not a regular file: kept
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pairwise::nbody
