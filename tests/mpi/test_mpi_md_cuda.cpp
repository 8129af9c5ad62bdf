// md on the cuda backend across ranks (the cuda domain engine, src/md/cuda_domain_engine.cu)
// against one rank's cuda engine and the cpu domain engine on as many ranks: LAMMPS's in.lj
// (tests/data/lj32k-*) in double over 100 steps on 2 and 3 ranks within 1e-10 relative, and over
// 40 steps on 4 (1x2x2) and 8 (2x2x2) ranks; 7 atoms on 3 ranks (one domain empty at the start,
// an atom migrating into it, one interacting across the periodic boundary) with no thermostat,
// Langevin and Andersen (random streams keyed by atom id and step) within 1e-10, and their final
// data files; single and mixed precision on 2 ranks against one rank of the same precision (float
// pair terms summed in another order: 1e-4 over 20 steps); a neighbour capacity that overflows;
// a blow-up, and a domain thinner than the cutoff plus skin, ending every rank with the clear
// error; the overlapped ghost exchange bit for bit as the plain step; the batched steps (rebuild
// test on the device) bit for bit as the per-step host test; the device ghost stages and the
// counting-sort cell lists bit for bit as the host stages and the radix sort; mixed's float list
// tests and fixed-point rebuild test bit for bit as the double ones. Skipped without a CUDA device.
// Ranks sharing one GPU take GpuCollectives' MPI fallback (NCCL refuses two ranks on a GPU), so
// this runs on a one-GPU machine.
#include <unistd.h>

#include "md_problems.hpp"
#include "pairwise/backend.hpp"

