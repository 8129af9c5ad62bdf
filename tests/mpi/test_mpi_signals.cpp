// A stop signal under mpirun (issue 11, docs/robustness.md "Many ranks"): the stop decision is an
// all-reduce at the step boundaries (core/signals.hpp stop_requested), so a signal delivered to one
// rank, or to each rank at a different step, stops every rank at the same step with the same exit
// code (128 + the largest signal number any rank received), one checkpoint is written (rank 0), and
// a restart under mpirun continues bitwise to where a straight run on the same ranks ends (nbody
// block steps: final state and CSV; md on domains: the rows up to the stop equal, then the run
// continues to the end). Signals come through the real handler from PAIRWISE_TEST_SIGNAL_AT_STEP
// set for one rank only, and as a real SIGTERM sent by this test to one rank's process.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "mpi_run.hpp"
#include "text_files.hpp"

namespace pairwise::mpitest {
namespace {

namespace fs = std::filesystem;
using pairwise::test::csv_without_wall;
using pairwise::test::read_text;

fs::path write_file(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

// `pairwise <args>` on 2 ranks, each rank started through sh with `rank_env[r]` exported (e.g.
// "PAIRWISE_TEST_SIGNAL_AT_STEP=5") and its pid written to <dir>/pid.<rank>.
Result mpirun_2(const fs::path& dir, const std::string& env0, const std::string& env1,
                const std::string& args) {
  const std::string script = "echo $$ > " + dir.string() +
                             "/pid.$OMPI_COMM_WORLD_RANK; if [ \"$OMPI_COMM_WORLD_RANK\" = 0 ]; "
                             "then export " +
                             env0 + "; else export " + env1 + "; fi; exec " + binary() + " " + args;
  return shell(mpirun(2) + "sh -c '" + script + "'");
}

const char* kNbody =
    "workload = \"nbody\"\n[system]\ninitial = \"plummer\"\nn = 64\nseed = 3\neps = 0.05\n"
    "[integrator]\nintegrator = \"hermite_block\"\neta = 0.02\ndt_max = 0.0625\n"
    "[run]\nt_end = 1.0\nbackend = \"cpu\"\nprecision = \"double\"\n"
    "[output]\ninterval = 0.0625\nprogress = false\n";

// Stops 2 ranks with the given per-rank environments, expects `code` and "stopped by <name> at t =
// <t>", restarts on 2 ranks and compares with a straight 2-rank run, bitwise.
void expect_nbody_stop_and_bitwise_restart(const std::string& tag, const std::string& env0,
                                           const std::string& env1, int code,
                                           const std::string& stopped_line) {
  const auto straight = fresh_dir("sig-nbody-straight-" + tag),
             stopped = fresh_dir("sig-nbody-stopped-" + tag);
  const auto problem = write_file(straight / "cluster.toml", kNbody);
  const Result a =
      shell(mpirun(2) + binary() + " run " + problem.string() + " --output " + straight.string());
  ASSERT_EQ(a.code, 0) << a.output;

  const Result b =
      mpirun_2(stopped, env0, env1, "run " + problem.string() + " --output " + stopped.string());
  ASSERT_EQ(b.code, code) << b.output;
  EXPECT_NE(b.output.find(stopped_line), std::string::npos) << b.output;
  ASSERT_TRUE(fs::exists(stopped / "cluster.ckpt")) << b.output;
  EXPECT_FALSE(fs::exists(stopped / "cluster.final.txt"));

  const Result c = shell(mpirun(2) + binary() + " run " + problem.string() + " --output " +
                         stopped.string() + " --restart " + (stopped / "cluster.ckpt").string());
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_NE(c.output.find("restart: continuing"), std::string::npos) << c.output;
  EXPECT_EQ(read_text(stopped / "cluster.final.txt"), read_text(straight / "cluster.final.txt"));
  EXPECT_EQ(csv_without_wall(stopped / "cluster.csv"), csv_without_wall(straight / "cluster.csv"));
}

TEST(MpiSignals, SigtermToOneRankStopsBothAtTheSameRowAndTheRestartIsBitwise) {
  // Rank 1 alone gets SIGTERM at diagnostic row 5 (t = 0.3125); rank 0 never does.
  expect_nbody_stop_and_bitwise_restart("one", "PAIRWISE_NO_SIGNAL=1",
                                        "PAIRWISE_TEST_SIGNAL_AT_STEP=5", 128 + SIGTERM,
                                        "stopped by SIGTERM at t = 0.3125");
}

TEST(MpiSignals, SignalsToBothRanksAtDifferentRowsStopBothAtTheFirst) {
  // Rank 0: SIGUSR1 at row 3; rank 1: SIGTERM at row 6. Both stop at row 3 and exit 138.
  expect_nbody_stop_and_bitwise_restart("both", "PAIRWISE_TEST_SIGNAL_AT_STEP=3:10",
                                        "PAIRWISE_TEST_SIGNAL_AT_STEP=6:15", 128 + SIGUSR1,
                                        "stopped by SIGUSR1 at t = 0.1875");
}

// md on 2 domains: rank 1 gets SIGTERM at step 37; both stop at the next chunk boundary (step
// 48: chunks end at the thermo steps and at most 16 steps apart), the checkpoint continues the run
// to its end, and the rows up to the stop equal a straight run's.
TEST(MpiSignals, MdOnTwoDomainsStopsTogetherAndContinues) {
  const auto straight = fresh_dir("sig-md-straight"), stopped = fresh_dir("sig-md-stopped");
  const auto problem =
      write_file(straight / "md.toml",
                 "workload = \"md\"\n[system]\ncells = \"6 6 6\"\n[force_field]\ncutoff = 2.5\n"
                 "[integrator]\nsteps = 120\n[run]\nbackend = \"cpu\"\nprecision = \"double\"\n"
                 "[output]\nthermo_every = 12\nprogress = false\n");
  const Result a =
      shell(mpirun(2) + binary() + " run " + problem.string() + " --output " + straight.string());
  ASSERT_EQ(a.code, 0) << a.output;
  const Result b = mpirun_2(stopped, "PAIRWISE_NO_SIGNAL=1", "PAIRWISE_TEST_SIGNAL_AT_STEP=37",
                            "run " + problem.string() + " --output " + stopped.string());
  ASSERT_EQ(b.code, 128 + SIGTERM) << b.output;
  EXPECT_NE(b.output.find("stopped by SIGTERM after step 48"), std::string::npos) << b.output;
  // The rows written before the stop (steps 0 .. 48) are the straight run's.
  const std::string part = csv_without_wall(stopped / "md.csv");
  const std::string full = csv_without_wall(straight / "md.csv");
  EXPECT_EQ(full.substr(0, part.size()), part);
  EXPECT_NE(part.find("\n48,"), std::string::npos) << part;
  EXPECT_EQ(part.find("\n60,"), std::string::npos) << part;

  const Result c = shell(mpirun(2) + binary() + " run " + problem.string() + " --output " +
                         stopped.string() + " --restart " + (stopped / "md.ckpt").string());
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_NE(c.output.find("restart: continuing from step 48"), std::string::npos) << c.output;
  // Every step once, up to the end; the energies agree closely (the domains are rebuilt from the
  // checkpoint's positions: the same forces up to the order of the sums).
  expect_same_csv(straight / "md.csv", stopped / "md.csv", 1e-9, {"wall_s", "Rebuilds"});
}

// A real SIGTERM sent by this test to rank 1's process while a long run is going.
TEST(MpiSignals, RealSigtermToOneRanksProcess) {
  const auto dir = fresh_dir("sig-real");
  const auto problem =
      write_file(dir / "md.toml",
                 "workload = \"md\"\n[system]\ncells = \"6 6 6\"\n[force_field]\ncutoff = 2.5\n"
                 "[integrator]\nsteps = 1000000\n[run]\nbackend = \"cpu\"\nprecision = \"double\"\n"
                 "[output]\nthermo_every = 10\nprogress = false\n");
  Result r;
  std::thread run([&] {
    r = mpirun_2(dir, "PAIRWISE_NO_SIGNAL=1", "PAIRWISE_NO_SIGNAL=1",
                 "run " + problem.string() + " --output " + dir.string());
  });
  // Rank 1's pid, once the run has written a few rows.
  pid_t rank1 = 0;
  for (int i = 0; i < 6000 && rank1 == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::error_code ec;
    if (fs::exists(dir / "pid.1") && fs::file_size(dir / "md.csv", ec) > 400 && !ec)
      rank1 = pid_t(std::stol(read_text(dir / "pid.1")));
  }
  ASSERT_GT(rank1, 0);
  ::kill(rank1, SIGTERM);
  run.join();
  EXPECT_EQ(r.code, 128 + SIGTERM) << r.output;
  EXPECT_NE(r.output.find("stopped by SIGTERM after step "), std::string::npos) << r.output;
  const auto at = r.output.find("after step ");
  ASSERT_NE(at, std::string::npos);
  const long long step = std::stoll(r.output.substr(at + 11));
  // The checkpoint is valid: a restart to 20 steps past the stop runs and ends there.
  const Result c = shell(mpirun(2) + binary() + " run " + problem.string() + " --output " +
                         dir.string() + " --restart " + (dir / "md.ckpt").string() +
                         " --set integrator.steps=" + std::to_string(step + 20));
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_NE(c.output.find("restart: continuing from step " + std::to_string(step)),
            std::string::npos)
      << c.output;
  const auto steps = csv_columns(dir / "md.csv").at(0).second;
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(steps.back(), double(step + 20));
  for (std::size_t i = 1; i < steps.size(); ++i) EXPECT_LT(steps[i - 1], steps[i]) << i;
}

}  // namespace
}  // namespace pairwise::mpitest
