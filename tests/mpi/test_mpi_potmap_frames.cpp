// potmap trajectories on 2 and 3 ranks (frames across ranks: selected frame k on rank k mod P, the
// ranks' partial sums, minima or maxima all-reduced, rank 0 writes) give the 1-rank map: the
// average within 1e-12 (relative to max(1, |value|); the sum's order differs), the minimum and
// maximum exactly. 7 frames on 3 ranks (3, 2, 2), 2 frames on 3 ranks (rank 2 maps none), a
// stride; a bad frame that only rank 2 reads ends every rank with the message and no map.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/io/trajectory.hpp"
#include "mpi_run.hpp"

namespace pairwise::mpitest {
namespace {

// potmap-small.pqr's 6 atoms, moved a little in each of `frames` frames (deterministic).
std::vector<io::TrajectoryFrame> moving_frames(int frames) {
  const double base[6][3] = {{1, 2, 3}, {1, 2, 4}, {1, 3, 3}, {5, 2, 3}, {5, 2, 4}, {5, 3, 3}};
  std::vector<io::TrajectoryFrame> out(static_cast<std::size_t>(frames));
  for (int f = 0; f < frames; ++f) {
    auto& fr = out[std::size_t(f)];
    for (int i = 0; i < 6; ++i) {
      // float-representable, as DCD stores float32
      fr.x.push_back(double(float(base[i][0] + 0.3 * std::sin(1.7 * f + i))));
      fr.y.push_back(double(float(base[i][1] + 0.3 * std::cos(2.3 * f + 2 * i))));
      fr.z.push_back(double(float(base[i][2] + 0.2 * std::sin(0.9 * f - i))));
    }
    fr.index = f;
  }
  return out;
}

void write_dcd(const std::filesystem::path& p, const std::vector<io::TrajectoryFrame>& frames) {
  io::DcdWriter w(p, frames.front().size(), long(frames.size()));
  for (const auto& f : frames) w.write(f);
  w.close();
}

// The float64 values of a .npy file (format 1.0 or 2.0, little-endian '<f8', as pairwise writes
// double maps): the header's length, then the data.
std::vector<double> npy_values(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 12 || bytes.compare(1, 5, "NUMPY") != 0) return {};
  const bool v1 = bytes[6] == 1;
  const std::size_t header =
      v1 ? std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8
         : std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8 |
               std::size_t(std::uint8_t(bytes[10])) << 16 |
               std::size_t(std::uint8_t(bytes[11])) << 24;
  const std::size_t start = (v1 ? 10 : 12) + header;
  if (bytes.find("'<f8'") >= start || start > bytes.size()) return {};
  std::vector<double> values((bytes.size() - start) / sizeof(double));
  std::memcpy(values.data(), bytes.data() + start, values.size() * sizeof(double));
  return values;
}

// Same size, and every value within `relative` (relative to max(1, |a|)); 0: bitwise equal.
void expect_same_maps(const std::filesystem::path& a, const std::filesystem::path& b,
                      double relative) {
  const auto x = npy_values(a), y = npy_values(b);
  ASSERT_GT(x.size(), 0u) << a;
  ASSERT_EQ(x.size(), y.size()) << a << " vs " << b;
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (relative == 0) {
      ASSERT_EQ(std::memcmp(&x[i], &y[i], sizeof(double)), 0)
          << "value " << i << ": " << x[i] << " vs " << y[i];
    }
    worst = std::max(worst, std::abs(x[i] - y[i]) / std::max(1.0, std::abs(x[i])));
  }
  EXPECT_LE(worst, relative);
  std::printf("largest relative difference from one rank: %.3g\n", worst);
}

std::string potmap_command(const std::filesystem::path& dir) {
  return binary() + " potmap --topology " + PAIRWISE_TEST_DATA + "/potmap-small.pqr" +
         " --trajectory " + (dir / "t.dcd").string() +
         " --cutoff 4 --spacing 0.5 --origin 0,0,0 --counts 16,12,14 --precision double"
         " --backend cpu --exclusion 0.5 ";
}

struct Case {
  std::string name, args;
  int ranks;
  double tolerance;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class PotmapFramesRanks : public ::testing::TestWithParam<Case> {};

TEST_P(PotmapFramesRanks, MapMatchesOneRank) {
  const Case c = GetParam();
  const auto dir = fresh_dir("potmap-frames-" + c.name);
  write_dcd(dir / "t.dcd", moving_frames(7));
  const std::string common = potmap_command(dir) + c.args + " -o ";
  const Result a = shell(common + (dir / "one.npy").string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = shell(mpirun(c.ranks) + common + (dir / "many.npy").string());
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(c.ranks) + " ranks (MPI"), std::string::npos) << b.output;
  EXPECT_NE(b.output.find("frames across ranks"), std::string::npos) << b.output;
  expect_same_maps(dir / "one.npy", dir / "many.npy", c.tolerance);
}

INSTANTIATE_TEST_SUITE_P(
    Mpi, PotmapFramesRanks,
    ::testing::Values(Case{"average_7_frames_3_ranks", "--combine avg", 3, 1e-12},
                      Case{"average_7_frames_2_ranks", "--combine avg", 2, 1e-12},
                      Case{"minimum_7_frames_3_ranks", "--combine min", 3, 0.0},
                      Case{"maximum_7_frames_2_ranks", "--combine max", 2, 0.0},
                      // frames 1 and 2 only: rank 2 of 3 maps none
                      Case{"minimum_2_frames_3_ranks", "--combine min --frames 1:2", 3, 0.0},
                      Case{"average_2_frames_3_ranks", "--frames 1:2", 3, 1e-12},
                      // frames 1, 3, 5 (skipped frames between the ranks' frames)
                      Case{"maximum_stride_3_ranks", "--combine max --frames 1::2", 3, 0.0}),
    [](const auto& info) { return info.param.name; });

TEST(PotmapFramesMpi, BadFrameOnOneRankEndsEveryRank) {
  const auto dir = fresh_dir("potmap-frames-bad");
  auto frames = moving_frames(7);
  frames[5].y[3] = std::nan("");  // frame 5: rank 2 of 3 maps it; the others skip it
  write_dcd(dir / "t.dcd", frames);
  const Result r = shell(mpirun(3) + potmap_command(dir) + "-o " + (dir / "m.dx").string(), 60);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "hang: " << r.output;
  EXPECT_NE(r.output.find("not finite"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("frame 5"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(rank 2 of 3)"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "m.dx"));
}

}  // namespace
}  // namespace pairwise::mpitest
