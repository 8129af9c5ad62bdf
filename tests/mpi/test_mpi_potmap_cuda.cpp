// potmap on the cuda backend across ranks against one rank on the same GPU: the slabs of x-planes
// all-gathered on the GPUs (cuda_map_across_ranks: blocks padded to the largest slab, in place,
// through GpuCollectives), and trajectory frames across ranks (each rank's partial map summed on
// its GPU, the ranks' partial maps all-reduced through host MPI). Skipped without a CUDA device.
// Several ranks on one GPU take the MPI fallback of the GPU collectives (NCCL refuses two ranks on
// one GPU), so this runs on a one-GPU machine; with a GPU per rank it takes NCCL where it loads.
//
// Tolerances: double within 1e-12 relative to max(1, |value|) (a slab's atoms are binned from the
// slab's origin, so each point's sum runs in another order); single within 1e-3 (float sums in
// another order: terms of up to ~450 kT/e each rounded to 6e-8 relative, over hundreds of atoms
// with cancellation; measured 3.05e-4 on the H200, against the 0.0087 single-precision bound of
// the maps vs the double reference); the minimum and maximum of frames exactly (each frame's map is
// the same computation on every rank count).
#include <cmath>

#include "mpi_run.hpp"
#include "pairwise/backend.hpp"
#include "potmap_maps.hpp"

namespace pairwise::mpitest {
namespace {

struct Case {
  std::string name, args;
  int ranks;
  double tolerance;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class PotmapCudaRanks : public ::testing::TestWithParam<Case> {};

TEST_P(PotmapCudaRanks, CudaMapMatchesOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const Case c = GetParam();
  const auto dir = fresh_dir("potmap-cuda-" + c.name);
  const std::string common = binary() + " potmap --water-box 14 --seed 3 --backend cuda " +
                             "--exclusion 1 " + c.args + " -o ";
  const Result a = shell(common + (dir / "one.npy").string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = shell(mpirun(c.ranks) + common + (dir / "many.npy").string());
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(c.ranks) + " ranks (MPI"), std::string::npos) << b.output;
  EXPECT_NE(b.output.find("all-gathered on the GPUs"), std::string::npos) << b.output;
  expect_same_maps(dir / "one.npy", dir / "many.npy", c.tolerance);
}

INSTANTIATE_TEST_SUITE_P(
    Mpi, PotmapCudaRanks,
    ::testing::Values(
        // 37 planes on 3 ranks: slabs of 13, 12, 12 planes, padded to 13 in the all-gather
        Case{"cutoff_unequal_slabs_3_ranks",
             "--precision double --cutoff 8 --spacing 0.5 --origin -2,-2,-2 --counts 37,30,30", 3,
             1e-12},
        Case{"cutoff_default_lattice_2_ranks", "--precision double --cutoff 8 --spacing 0.7", 2,
             1e-12},
        Case{"direct_3_ranks", "--precision double --spacing 0.7", 3, 1e-12},
        // single: slabs of 16 planes (8 Å, whole regions and bins), so each point sums the same
        // atoms, in another order
        Case{"single_cutoff_2_ranks",
             "--precision single --cutoff 8 --spacing 0.5 --origin -2,-2,-2 --counts 32,28,28", 2,
             1e-3},
        // 2 planes on 3 ranks: rank 2 owns none (its block is all padding)
        Case{"two_planes_three_ranks",
             "--precision double --cutoff 6 --spacing 0.5 --origin 3,0,0 --counts 2,20,20", 3,
             1e-12}),
    [](const auto& info) { return info.param.name; });

// Frames across ranks on the cuda backend: 7 frames (DCD) of a 6-atom topology on 3 ranks.
TEST(PotmapCudaFramesMpi, CudaFramesMatchOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const auto dir = fresh_dir("potmap-cuda-frames");
  write_dcd(dir / "t.dcd", moving_frames(7));
  const std::string common = binary() + " potmap --topology " + PAIRWISE_TEST_DATA +
                             "/potmap-small.pqr --trajectory " + (dir / "t.dcd").string() +
                             " --cutoff 4 --spacing 0.5 --origin 0,0,0 --counts 16,12,14"
                             " --precision double --backend cuda --exclusion 0.5 ";
  for (const char* combine : {"avg", "min"}) {
    const std::string tag = combine;
    const Result a = shell(common + "--combine " + tag + " -o " + (dir / (tag + "1.npy")).string());
    ASSERT_EQ(a.code, 0) << a.output;
    const Result b =
        shell(mpirun(3) + common + "--combine " + tag + " -o " + (dir / (tag + "3.npy")).string());
    ASSERT_EQ(b.code, 0) << b.output;
    EXPECT_NE(b.output.find("frames across ranks"), std::string::npos) << b.output;
    expect_same_maps(dir / (tag + "1.npy"), dir / (tag + "3.npy"), tag == "avg" ? 1e-12 : 0.0);
  }
}

}  // namespace
}  // namespace pairwise::mpitest
