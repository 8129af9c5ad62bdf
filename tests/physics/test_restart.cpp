// Long runs that lose nothing (issue 11): a run stopped by SIGTERM at a random step and restarted
// from its checkpoint ends bitwise where a straight run ends (final state files written with 17
// significant digits, and every CSV column but the wall clock), for md (NVE, Langevin), nbody
// (block-step Hermite) and ljc (Langevin), at 10 random points each; a real SIGTERM sent to a child
// process does the same; SIGKILL leaves a trajectory whose complete frames all parse; damaged and
// foreign checkpoints are refused; a full disk stops the run with the path and keeps the previous
// checkpoint.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "pairwise/backend.hpp"
#include "text_files.hpp"

namespace pairwise::test {
namespace {

namespace fs = std::filesystem;

struct Workload {
  const char* name;
  const char* config;      // TOML text, written as run.toml
  const char* final_file;  // the end state, 17 significant digits
  const char* csv;         // the thermo CSV
  const char* trajectory;  // "" or the growing trajectory
  int last_step;  // the signal step is drawn from [1, last_step] (the run stops at the next output
                  // boundary, which must come before the end)
};

const Workload kWorkloads[] = {
    {"md_nve_cpu",
     "workload = 'md'\n[system]\ncells = '3 3 3'\n[force_field]\ncutoff = 2.0\n[integrator]\nsteps "
     "= 120\n"
     "[neighbor]\nsort_every = 25\nskin = 0.2\n[run]\nbackend = 'cpu'\nprecision = 'double'\n"
     "[output]\nthermo_every = 5\ndump_every = 10\nfinal_data = 'final.data'\nprogress = false\n",
     "final.data", "run.csv", "run.lammpstrj", 110},
    {"md_langevin_cpu",
     "workload = 'md'\n[system]\ncells = '3 3 3'\n[force_field]\ncutoff = 2.0\n[integrator]\nsteps "
     "= 120\n"
     "thermostat = 'langevin'\nseed = 11\n[neighbor]\nsort_every = 30\n[run]\nbackend = 'cpu'\n"
     "precision = 'double'\n[output]\nthermo_every = 7\ndump_every = 20\n"
     "final_data = 'final.data'\nprogress = false\n",
     "final.data", "run.csv", "run.lammpstrj", 110},
    {"md_langevin_reference",
     "workload = 'md'\n[system]\ncells = '3 3 3'\n[force_field]\ncutoff = 2.0\n[integrator]\nsteps "
     "= 60\n"
     "thermostat = 'langevin'\n[run]\nbackend = 'reference'\n[output]\nthermo_every = 4\n"
     "final_data = 'final.data'\nprogress = false\n",
     "final.data", "run.csv", "", 50},
    {"nbody_block_hermite",
     "workload = 'nbody'\n[system]\nn = 48\nseed = 3\n[integrator]\nintegrator = "
     "'hermite_block'\n[run]\nt_end = 1.0\nbackend = 'cpu'\nprecision = 'double'\n"
     "[output]\ninterval = 0.0625\nprogress = false\n",
     "run.final.txt", "run.csv", "", 15},
    {"ljc_langevin",
     "workload = 'ljc'\n[system]\nn = 40\n[integrator]\nthermostat = 'langevin'\n"
     "[run]\nsteps = 60\nbackend = 'cpu'\nprecision = 'double'\n[output]\ninterval = 5\n"
     "progress = false\n",
     "run.final.json", "run.csv", "", 50},
};

// Column `c` (0-based) of every CSV row after the header.
std::vector<double> csv_column(const fs::path& p, int c) {
  std::istringstream in(read_text(p));
  std::vector<double> v;
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string cell;
    for (int k = 0; k <= c; ++k) std::getline(f, cell, ',');
    v.push_back(std::stod(cell));
  }
  return v;
}

class Restart : public CliTest, public ::testing::WithParamInterface<Workload> {
 protected:
  // 10 random interruption points; `bitwise`: the final state, CSV and trajectory equal the
  // straight run's byte for byte; otherwise the rows' steps equal and column `close_column` agrees
  // to 1e-6 relative.
  void run_trials(bool bitwise, int close_column = 0) {
    const Workload& w = GetParam();
    write("run.toml", w.config);
    const Result straight = pairwise("run run.toml");
    ASSERT_EQ(straight.code, 0) << straight.output;
    const std::string final_ref = read_text(dir_ / w.final_file);
    const std::string csv_ref = csv_without_wall(dir_ / w.csv);
    const std::vector<double> close_ref = csv_column(dir_ / w.csv, close_column);
    const std::vector<double> steps_ref = csv_column(dir_ / w.csv, 0);
    const std::string traj_ref = *w.trajectory ? read_text(dir_ / w.trajectory) : "";
    ASSERT_FALSE(final_ref.empty());

    const unsigned seed = std::random_device{}();
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> step(1, w.last_step);
    for (int trial = 0; trial < 10; ++trial) {
      const int k = step(rng);
      SCOPED_TRACE("seed " + std::to_string(seed) + ", signal at step " + std::to_string(k));
      fs::remove(dir_ / w.final_file);
      fs::remove(dir_ / "run.ckpt");
      const Result stopped =
          run_pairwise(dir_, "run run.toml", "PAIRWISE_TEST_SIGNAL_AT_STEP=" + std::to_string(k));
      ASSERT_EQ(stopped.code, 128 + SIGTERM) << stopped.output;
      EXPECT_NE(stopped.output.find("stopped by SIGTERM"), std::string::npos) << stopped.output;
      EXPECT_FALSE(fs::exists(dir_ / w.final_file));
      ASSERT_TRUE(fs::exists(dir_ / "run.ckpt"));
      const Result resumed = pairwise("run run.toml --restart run.ckpt");
      ASSERT_EQ(resumed.code, 0) << resumed.output;
      if (bitwise) {
        EXPECT_EQ(read_text(dir_ / w.final_file), final_ref);
        EXPECT_EQ(csv_without_wall(dir_ / w.csv), csv_ref);
        if (*w.trajectory) {
          EXPECT_EQ(read_text(dir_ / w.trajectory), traj_ref);
        }
      } else {
        EXPECT_EQ(csv_column(dir_ / w.csv, 0), steps_ref);
        const std::vector<double> close = csv_column(dir_ / w.csv, close_column);
        ASSERT_EQ(close.size(), close_ref.size());
        for (std::size_t r = 0; r < close.size(); ++r)
          EXPECT_NEAR(close[r], close_ref[r], 1e-6 * std::abs(close_ref[r])) << "row " << r;
      }
    }
  }
};

TEST_P(Restart, InterruptedAndRestartedEqualsStraightBitwiseAtTenRandomSteps) {
  run_trials(true);
}

INSTANTIATE_TEST_SUITE_P(Workloads, Restart, ::testing::ValuesIn(kWorkloads),
                         [](const auto& info) { return std::string(info.param.name); });

// The same on the GPU (skipped without a device): nbody and ljc keep their integrator state on
// the host and reload the device from it, so in double precision they restart bitwise; the md CUDA
// engine restarts from positions, images and velocities (not bitwise): its total energy per atom
// (CSV column 4) must agree to 1e-6.
const Workload kCudaWorkloads[] = {
    {"nbody_block_hermite_cuda_double",
     "workload = 'nbody'\n[system]\nn = 48\nseed = 3\n[run]\nt_end = 1.0\nbackend = 'cuda'\n"
     "precision = 'double'\n[output]\ninterval = 0.0625\nprogress = false\n",
     "run.final.txt", "run.csv", "", 15},
    {"ljc_langevin_cuda_double",
     "workload = 'ljc'\n[system]\nn = 40\n[integrator]\nthermostat = 'langevin'\n"
     "[run]\nsteps = 60\nbackend = 'cuda'\nprecision = 'double'\n[output]\ninterval = 5\n"
     "progress = false\n",
     "run.final.json", "run.csv", "", 50},
};
const Workload kCudaMd[] = {
    {"md_langevin_cuda_mixed",
     "workload = 'md'\n[system]\ncells = '4 4 4'\n[integrator]\nsteps = 60\n"
     "thermostat = 'langevin'\n[run]\nbackend = 'cuda'\n[output]\nthermo_every = 5\n"
     "final_data = 'final.data'\nprogress = false\n",
     "final.data", "run.csv", "", 50},
};

class RestartCuda : public Restart {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
    Restart::SetUp();
  }
};

