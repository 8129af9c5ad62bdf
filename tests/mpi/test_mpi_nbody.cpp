// nbody on 2 and 3 ranks (target blocks of the forces, all-gathered; block steps split the active
// list) gives the 1-rank energies and final state within 1e-12 relative, for leapfrog, shared-step
// Hermite and block steps, with N = 7 (3, 2, 2 targets per rank on 3) and N = 64.
#include <unistd.h>

#include "mpi_run.hpp"

namespace pairwise::mpitest {
namespace {

std::string integrator_keys(const std::string& integrator) {
  if (integrator == "leapfrog") return "integrator = \"leapfrog\"\ndt = 0.0078125\n";
  if (integrator == "hermite") return "integrator = \"hermite\"\ndt = 0.0078125\n";
  return "integrator = \"hermite_block\"\neta = 0.02\ndt_max = 0.0625\n";
}

std::filesystem::path write_problem(const std::filesystem::path& dir, const std::string& integrator,
                                    int n) {
  const auto file = dir / "cluster.toml";
  std::ofstream out(file);
  out << "workload = \"nbody\"\n[system]\ninitial = \"plummer\"\nn = " << n
      << "\nseed = 3\neps = 0.05\n[integrator]\n"
      << integrator_keys(integrator)
      << "[run]\nt_end = 0.25\nbackend = \"cpu\"\nprecision = \"double\"\n"
         "[output]\ninterval = 0.0625\n";
  return file;
}

struct Case {
  std::string integrator;
  int n;
  int ranks;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.integrator << " n = " << c.n << " on " << c.ranks << " ranks";
}

class NbodyRanks : public ::testing::TestWithParam<Case> {};

TEST_P(NbodyRanks, EnergiesAndFinalStateMatchOneRank) {
  const Case c = GetParam();
  const std::string tag = c.integrator + "-" + std::to_string(c.n) + "-" + std::to_string(c.ranks);
  const auto one = fresh_dir("nbody-1-" + tag), many = fresh_dir("nbody-p-" + tag);
  const auto problem = write_problem(one, c.integrator, c.n);
  const Result a = shell(binary() + " run " + problem.string() + " --output " + one.string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b =
      shell(mpirun(c.ranks) + binary() + " run " + problem.string() + " --output " + many.string());
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(c.ranks) + " ranks (MPI"), std::string::npos) << b.output;
  expect_same_csv(one / "cluster.csv", many / "cluster.csv", 1e-12, {"wall_s"});
  expect_same_numbers(one / "cluster.final.txt", many / "cluster.final.txt", 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Mpi, NbodyRanks,
                         ::testing::Values(Case{"leapfrog", 7, 3}, Case{"leapfrog", 64, 2},
                                           Case{"hermite", 7, 3}, Case{"hermite", 64, 2},
                                           Case{"hermite_block", 7, 3},
                                           Case{"hermite_block", 64, 2},
                                           Case{"hermite_block", 64, 3}),
                         [](const auto& info) {
                           return info.param.integrator + "_n" + std::to_string(info.param.n) +
                                  "_ranks" + std::to_string(info.param.ranks);
                         });

}  // namespace
}  // namespace pairwise::mpitest
