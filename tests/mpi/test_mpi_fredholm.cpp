// fredholm on 2 and 3 ranks (row blocks of the product, all-gathered; the solvers' vectors in row
// blocks, dot products reduced) gives the 1-rank solution within 1e-12 for every method; a rank
// with bad input ends every rank with the message, never a hang. With a GPU, the same on the cuda
// backend.
#include <unistd.h>

#include <tuple>

#include "mpi_run.hpp"
#include "pairwise/backend.hpp"

namespace pairwise::mpitest {
namespace {

const std::string kProblem =
    std::string(PAIRWISE_SOURCE_DIR) + "/examples/fredholm-helmholtz3d.toml";

Result solve(const std::string& launcher, const std::filesystem::path& dir,
             const std::string& method) {
  return shell(launcher + binary() + " fredholm " + kProblem +
               " --backend cpu --precision double --n 7 --method " + method + " --output " +
               dir.string());
}

class FredholmRanks : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(FredholmRanks, SolutionMatchesOneRank) {
  const auto [ranks, method] = GetParam();
  const std::string tag = method + "-" + std::to_string(ranks);
  const auto one = fresh_dir("fredholm-1-" + tag), many = fresh_dir("fredholm-p-" + tag);
  const Result a = solve("", one, method);
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = solve(mpirun(ranks), many, method);
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(ranks) + " ranks (MPI"), std::string::npos) << b.output;
  expect_same_numbers(one / "fredholm-helmholtz3d.nodes.csv",
                      many / "fredholm-helmholtz3d.nodes.csv", 1e-12);
  // Rank 0 alone wrote: no temporary files of other ranks are left.
  for (const auto& entry : std::filesystem::directory_iterator(many))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << entry.path();
}

// GMRES and the fixed-point iteration keep each rank's rows of their vectors and reduce their dot
// products; the direct solver runs on every rank.
INSTANTIATE_TEST_SUITE_P(Mpi, FredholmRanks,
                         ::testing::Combine(::testing::Values(2, 3),
                                            ::testing::Values("gmres", "fixed_point", "direct")),
                         [](const auto& info) {
                           return std::get<1>(info.param) + "_ranks" +
                                  std::to_string(std::get<0>(info.param));
                         });

TEST(FredholmMpi, OneRankWithBadInputEndsEveryRank) {
  // Ranks 0 and 1 get a good problem and wait in the product's all-gather; rank 2 gets a bad key.
  const auto dir = fresh_dir("fredholm-bad");
  const auto bad = dir / "bad.toml";
  {
    std::ifstream in(kProblem);
    std::ofstream out(bad);
    out << in.rdbuf() << "\n[extra]\nnot_a_key = 1\n";
  }
  const std::string args = " fredholm --backend cpu --n 7 --output " + dir.string() + " ";
  const Result r = shell(
      mpirun(2) + binary() + args + kProblem + " : -np 1 " + binary() + args + bad.string(), 60);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.code, 124) << "the ranks hung:\n" << r.output;
  EXPECT_NE(r.output.find("error: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(rank 2 of 3)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pairwise::mpitest

namespace pairwise::mpitest {
namespace {

// The cuda backend across ranks (row_block_matvec.hpp with DeviceRows): the product's rows and the
// solvers' x all-gathered on the GPUs (several ranks on one GPU: the MPI fallback of the GPU
// collectives). Double precision: each row is the same sum in the same or another order (the
// plan depends on the number of rows), so within 1e-12 of one rank. Skipped without a GPU.
class FredholmCudaRanks : public ::testing::TestWithParam<std::tuple<int, std::string>> {};

TEST_P(FredholmCudaRanks, CudaSolutionMatchesOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  // Named copies, not a structured binding: lambdas capture bindings only from C++20 compilers
  // newer than the fuzz preset's clang 14.
  const int ranks = std::get<0>(GetParam());
  const std::string method = std::get<1>(GetParam());
  const std::string tag = method + "-" + std::to_string(ranks);
  const auto one = fresh_dir("fredholm-cuda-1-" + tag), many = fresh_dir("fredholm-cuda-p-" + tag);
  auto run = [&](const std::string& launcher, const std::filesystem::path& dir) {
    return shell(launcher + binary() + " fredholm " + kProblem +
                 " --backend cuda --precision double --n 9 --method " + method + " --output " +
                 dir.string());
  };
  const Result a = run("", one);
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = run(mpirun(ranks), many);
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find("all-gathered on the GPUs"), std::string::npos) << b.output;
  expect_same_numbers(one / "fredholm-helmholtz3d.nodes.csv",
                      many / "fredholm-helmholtz3d.nodes.csv", 1e-12);
}

// A real kernel (e^{ts}, the benchmark's) with 64 nodes on 3 ranks: blocks of 22, 21, 21 (the
// device all-gather pads them to 22).
TEST(FredholmCudaMpi, CudaRealKernelUnequalBlocksMatchOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const std::string problem = std::string(PAIRWISE_SOURCE_DIR) + "/examples/fredholm-smooth.toml";
  const auto one = fresh_dir("fredholm-cuda-real-1"), many = fresh_dir("fredholm-cuda-real-3");
  auto run = [&](const std::string& launcher, const std::filesystem::path& dir) {
    return shell(launcher + binary() + " fredholm " + problem +
                 " --backend cuda --precision double --n 64 --method gmres --output " +
                 dir.string());
  };
  const Result a = run("", one);
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = run(mpirun(3), many);
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find("all-gathered on the GPUs"), std::string::npos) << b.output;
  expect_same_numbers(one / "fredholm-smooth.nodes.csv", many / "fredholm-smooth.nodes.csv", 1e-12);
}

INSTANTIATE_TEST_SUITE_P(Mpi, FredholmCudaRanks,
                         ::testing::Combine(::testing::Values(2, 3),
                                            ::testing::Values("gmres", "fixed_point")),
                         [](const auto& info) {
                           return std::get<1>(info.param) + "_ranks" +
                                  std::to_string(std::get<0>(info.param));
                         });

}  // namespace
}  // namespace pairwise::mpitest
