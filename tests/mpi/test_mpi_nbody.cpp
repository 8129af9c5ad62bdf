// nbody on 2 and 3 ranks (target blocks of the forces, all-gathered; block steps split the active
// list) gives the 1-rank energies and final state within 1e-12 relative, for leapfrog, shared-step
// Hermite and block steps, with N = 7 (3, 2, 2 targets per rank on 3) and N = 64; and
// `bench nbody` across ranks runs every case of two sizes to its end with its records.
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

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

// The benchmark across ranks: every force evaluation and block step is a collective, so every rank
// must time the same number of repeats; the second size's repeats derive from the first size's
// rates, which are the slowest rank's (GA and GAJ through RankedGravityKernel::time_compute, the
// block steps through time_block_steps' all-reduce). Two sizes, every precision, on 2 and 3 ranks:
// every case runs to its end and is recorded. At these sizes the repeats sit at their clamps, so
// the test covers the benchmark's path across ranks but cannot provoke the ranks' rounding apart
// that hung 2 H200s at N = 4,194,304 (that needs seconds a case).
TEST(NbodyBenchRanks, EveryCaseOfEverySizeRunsOnEveryRankAndIsRecorded) {
  for (const int ranks : {2, 3}) {
    const auto dir = fresh_dir("nbody-bench-" + std::to_string(ranks));
    const auto json = dir / "nbody.json";
    const Result r =
        shell(mpirun(ranks) + binary() +
              " bench nbody --backend cpu --sizes 48,96 --repeats 3 --json " + json.string());
    ASSERT_EQ(r.code, 0) << r.output;
    std::ifstream in(json);
    ASSERT_TRUE(in) << json;
    const nlohmann::json doc = nlohmann::json::parse(in);
    const nlohmann::json& records = doc.is_array() ? doc : doc.at("records");
    std::set<std::string> seen;
    for (const auto& rec : records) {
      EXPECT_EQ(rec.at("params").at("ranks").get<int>(), ranks) << rec.dump();
      EXPECT_GT(rec.at("value").get<double>(), 0) << rec.dump();
      seen.insert(rec.at("case").get<std::string>() + "/" + rec.at("precision").get<std::string>() +
                  "/" + std::to_string(rec.at("n").get<long>()));
    }
    for (const char* c : {"GA", "GAJ", "block-1pct"})
      for (const char* prec : {"single", "mixed", "double"})
        for (const int n : {48, 96})
          EXPECT_EQ(seen.count(std::string(c) + "/" + prec + "/" + std::to_string(n)), 1u)
              << c << " " << prec << " N = " << n << " on " << ranks << " ranks\n"
              << r.output;
  }
}

}  // namespace
}  // namespace pairwise::mpitest