TEST_P(RestartCuda, InterruptedAndRestartedEqualsStraightAtTenRandomSteps) {
  const std::string name = GetParam().name;
  run_trials(name.rfind("md_", 0) != 0, 4);
}

INSTANTIATE_TEST_SUITE_P(Workloads, RestartCuda, ::testing::ValuesIn(kCudaWorkloads),
                         [](const auto& info) { return std::string(info.param.name); });
INSTANTIATE_TEST_SUITE_P(Md, RestartCuda, ::testing::ValuesIn(kCudaMd),
                         [](const auto& info) { return std::string(info.param.name); });

// Two identical ljc runs on cuda in double precision write byte-identical thermo CSV files (wall
// time excepted: the energy columns too, whose terms the GPU sums in a fixed order, not with FP64
// atomics) and final states (skipped without a device).
class RepeatCuda : public CliTest {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
    CliTest::SetUp();
  }
};

TEST_F(RepeatCuda, LjcDoubleRunsWriteBitwiseEqualEnergies) {
  const Workload& w = kCudaWorkloads[1];
  ASSERT_EQ(std::string(w.name), "ljc_langevin_cuda_double");
  write("run.toml", w.config);
  const Result first = pairwise("run run.toml");
  ASSERT_EQ(first.code, 0) << first.output;
  const std::string csv = csv_without_wall(dir_ / w.csv), state = read_text(dir_ / w.final_file);
  const std::vector<double> energy = csv_column(dir_ / w.csv, 5);  // U_coul
  ASSERT_GT(energy.size(), 5u);
  EXPECT_NE(energy.front(), energy.back());  // the column moves: a real comparison
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("repeat " + std::to_string(run + 1));
    fs::remove(dir_ / w.csv), fs::remove(dir_ / w.final_file);
    const Result again = pairwise("run run.toml");
    ASSERT_EQ(again.code, 0) << again.output;
    EXPECT_EQ(csv_without_wall(dir_ / w.csv), csv);
    EXPECT_EQ(read_text(dir_ / w.final_file), state);
  }
}