namespace pairwise::mpitest {
namespace {

class MdCudaRanks : public ::testing::TestWithParam<int> {};

TEST_P(MdCudaRanks, InLjThermoMatchesOneRankAndTheCpuDomainEngine) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const int ranks = GetParam();
  const std::string tag = "cuda-in-lj-" + std::to_string(ranks);
  const MdRun many = expect_thermo_matches(lammps_in_lj(100, "cuda"), tag, ranks, 1e-10);
  EXPECT_NE(many.result.output.find("cuda domains"), std::string::npos) << many.result.output;
  const MdRun cpu = run_md(lammps_in_lj(100, "cpu"), tag + "-cpu", ranks);
  ASSERT_EQ(cpu.result.code, 0) << cpu.result.output;
  expect_same_thermo(cpu, many, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Mpi, MdCudaRanks, ::testing::Values(2, 3));

// 4 ranks (1x2x2 domains: the y stage's ghosts forwarded in the z stage, edges and corners) and 8
// (2x2x2: every axis of two domains, one message each way) against one rank, 40 steps.
class MdCudaManyAxes : public ::testing::TestWithParam<int> {};

TEST_P(MdCudaManyAxes, InLjThermoMatchesOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const int ranks = GetParam();
  const MdRun many = expect_thermo_matches(
      lammps_in_lj(40, "cuda"), "cuda-in-lj-axes-" + std::to_string(ranks), ranks, 1e-10);
  const std::string grid = ranks == 4 ? "cuda domains 1x2x2" : "cuda domains 2x2x2";
  EXPECT_NE(many.result.output.find(grid), std::string::npos) << many.result.output;
}

INSTANTIATE_TEST_SUITE_P(Mpi, MdCudaManyAxes, ::testing::Values(4, 8));

class MdSevenAtomsCuda : public ::testing::TestWithParam<std::string> {};

TEST_P(MdSevenAtomsCuda, ThreeRanksWithAnEmptyDomainMatchOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const auto dir = fresh_dir("md-cuda-seven-input-" + GetParam());
  const std::string problem = seven_atoms(dir, GetParam(), "cuda");
  const MdRun many = expect_thermo_matches(problem, "cuda-seven-" + GetParam(), 3, 1e-10);
  EXPECT_NE(many.result.output.find("cuda domains 1x1x3"), std::string::npos) << many.result.output;
  const MdRun one = run_md(problem, "cuda-seven-again-" + GetParam(), 1);
  ASSERT_EQ(one.result.code, 0) << one.result.output;
  expect_same_numbers(one.dir / "final.data", many.dir / "final.data", 1e-10);
  // And the cpu domain engine on the same 3 ranks.
  const MdRun cpu = run_md(seven_atoms(dir, GetParam(), "cpu"), "cpu-seven-" + GetParam(), 3);
  ASSERT_EQ(cpu.result.code, 0) << cpu.result.output;
  expect_same_thermo(cpu, many, 1e-10);
}

INSTANTIATE_TEST_SUITE_P(Mpi, MdSevenAtomsCuda, ::testing::Values("none", "langevin", "andersen"),
                         [](const auto& info) { return info.param; });

class MdCudaPrecisions : public ::testing::TestWithParam<std::string> {};

TEST_P(MdCudaPrecisions, TwoRanksFollowOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  expect_thermo_matches(lammps_in_lj(20, "cuda", GetParam()), "cuda-in-lj-" + GetParam(), 2, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Mpi, MdCudaPrecisions, ::testing::Values("single", "mixed"),
                         [](const auto& info) { return info.param; });

// A neighbour capacity of 8 (in.lj needs ~75 in the full lists): the lists overflow, grow and are
// built again at set_state and later rebuilds; the thermo still matches one rank.
TEST(MdCudaMpi, NeighbourCapacityOverflowGrowsAndMatchesOneRank) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  std::string problem = lammps_in_lj(30, "cuda");
  const std::string skin = "skin = 0.3\n";
  problem.replace(problem.find(skin), skin.size(), skin + "capacity = 8\n");
  const MdRun many = expect_thermo_matches(problem, "cuda-capacity", 2, 1e-10);
  EXPECT_EQ(many.result.output.find(" 0 regrows"), std::string::npos) << many.result.output;
}

// The overlapped step (PAIRWISE_MD_OVERLAP=1: the forces of the atoms whose lists hold no ghost
// on a second stream while the ghost positions travel, then the others) against the plain one
// (=0): the same per-atom arithmetic, so bit for bit the same thermo in double, on one rank
// (the domain engine, 1x1x1) and on 2 (1x1x2); the local atoms re-sorted every second rebuild
// (PAIRWISE_MD_RESORT=2: both the sorted and the kept order between the rebuilds).
TEST(MdCudaMpi, OverlappedGhostExchangeGivesTheSameTrajectoryBitForBit) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const std::string problem = lammps_in_lj(60, "cuda");
  for (const int ranks : {1, 2}) {
    auto run = [&](const std::string& overlap) {
      const std::string tag = "cuda-overlap-" + overlap + "-" + std::to_string(ranks);
      const auto dir = fresh_dir("md-" + tag);
      const auto file = write_file(dir / "md.toml", problem);
      const std::string env =
          "env PAIRWISE_MD_DOMAINS=1 PAIRWISE_MD_RESORT=2 PAIRWISE_MD_OVERLAP=" + overlap + " ";
      const std::string launch =
          ranks > 1 ? mpirun(ranks) + "-x PAIRWISE_MD_RESORT -x PAIRWISE_MD_OVERLAP " : "";
      return MdRun{dir, shell(env + launch + binary() + " run " + file.string() + " --output " +
                              dir.string())};
    };
    const MdRun off = run("0"), on = run("1");
    ASSERT_EQ(off.result.code, 0) << off.result.output;
    ASSERT_EQ(on.result.code, 0) << on.result.output;
    EXPECT_NE(on.result.output.find("cuda domains"), std::string::npos) << on.result.output;
    EXPECT_NE(on.result.output.find("overlapped"), std::string::npos) << on.result.output;
    EXPECT_EQ(off.result.output.find("overlapped"), std::string::npos) << off.result.output;
    expect_same_thermo(off, on, 0.0);
  }
}

// The ghost stages selected on the device (one domain along the axis: counts read back once)
// and the cell lists by counting sort against the host stages (PAIRWISE_MD_GHOSTS=host: flags,
// DeviceSelect and a host round trip a stage) and cub's radix sort (PAIRWISE_MD_CELL_SORT=radix):
// the same ghosts in the same slots and the same cell order, so bit for bit the same thermo in
// double, on one rank (1x1x1: the domain's own images on every axis), on 2 (1x1x2: z through the
// ranks, both sides to one neighbour), 3 (1x1x3: a side to each neighbour) and 4 (1x2x2: two
// axes through the ranks, the ghosts of y sent on along z), the locals re-sorted every second
// rebuild (the records' counting sort); and with the ghost slots' and the ghost and migration
// messages' estimates at nothing (PAIRWISE_MD_GHOST_SLACK=0: they overflow, grow and every rank
// redoes the ghost stages or the migration). The
// device stages' forward positions in one launch from each ghost's local atom and shifts (the
// default) against a launch a stage (PAIRWISE_MD_FORWARD=stages) and the host stages' forward
// (their send lists, a stage at a time).
TEST(MdCudaMpi, DeviceGhostStagesAndCountingSortGiveTheSameTrajectoryBitForBit) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const std::string problem = lammps_in_lj(60, "cuda");
  for (const int ranks : {1, 2, 3, 4}) {
    auto run = [&](const std::string& name, const std::string& vars) {
      const std::string tag = "cuda-ghosts-" + name + "-" + std::to_string(ranks);
      const auto dir = fresh_dir("md-" + tag);
      const auto file = write_file(dir / "md.toml", problem);
      const std::string env = "env PAIRWISE_MD_DOMAINS=1 PAIRWISE_MD_RESORT=2 " + vars + " ";
      const std::string launch =
          ranks > 1 ? mpirun(ranks) +
                          "-x PAIRWISE_MD_RESORT -x PAIRWISE_MD_GHOSTS -x PAIRWISE_MD_CELL_SORT "
                          "-x PAIRWISE_MD_GHOST_SLACK -x PAIRWISE_MD_FORWARD "
                    : "";
      return MdRun{dir, shell(env + launch + binary() + " run " + file.string() + " --output " +
                              dir.string())};
    };
    const MdRun host = run("host", "PAIRWISE_MD_GHOSTS=host PAIRWISE_MD_CELL_SORT=radix");
    const MdRun device = run("device", "PAIRWISE_MD_GHOSTS=device PAIRWISE_MD_CELL_SORT=counting");
    const MdRun grown = run("grown", "PAIRWISE_MD_GHOST_SLACK=0");
    const MdRun stages = run("stages", "PAIRWISE_MD_FORWARD=stages");
    const char* layout[] = {"", "1x1x1", "1x1x2", "1x1x3", "1x2x2"};
    for (const MdRun* r : {&host, &device, &grown, &stages}) {
      ASSERT_EQ(r->result.code, 0) << r->result.output;
      EXPECT_NE(r->result.output.find(std::string("cuda domains ") + layout[ranks]),
                std::string::npos)
          << r->result.output;
    }
    expect_same_csv(host.dir / "md.csv", device.dir / "md.csv", 0.0, {"wall_s"});
    expect_same_csv(host.dir / "md.csv", grown.dir / "md.csv", 0.0, {"wall_s"});
    expect_same_csv(host.dir / "md.csv", stages.dir / "md.csv", 0.0, {"wall_s"});
  }
}

