// potmap on 2 and 3 ranks (slabs of x-planes, atoms that reach each slab only, all-gathered) gives
// the 1-rank map within 1e-12 (relative to max(1, |value|)), with cutoff and direct summation,
// and with more ranks than the 2 x-planes of a thin lattice (a rank with an empty slab).
#include <unistd.h>

#include "mpi_run.hpp"

namespace pairwise::mpitest {
namespace {

struct Case {
  std::string name, args;
  int ranks;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class PotmapRanks : public ::testing::TestWithParam<Case> {};

TEST_P(PotmapRanks, MapMatchesOneRank) {
  const Case c = GetParam();
  const auto dir = fresh_dir("potmap-" + c.name);
  const std::string common = binary() + " potmap --water-box 14 --seed 3 --backend cpu " +
                             "--precision double --exclusion 1 " + c.args + " -o ";
  const Result a = shell(common + (dir / "one.dx").string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = shell(mpirun(c.ranks) + common + (dir / "many.dx").string());
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(c.ranks) + " ranks (MPI"), std::string::npos) << b.output;
  expect_same_numbers(dir / "one.dx", dir / "many.dx", 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    Mpi, PotmapRanks,
    ::testing::Values(Case{"cutoff_exact_lattice",
                           "--cutoff 8 --spacing 0.5 --origin -2,-2,-2 --counts 36,30,30", 3},
                      Case{"cutoff_default_lattice", "--cutoff 8 --spacing 0.7 --padding 2", 2},
                      Case{"direct", "--spacing 0.7 --padding 2", 3},
                      Case{"two_planes_three_ranks",
                           "--cutoff 6 --spacing 0.5 --origin 3,0,0 --counts 2,20,20", 3}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace pairwise::mpitest
