// potmap trajectories on 2 and 3 ranks (frames across ranks: selected frame k on rank k mod P, the
// ranks' partial sums, minima or maxima all-reduced, rank 0 writes) give the 1-rank map: the
// average within 1e-12 (relative to max(1, |value|); the sum's order differs), the minimum and
// maximum exactly. 7 frames on 3 ranks (3, 2, 2), 2 frames on 3 ranks (rank 2 maps none), a
// stride; a bad frame that only rank 2 reads ends every rank with the message and no map.
#include <cmath>
#include <cstdio>

#include "mpi_run.hpp"
#include "potmap_maps.hpp"

namespace pairwise::mpitest {
namespace {

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
