// md on 2 and 3 ranks (spatial domain decomposition: ghosts within rc + skin, migration, global
// rebuild test, thermo reduced) gives the 1-rank thermo within 1e-10 relative in double over 100
// steps of LAMMPS's in.lj (tests/data/lj32k-*, the external reproduction); 7 atoms on 3 ranks
// with one domain empty, atoms crossing the periodic boundary and migrating into the empty domain;
// a domain thinner than the cutoff plus skin is a clear error.
#include <unistd.h>

#include "mpi_run.hpp"

namespace pairwise::mpitest {
namespace {

std::filesystem::path write_file(const std::filesystem::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

// Runs `problem` alone and on `ranks`, and compares the thermo CSV (timings and the engine's own
// rebuild count left out).
void expect_thermo_matches(const std::string& problem_text, const std::string& tag, int ranks,
                           double relative) {
  const auto one = fresh_dir("md-1-" + tag), many = fresh_dir("md-p-" + tag);
  const auto problem = write_file(one / "md.toml", problem_text);
  const Result a = shell(binary() + " run " + problem.string() + " --output " + one.string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b =
      shell(mpirun(ranks) + binary() + " run " + problem.string() + " --output " + many.string());
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(ranks) + " ranks (MPI"), std::string::npos) << b.output;
  EXPECT_NE(b.output.find("atoms per rank"), std::string::npos) << b.output;
  expect_same_csv(one / "md.csv", many / "md.csv", relative, {"wall_s", "Rebuilds"});
}

std::string lammps_in_lj(int steps = 100) {
  return "workload = \"md\"\n[system]\ndata_file = \"" + std::string(PAIRWISE_TEST_DATA) +
         "/lj32k-initial.data.gz\"\n[force_field]\nstyle = \"cut\"\ncutoff = 2.5\n"
         "[neighbor]\nskin = 0.3\n[integrator]\ndt = 0.005\nsteps = " +
         std::to_string(steps) +
         "\n"
         "[run]\nbackend = \"cpu\"\nprecision = \"double\"\n"
         "[output]\nthermo_every = 10\nprogress = false\n";
}

class MdLammpsRanks : public ::testing::TestWithParam<int> {};

TEST_P(MdLammpsRanks, InLjThermoMatchesOneRank) {
  expect_thermo_matches(lammps_in_lj(), "in-lj-" + std::to_string(GetParam()), GetParam(), 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Mpi, MdLammpsRanks, ::testing::Values(2, 3));

TEST(MdMpi, FourRanksCutTwoAxesAndMatchOneRank) {
  // 1x2x2 domains: ghosts of the y stage travel on in the z stage (edges of the domains).
  expect_thermo_matches(lammps_in_lj(40), "in-lj-4", 4, 1e-10);
}

// 7 atoms in a 9σ box, all below z = 6: on 3 ranks (domains 1x1x3, 3σ thick) the top domain starts
// empty; the atom at z = 4.4 moving up at 2.5 σ/τ migrates into it, the one at z = 0.2 interacts
// across the periodic boundary.
std::string seven_atoms(const std::filesystem::path& dir, const std::string& thermostat) {
  write_file(dir / "seven.data",
             "seven atoms\n\n7 atoms\n1 atom types\n\n0 9 xlo xhi\n0 9 ylo yhi\n0 9 zlo zhi\n\n"
             "Masses\n\n1 1.0\n\nPair Coeffs\n\n1 1.0 1.0\n\nAtoms # atomic\n\n"
             "1 1 4.0 4.0 1.0 0 0 0\n2 1 5.1 4.0 1.0 0 0 0\n3 1 4.0 5.1 1.0 0 0 0\n"
             "4 1 4.0 4.0 2.1 0 0 0\n5 1 5.1 5.1 2.1 0 0 0\n6 1 4.5 4.5 4.4 0 0 0\n"
             "7 1 4.6 4.6 0.2 0 0 0\n\nVelocities\n\n"
             "1 0.3 -0.2 0.1\n2 -0.4 0.1 0.0\n3 0.2 0.5 -0.3\n4 -0.1 -0.1 0.2\n"
             "5 0.0 0.3 -0.4\n6 0.1 0.0 2.5\n7 0.2 -0.3 -0.6\n");
  return "workload = \"md\"\n[system]\ndata_file = \"" + (dir / "seven.data").string() +
         "\"\n[force_field]\nstyle = \"shift\"\ncutoff = 2.5\n[neighbor]\nskin = 0.3\n"
         "[integrator]\ndt = 0.005\nsteps = 200\nthermostat = \"" +
         thermostat + "\"\n" + (thermostat == "none" ? "" : "temperature = 1.0\n") +
         "[run]\nbackend = \"cpu\"\nprecision = \"double\"\n"
         "[output]\nthermo_every = 20\nprogress = false\nfinal_data = \"final.data\"\n";
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
  // fcc 4x4x4 cells at ρ = 0.8442: a 6.72σ box; 3 ranks would cut 2.24σ slabs < rc + skin = 2.8σ.
  const auto dir = fresh_dir("md-thin");
  const auto problem =
      write_file(dir / "thin.toml",
                 "workload = \"md\"\n[system]\nlattice = \"fcc\"\ncells = \"4 4 4\"\n[integrator]\n"
                 "steps = 10\n[run]\nbackend = \"cpu\"\n[output]\nprogress = false\n");
  const Result r =
      shell(mpirun(3) + binary() + " run " + problem.string() + " --output " + dir.string(), 60);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "the ranks hung:\n" << r.output;
  EXPECT_NE(r.output.find("thinner than the cutoff plus skin"), std::string::npos) << r.output;
  // Two ranks fit (3.36σ slabs).
  const Result two =
      shell(mpirun(2) + binary() + " run " + problem.string() + " --output " + dir.string(), 60);
  EXPECT_EQ(two.code, 0) << two.output;
}

}  // namespace
}  // namespace pairwise::mpitest