// Mixed's list build on float candidates (offsets from the shell's corner, the band of r_list
// decided again in double) against the double tests (PAIRWISE_MD_FLOAT_LISTS=0): exactly the
// same lists in the same order; and the rebuild test from the fixed-point copies against the
// double positions' (PAIRWISE_MD_FIXED_X0=0: the displacements within a quantum, 2.6e-9 σ, so the
// same rebuild steps). So bit for bit the same thermo and rebuild counts, on one rank (1x1x1) and
// on 2 (1x1x2).
TEST(MdCudaMpi, MixedFloatListsAndFixedPointTestGiveTheDoubleTrajectoryBitForBit) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const std::string problem = lammps_in_lj(40, "cuda", "mixed");
  for (const int ranks : {1, 2}) {
    auto run = [&](const std::string& name, const std::string& lists, const std::string& x0) {
      const std::string tag = "cuda-float-lists-" + name + "-" + std::to_string(ranks);
      const auto dir = fresh_dir("md-" + tag);
      const auto file = write_file(dir / "md.toml", problem);
      const std::string env = "env PAIRWISE_MD_DOMAINS=1 PAIRWISE_MD_FLOAT_LISTS=" + lists +
                              " PAIRWISE_MD_FIXED_X0=" + x0 + " ";
      const std::string launch =
          ranks > 1 ? mpirun(ranks) + "-x PAIRWISE_MD_FLOAT_LISTS -x PAIRWISE_MD_FIXED_X0 " : "";
      return MdRun{dir, shell(env + launch + binary() + " run " + file.string() + " --output " +
                              dir.string())};
    };
    const MdRun doubles = run("double", "0", "0"), lists = run("lists", "1", "0"),
                both = run("both", "1", "1");
    for (const MdRun* r : {&doubles, &lists, &both}) {
      ASSERT_EQ(r->result.code, 0) << r->result.output;
      EXPECT_NE(r->result.output.find("cuda domains"), std::string::npos) << r->result.output;
    }
    expect_same_csv(doubles.dir / "md.csv", lists.dir / "md.csv", 0.0, {"wall_s"});
    expect_same_csv(doubles.dir / "md.csv", both.dir / "md.csv", 0.0, {"wall_s"});
  }
}

