// md on 2 and 3 ranks (spatial domain decomposition: ghosts within rc + skin, migration, global
// rebuild test, thermo reduced) gives the 1-rank thermo within 1e-10 relative in double over 100
// steps of LAMMPS's in.lj (tests/data/lj32k-*, the external reproduction); 7 atoms on 3 ranks
// with one domain empty, atoms crossing the periodic boundary and migrating into the empty domain;
// a domain thinner than the cutoff plus skin is a clear error.
#include <unistd.h>

#include "md_problems.hpp"

namespace pairwise::mpitest {
namespace {

class MdLammpsRanks : public ::testing::TestWithParam<int> {};

TEST_P(MdLammpsRanks, InLjThermoMatchesOneRank) {
  expect_thermo_matches(lammps_in_lj(), "in-lj-" + std::to_string(GetParam()), GetParam(), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Mpi, MdLammpsRanks, ::testing::Values(2, 3));

TEST(MdMpi, FourRanksCutTwoAxesAndMatchOneRank) {
  // 1x2x2 domains: ghosts of the y stage travel on in the z stage (edges of the domains).
  expect_thermo_matches(lammps_in_lj(40), "in-lj-4", 4, 1e-10);
}

class MdSevenAtoms : public ::testing::TestWithParam<std::string> {};

TEST_P(MdSevenAtoms, ThreeRanksWithAnEmptyDomainMatchOneRank) {
  const auto dir = fresh_dir("md-seven-input-" + GetParam());
  expect_thermo_matches(seven_atoms(dir, GetParam()), "seven-" + GetParam(), 3, 1e-10);
}

// none: plain velocity Verlet; langevin, andersen: the random streams are keyed by atom id, so they
// do not depend on which rank holds an atom.
INSTANTIATE_TEST_SUITE_P(Mpi, MdSevenAtoms, ::testing::Values("none", "langevin", "andersen"),
                         [](const auto& info) { return info.param; });

TEST(MdMpi, FinalStateOfSevenAtomsMatchesOneRank) {
  const auto dir = fresh_dir("md-seven-final");
  const std::string problem = seven_atoms(dir, "none");
  const auto one = fresh_dir("md-seven-final-1"), many = fresh_dir("md-seven-final-3");
  const auto file = write_file(dir / "md.toml", problem);
  ASSERT_EQ(shell(binary() + " run " + file.string() + " --output " + one.string()).code, 0);
  const Result b =
      shell(mpirun(3) + binary() + " run " + file.string() + " --output " + many.string());
  ASSERT_EQ(b.code, 0) << b.output;
  expect_same_numbers(one / "final.data", many / "final.data", 1e-10);
}

TEST(MdMpi, DomainThinnerThanCutoffIsAClearError) {
  // thin_fcc: 2.24σ slabs on 3 ranks, 3.36σ on 2.
  expect_thin_domain_is_a_clear_error("cpu");
}

TEST(MdMpi, BlowUpOnThreeRanksIsAClearError) {
  expect_blow_up_is_a_clear_error("cpu", 3);
}

// A custom pair style across ranks is refused on every rank (the domain engine once computed it as
// no interaction: E_pair 0).
TEST(MdMpi, CustomPairStyleIsAClearError) {
  const auto dir = fresh_dir("md-custom");
  const Result r = shell(mpirun(2) + binary() + " run " + std::string(PAIRWISE_SOURCE_DIR) +
                             "/examples/custom-lj.toml --backend cpu --set integrator.steps=5 "
                             "--output " +
                             dir.string(),
                         60);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "the ranks hung:\n" << r.output;
  EXPECT_NE(r.output.find("custom pair styles (formulas, tables) run on one rank only"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace pairwise::mpitest