// A child process that runs `pairwise run run.toml` in `dir` (stdout to run.log).
pid_t spawn(const fs::path& dir) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    FILE* log = std::freopen("run.log", "w", stdout);
    if (!log) ::_exit(127);
    const std::string bin = binary();
    ::execl(bin.c_str(), bin.c_str(), "run", "run.toml", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// Waits until `file` has at least `bytes` bytes (or 20 s pass).
void wait_for_size(const fs::path& file, std::uintmax_t bytes) {
  for (int i = 0; i < 2000; ++i) {
    std::error_code ec;
    if (fs::file_size(file, ec) >= bytes && !ec) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

const char* kLongMd =
    "workload = 'md'\n[system]\ncells = '3 3 3'\n[force_field]\ncutoff = 2.0\n[integrator]\nsteps "
    "= 40000\n"
    "thermostat = 'langevin'\n[run]\nbackend = 'cpu'\nprecision = 'double'\n[output]\n"
    "thermo_every = 50\ndump_every = 50\nfinal_data = 'final.data'\nprogress = false\n";

TEST_F(CliTest, RealSigtermToAChildStopsWithACheckpointAndTheRestartMatchesAStraightRun) {
  write("run.toml", std::string(kLongMd) + "\n");
  const pid_t pid = spawn(dir_);
  ASSERT_GT(pid, 0);
  wait_for_size(dir_ / "run.lammpstrj", 20000);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << read_text(dir_ / "run.log");
  const std::string log = read_text(dir_ / "run.log");
  EXPECT_NE(log.find("stopped by SIGTERM"), std::string::npos) << log;
  const auto at = log.find("after step ");
  ASSERT_NE(at, std::string::npos) << log;
  const long long stopped = std::stoll(log.substr(at + 11));
  ASSERT_TRUE(fs::exists(dir_ / "run.ckpt"));
  // Both runs end 100 steps after the stop (integrator.steps may grow on restart).
  const std::string steps = " --set integrator.steps=" + std::to_string(stopped + 100);
  ASSERT_EQ(pairwise("run run.toml --restart run.ckpt" + steps).code, 0);
  const std::string restarted = read_text(dir_ / "final.data");
  const std::string traj = read_text(dir_ / "run.lammpstrj");
  ASSERT_EQ(pairwise("run run.toml" + steps).code, 0);
  EXPECT_EQ(read_text(dir_ / "final.data"), restarted);
  EXPECT_EQ(read_text(dir_ / "run.lammpstrj"), traj);
}

TEST_F(CliTest, SigkillLeavesATrajectoryWhoseEveryCompleteFrameParses) {
  write("run.toml", std::string(kLongMd) + "\n");
  const pid_t pid = spawn(dir_);
  ASSERT_GT(pid, 0);
  wait_for_size(dir_ / "run.lammpstrj", 30000);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  // No temporary files under other names: the trajectory and CSV grow under their own names.
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  // Parse LAMMPS dump frames: ITEM: TIMESTEP, step, ITEM: NUMBER OF ATOMS, n, box (4 lines), the
  // ITEM: ATOMS header and n lines of 8 numbers. The last frame may be cut short.
  std::istringstream in(read_text(dir_ / "run.lammpstrj"));
  int complete = 0;
  long long last_step = -1;
  for (std::string line; std::getline(in, line);) {
    ASSERT_EQ(line, "ITEM: TIMESTEP");
    std::string step, item, count;
    if (!std::getline(in, step) || !std::getline(in, item) || !std::getline(in, count)) break;
    EXPECT_EQ(item, "ITEM: NUMBER OF ATOMS");
    const int n = std::stoi(count);
    ASSERT_EQ(n, 108);
    bool whole = true;
    for (int k = 0; k < 4 + 1 + n && whole; ++k) {
      std::string l;
      whole = static_cast<bool>(std::getline(in, l));
      if (whole && k >= 5) {
        std::istringstream f(l);
        double v;
        int fields = 0;
        while (f >> v) ++fields;
        if (in.peek() == EOF && fields != 8) {
          whole = false;  // cut inside the last line
        } else {
          EXPECT_EQ(fields, 8) << l;
        }
      }
    }
    if (!whole) break;
    EXPECT_EQ(std::stoll(step), last_step + (last_step < 0 ? 1 : 50));
    last_step = std::stoll(step);
    ++complete;
  }
  EXPECT_GE(complete, 2);
}

class CheckpointErrors : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write("run.toml",
          "workload = 'md'\n[system]\ncells = '3 3 3'\n[force_field]\ncutoff = "
          "2.0\n[integrator]\nsteps = 40\n[run]\n"
          "backend = 'cpu'\nprecision = 'double'\n[output]\ncheckpoint_every = 20\n"
          "progress = false\n");
    ASSERT_EQ(pairwise("run run.toml").code, 0);
    ASSERT_TRUE(fs::exists(dir_ / "run.ckpt"));
    ASSERT_TRUE(fs::exists(dir_ / "run.ckpt.prev"));  // the one of step 20, kept
    inputs_.insert("run.ckpt"), inputs_.insert("run.ckpt.prev"), inputs_.insert("run.csv");
    ckpt_ = read_text(dir_ / "run.ckpt");
  }
  void replace_checkpoint(const std::string& bytes) {
    std::ofstream(dir_ / "run.ckpt", std::ios::binary | std::ios::trunc) << bytes;
  }
  std::string ckpt_;
};

TEST_F(CheckpointErrors, CorruptedByteIsRefusedByTheChecksum) {
  std::string bad = ckpt_;
  bad[bad.size() / 2] ^= 0x10;
  replace_checkpoint(bad);
  const Result r = pairwise("run run.toml --restart run.ckpt --set integrator.steps=60");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("error: corrupted checkpoint: the CRC-32 checksum does not match"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("run.ckpt"), std::string::npos) << r.output;
}

TEST_F(CheckpointErrors, TruncatedFileIsRefused) {
  for (std::size_t keep : {std::size_t(0), std::size_t(10), ckpt_.size() / 2, ckpt_.size() - 1}) {
    replace_checkpoint(ckpt_.substr(0, keep));
    const Result r = pairwise("run run.toml --restart run.ckpt --set integrator.steps=60");
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_TRUE(r.output.find("truncated") != std::string::npos ||
                r.output.find("not a pairwise checkpoint") != std::string::npos)
        << keep << ": " << r.output;
  }
}

TEST_F(CheckpointErrors, AnotherConfigurationIsRefusedNamingTheKey) {
  const Result r = pairwise("run run.toml --restart run.ckpt --set integrator.dt=0.002");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("checkpoint from another configuration: it was written with "
                          "'integrator.dt = 0.0050000000000000001', the configuration has "
                          "'integrator.dt = 0.002'"),
            std::string::npos)
      << r.output;
  const Result other = pairwise("run run.toml --restart run.ckpt --set run.backend=reference");
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.output.find("'run.backend = cpu'"), std::string::npos) << other.output;
  // A longer run from the same configuration is fine.
  EXPECT_EQ(pairwise("run run.toml --restart run.ckpt --set integrator.steps=60").code, 0);
}