// The batched steps with one domain on every axis (PAIRWISE_MD_BATCH: the rebuild test on the
// device, one download a batch; a test firing inside a batch stops the rest of it) against the
// per-step host test (=1): the same kernels in the same order, so bit for bit the same thermo and
// the same rebuild counts, in double and mixed, and with Langevin and Andersen (7 atoms: the
// random streams keyed by step); batches of 3 (tests firing at every position in a batch) and 8.
TEST(MdCudaMpi, BatchedStepsGiveTheSameTrajectoryAndRebuildsBitForBit) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const auto seven = fresh_dir("md-cuda-batch-seven");
  const std::vector<std::pair<std::string, std::string>> problems = {
      {"double", lammps_in_lj(60, "cuda")},
      {"mixed", lammps_in_lj(40, "cuda", "mixed")},
      {"langevin", seven_atoms(seven, "langevin", "cuda")},
      {"andersen", seven_atoms(seven, "andersen", "cuda")}};
  for (const auto& name_and_problem : problems) {
    // Named references, not a structured binding: clang 14 (the fuzz preset) cannot capture one.
    const std::string& name = name_and_problem.first;
    const std::string& problem = name_and_problem.second;
    auto run = [&](const std::string& batch) {
      const std::string tag = "cuda-batch-" + name + "-" + batch;
      const auto dir = fresh_dir("md-" + tag);
      const auto file = write_file(dir / "md.toml", problem);
      const std::string env = "env PAIRWISE_MD_DOMAINS=1 PAIRWISE_MD_OVERLAP=0 PAIRWISE_MD_BATCH=";
      return MdRun{dir, shell(env + batch + " " + binary() + " run " + file.string() +
                              " --output " + dir.string())};
    };
    const MdRun host = run("1"), three = run("3"), eight = run("8");
    for (const MdRun* r : {&host, &three, &eight}) {
      ASSERT_EQ(r->result.code, 0) << name << "\n" << r->result.output;
      EXPECT_NE(r->result.output.find("cuda domains 1x1x1"), std::string::npos) << r->result.output;
    }
    expect_same_csv(host.dir / "md.csv", three.dir / "md.csv", 0.0, {"wall_s"});
    expect_same_csv(host.dir / "md.csv", eight.dir / "md.csv", 0.0, {"wall_s"});
  }
}

