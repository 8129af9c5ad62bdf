// nbody on the cuda backend across ranks (ranked_kernel.hpp, cuda_ranks.hpp) against one rank on
// the same GPU: single precision with the Newton-3 path forced (the ranks share the pair tiles and
// sum their partial forces on the device), double precision (target blocks of the split path, rows
// all-gathered), and block steps (the active list split). Skipped without a CUDA device. Several
// ranks on one GPU take the MPI fallback of the GPU collectives (NCCL refuses that), so this runs
// on a one-GPU machine; with a GPU per rank it takes NCCL where it loads.
//
// Tolerances: double within 1e-12 relative (every target's sum is the same sum in another order);
// single within 1e-5 (the float partial sums that a warp adds to the exact words are grouped
// differently when its chunk of tiles starts elsewhere: forces agree to float rounding, ~1e-7).
#include <unistd.h>

#include "mpi_run.hpp"
#include "pairwise/backend.hpp"

namespace pairwise::mpitest {
namespace {

struct CudaCase {
  std::string integrator;
  std::string precision;
  int ranks;
};
void PrintTo(const CudaCase& c, std::ostream* os) {
  *os << c.integrator << " " << c.precision << " on " << c.ranks << " ranks";
}

std::filesystem::path write_cuda_problem(const std::filesystem::path& dir, const CudaCase& c) {
  const auto file = dir / "cluster.toml";
  std::ofstream out(file);
  out << "workload = \"nbody\"\n[system]\ninitial = \"plummer\"\nn = 2048\nseed = 5\neps = 0.05\n"
      << "[integrator]\n";
  if (c.integrator == "hermite_block")
    out << "integrator = \"hermite_block\"\neta = 0.02\ndt_max = 0.03125\n";
  else
    out << "integrator = \"" << c.integrator << "\"\ndt = 0.0078125\n";
  out << "[run]\nt_end = 0.125\nbackend = \"cuda\"\nprecision = \"" << c.precision << "\"\n"
      << "[output]\ninterval = 0.03125\n";
  return file;
}

class NbodyCudaRanks : public ::testing::TestWithParam<CudaCase> {};

TEST_P(NbodyCudaRanks, CudaEnergiesAndFinalStateMatchOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const CudaCase c = GetParam();
  // Single precision: the Newton-3 path for every full evaluation, also at this small N (whose
  // pair tiles the ranks then share).
  setenv("PAIRWISE_CUDA_NEWTON3", "1", 1);
  const std::string tag = c.integrator + "-" + c.precision + "-" + std::to_string(c.ranks);
  const auto one = fresh_dir("nbody-cuda-1-" + tag), many = fresh_dir("nbody-cuda-p-" + tag);
  const auto problem = write_cuda_problem(one, c);
  const Result a = shell(binary() + " run " + problem.string() + " --output " + one.string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b =
      shell(mpirun(c.ranks) + binary() + " run " + problem.string() + " --output " + many.string());
  unsetenv("PAIRWISE_CUDA_NEWTON3");
  ASSERT_EQ(b.code, 0) << b.output;
  EXPECT_NE(b.output.find(std::to_string(c.ranks) + " ranks (MPI"), std::string::npos) << b.output;
  const bool single = c.precision == "single";
  if (single && c.integrator != "hermite_block") {  // full evaluations: shared Newton-3 tiles
    EXPECT_NE(b.output.find("pair tiles shared"), std::string::npos) << b.output;
  }
  const double tolerance = single ? 1e-5 : 1e-12;
  // dE/E0 and |p| are differences of nearly equal numbers (their rounding differs); steps of
  // block steps may differ when a float force moves a particle across a level (single).
  std::vector<std::string> skip = {"wall_s", "dE/E0", "|p|"};
  if (single) skip.push_back("steps");
  expect_same_csv(one / "cluster.csv", many / "cluster.csv", tolerance, skip);
  expect_same_numbers(one / "cluster.final.txt", many / "cluster.final.txt", tolerance);
}

INSTANTIATE_TEST_SUITE_P(
    Mpi, NbodyCudaRanks,
    ::testing::Values(CudaCase{"leapfrog", "single", 2}, CudaCase{"hermite", "single", 2},
                      CudaCase{"hermite", "single", 3}, CudaCase{"hermite_block", "single", 2},
                      CudaCase{"leapfrog", "double", 2}, CudaCase{"hermite", "double", 3},
                      CudaCase{"hermite_block", "double", 2}),
    [](const auto& info) {
      return info.param.integrator + "_" + info.param.precision + "_ranks" +
             std::to_string(info.param.ranks);
    });

}  // namespace
}  // namespace pairwise::mpitest