TEST_F(CheckpointErrors, FullDiskStopsWithThePathAndKeepsThePreviousCheckpoint) {
  // A file-size limit (`ulimit -f`: blocks of 512 B in dash, 1 KiB in bash; either way below the
  // checkpoint's size); SIGXFSZ ignored, so the write fails with EFBIG.
  const std::uintmax_t limit_kib = ckpt_.size() / 1024 / 2;
  ASSERT_GT(limit_kib, 2u);
  const Result r = run_pairwise(
      dir_, "run run.toml --restart run.ckpt --set integrator.steps=60 --set output.csv=''",
      "ulimit -f " + std::to_string(limit_kib) + "; trap '' XFSZ;");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("error: writing the checkpoint failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the previous checkpoint is kept, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run.ckpt"), std::string::npos) << r.output;
  EXPECT_EQ(read_text(dir_ / "run.ckpt"), ckpt_);
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
}

TEST_F(CliTest, FullDiskInAGrowingOutputNamesItAndTheLastCheckpoint) {
  // A 12 KiB file-size limit: the checkpoint of step 10 (~10 KB) fits, the trajectory's second
  // frame (step 20, ~15 KB in all) does not.
  write("run.toml",
        "workload = 'md'\n[system]\ncells = '3 3 3'\n[force_field]\ncutoff = 2.0\n"
        "[integrator]\nsteps = 40\n[run]\nbackend = 'cpu'\nprecision = 'double'\n[output]\n"
        "dump_every = 20\ncheckpoint_every = 10\nprogress = false\n");
  const Result r = run_pairwise(dir_, "run run.toml", "trap '' XFSZ; prlimit --fsize=12288");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(
      r.output.find("error: writing the output file failed (disk full or file size limit?), "),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("run.lammpstrj; the last checkpoint is "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("run.ckpt (continue with --restart "), std::string::npos) << r.output;
  ASSERT_TRUE(fs::exists(dir_ / "run.ckpt"));
  // The checkpoint is whole: a restart (without the limit) finishes the run.
  const Result resumed = pairwise("run run.toml --restart run.ckpt");
  EXPECT_EQ(resumed.code, 0) << resumed.output;
}

TEST_F(CliTest, FredholmStopsBetweenPartialWavesWithoutTheNodeFile) {
  const fs::path example = fs::path(PAIRWISE_TEST_DATA) / ".." / ".." / "examples";
  fs::copy_file(example / "fredholm-square-well.toml", dir_ / "w.toml");
  const Result r = run_pairwise(dir_, "run w.toml", "PAIRWISE_TEST_SIGNAL_AT_STEP=1");
  EXPECT_EQ(r.code, 128 + SIGTERM) << r.output;
  EXPECT_NE(r.output.find("stopped by SIGTERM after l = 1"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "fredholm-square-well.nodes.csv"));
  EXPECT_FALSE(fs::exists(dir_ / "w.nodes.csv"));
}

TEST_F(CliTest, RestartIsRefusedByWorkloadsWithoutCheckpoints) {
  write("f.toml", "workload = 'fredholm'\n");
  expect_error("run f.toml --restart x.ckpt", {"--restart is supported by the md, nbody and ljc"});
}

}  // namespace
}  // namespace pairwise::test