// The batched steps across ranks (PAIRWISE_MD_BATCH_RANKS=1: the rebuild test on the GPUs from the
// ranks' all-gathered top-2, the ghost positions sent with no host wait) against the per-step host
// test of the plain step (=0; both PAIRWISE_MD_OVERLAP=0): the same kernels in the same order, so
// bit for bit the same thermo and rebuild counts; 2 ranks (1x1x2) in double and mixed, 3 ranks
// with an empty domain (7 atoms) with Langevin and Andersen; batches of 3 and 8, and of 8 with the
// overlapped step (PAIRWISE_MD_OVERLAP=1: the interior forces beside the exchange).
TEST(MdCudaMpi, BatchedStepsAcrossRanksGiveTheSameTrajectoryBitForBit) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  const auto seven = fresh_dir("md-cuda-batch-ranks-seven");
  struct Case {
    std::string name, problem;
    int ranks;
  };
  const std::vector<Case> cases = {{"double", lammps_in_lj(60, "cuda"), 2},
                                   {"mixed", lammps_in_lj(40, "cuda", "mixed"), 2},
                                   {"langevin", seven_atoms(seven, "langevin", "cuda"), 3},
                                   {"andersen", seven_atoms(seven, "andersen", "cuda"), 3}};
  for (const Case& c : cases) {
    auto run = [&](const std::string& tag, const std::string& vars) {
      const auto dir = fresh_dir("md-cuda-batch-ranks-" + c.name + "-" + tag);
      const auto file = write_file(dir / "md.toml", c.problem);
      const std::string launch = mpirun(c.ranks) +
                                 "-x PAIRWISE_MD_OVERLAP -x PAIRWISE_MD_BATCH "
                                 "-x PAIRWISE_MD_BATCH_RANKS ";
      return MdRun{dir, shell("env PAIRWISE_MD_OVERLAP=0 " + vars + " " + launch + binary() +
                              " run " + file.string() + " --output " + dir.string())};
    };
    const MdRun host = run("host", "PAIRWISE_MD_BATCH=8 PAIRWISE_MD_BATCH_RANKS=0");
    const MdRun three = run("3", "PAIRWISE_MD_BATCH=3 PAIRWISE_MD_BATCH_RANKS=1");
    const MdRun eight = run("8", "PAIRWISE_MD_BATCH=8 PAIRWISE_MD_BATCH_RANKS=1");
    const MdRun overlapped =
        run("8-overlap", "PAIRWISE_MD_OVERLAP=1 PAIRWISE_MD_BATCH=8 PAIRWISE_MD_BATCH_RANKS=1");
    for (const MdRun* r : {&host, &three, &eight, &overlapped})
      ASSERT_EQ(r->result.code, 0) << c.name << "\n" << r->result.output;
    const std::string batched = "batched steps across ranks";
    EXPECT_EQ(host.result.output.find(batched), std::string::npos) << host.result.output;
    EXPECT_NE(three.result.output.find(batched), std::string::npos) << three.result.output;
    EXPECT_NE(eight.result.output.find(batched), std::string::npos) << eight.result.output;
    expect_same_csv(host.dir / "md.csv", three.dir / "md.csv", 0.0, {"wall_s"});
    expect_same_csv(host.dir / "md.csv", eight.dir / "md.csv", 0.0, {"wall_s"});
    EXPECT_NE(overlapped.result.output.find(batched), std::string::npos)
        << overlapped.result.output;
    EXPECT_NE(overlapped.result.output.find("overlapped"), std::string::npos)
        << overlapped.result.output;
    expect_same_csv(host.dir / "md.csv", overlapped.dir / "md.csv", 0.0, {"wall_s"});
  }
}

TEST(MdCudaMpi, BlowUpOnThreeRanksIsAClearError) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  expect_blow_up_is_a_clear_error("cuda", 3);
}

TEST(MdCudaMpi, DomainThinnerThanCutoffIsAClearError) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  expect_thin_domain_is_a_clear_error("cuda");
}

}  // namespace
}  // namespace pairwise::mpitest
