// `pairwise bench <suite>` stopped by a signal (issue 11, docs/robustness.md "Signals"): the case
// in progress finishes, the records of the finished cases are written as a valid JSON array, each
// record marked "interrupted": "<signal>", a line on stderr says what was written, the exit code is
// 128 + signal; a second SIGINT ends the process at once without a file. Every suite is stopped
// through the real handler after its first record (PAIRWISE_TEST_SIGNAL_AT_STEP=1,
// core/signals.hpp); md is also stopped by a SIGTERM and by two SIGINTs sent from outside by this
// test.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli_runner.hpp"
#include "text_files.hpp"

namespace pairwise::test {
namespace {

namespace fs = std::filesystem;

struct Suite {
  const char* name;
  const char* args;        // a cpu case list of several cases, the first well under a second
  const char* first_case;  // the case of the first record
};

const Suite kSuites[] = {
    {"nbody", "--sizes 64,64,64,64 --precision double --backend cpu --no-cpu --repeats 1", "GA"},
    {"md", "--sizes 500,500,500,500 --precision double --backend cpu --no-cpu --steps 10", "in.lj"},
    {"ljc", "--sizes 64,64,64 --precision double --backend cpu --no-cpu --repeats 1",
     "forces-constant"},
    {"fredholm",
     "--sizes 256,256,256 --precision double --backend cpu --no-cpu --no-solve --repeats 1",
     "matvec"},
    // With --input the end-to-end cases come first (pairwise potmap run as a process).
    {"potmap",
     "--input " PAIRWISE_TEST_DATA "/potmap-small.pqr --backend cpu --no-cpu --no-scaling "
     "--repeats 1",
     "e2e-npy"},
    {"rng", "--count 1000", "glibc-lrand48"},
};

class BenchSignal : public CliTest, public ::testing::WithParamInterface<Suite> {};

TEST_P(BenchSignal, StopsAfterTheFinishedCaseWithAValidMarkedJson) {
  const Suite& s = GetParam();
  setenv("PAIRWISE_TEST_SIGNAL_AT_STEP", "1", 1);  // SIGTERM once the first record is done
  const Result t = pairwise("bench " + std::string(s.name) + " " + s.args + " --json stopped.json");
  unsetenv("PAIRWISE_TEST_SIGNAL_AT_STEP");
  EXPECT_EQ(t.code, 128 + SIGTERM) << t.output;
  EXPECT_NE(t.output.find("bench " + std::string(s.name) +
                          ": stopped by SIGTERM: wrote 1 record of the finished cases to "
                          "stopped.json (marked \"interrupted\": \"SIGTERM\")"),
            std::string::npos)
      << t.output;
  const auto part = nlohmann::json::parse(read_text(dir_ / "stopped.json"));
  ASSERT_EQ(part.size(), 1u) << part;
  EXPECT_EQ(part[0]["interrupted"], "SIGTERM");
  EXPECT_EQ(part[0]["suite"], s.name);
  EXPECT_EQ(part[0]["case"], s.first_case);
  EXPECT_GT(double(part[0]["value"]), 0.0);
  EXPECT_FALSE(fs::exists(dir_ / "stopped.json.tmp"));
}

INSTANTIATE_TEST_SUITE_P(Suites, BenchSignal, ::testing::ValuesIn(kSuites),
                         [](const auto& info) { return std::string(info.param.name); });

TEST_F(CliTest, BenchRunToTheEndIsNotMarked) {
  const Result r = pairwise("bench rng --count 1000 --json out.json");
  ASSERT_EQ(r.code, 0) << r.output;
  const auto all = nlohmann::json::parse(read_text(dir_ / "out.json"));
  ASSERT_EQ(all.size(), 3u) << all;  // glibc, the plain loop, leap-ahead (no GPU here)
  for (const auto& record : all) EXPECT_FALSE(record.contains("interrupted")) << record;
}

TEST_F(CliTest, BenchStoppedBeforeItsFirstCaseWritesNothingAndSaysSo) {
  setenv("PAIRWISE_TEST_SIGNAL_AT_STEP", "0:10", 1);  // SIGUSR1 before the first case
  const Result r = pairwise("bench rng --count 1000 --json out.json");
  unsetenv("PAIRWISE_TEST_SIGNAL_AT_STEP");
  EXPECT_EQ(r.code, 128 + SIGUSR1) << r.output;
  EXPECT_NE(r.output.find("bench rng: stopped by SIGUSR1: no case had finished; no file written"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));
}

// `pairwise bench md` with a long case list in `dir`, stdout to bench.log, stderr to bench.err.
pid_t spawn_md_bench(const fs::path& dir) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(127);
    if (!std::freopen("bench.log", "w", stdout) || !std::freopen("bench.err", "w", stderr))
      ::_exit(127);
    const std::string bin = binary();
    ::execl(bin.c_str(), bin.c_str(), "bench", "md", "--sizes",
            "500,500,500,500,500,500,500,500,500,500,500,500,500,500,500,500,500,500,500,500",
            "--precision", "double", "--backend", "cpu", "--no-cpu", "--steps", "1000", "--json",
            "out.json", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  return pid;
}

// Waits until the bench printed `lines` case lines ("in.lj ...", flushed per case), or 60 s pass.
void wait_for_cases(const fs::path& log, std::size_t lines) {
  for (int i = 0; i < 6000; ++i) {
    const std::string text = read_text(log);
    std::size_t count = 0;
    for (auto at = text.find("\nin.lj"); at != std::string::npos; at = text.find("\nin.lj", at + 1))
      ++count;
    if (count >= lines) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TEST_F(CliTest, BenchRealSigtermAfterTheFirstCaseExits143WithTheFinishedCases) {
  const pid_t pid = spawn_md_bench(dir_);
  ASSERT_GT(pid, 0);
  wait_for_cases(dir_ / "bench.log", 1);
  ::kill(pid, SIGTERM);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status)) << read_text(dir_ / "bench.err");
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM) << read_text(dir_ / "bench.err");
  const std::string err = read_text(dir_ / "bench.err");
  EXPECT_NE(err.find("bench md: stopped by SIGTERM: wrote "), std::string::npos) << err;
  const auto part = nlohmann::json::parse(read_text(dir_ / "out.json"));
  // The case that was running when the signal came finished too; the list had 20.
  ASSERT_GE(part.size(), 1u);
  EXPECT_LT(part.size(), 20u);
  for (const auto& record : part) {
    EXPECT_EQ(record["interrupted"], "SIGTERM");
    EXPECT_EQ(record["case"], "in.lj");
    EXPECT_GT(double(record["value"]), 0.0);
  }
}

TEST_F(CliTest, BenchSecondSigintEndsAtOnceWithoutAFile) {
  const pid_t pid = spawn_md_bench(dir_);
  ASSERT_GT(pid, 0);
  wait_for_cases(dir_ / "bench.log", 1);
  ::kill(pid, SIGINT);  // the second case is running: the stop is pending until it ends
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status) << "\n"
                                   << read_text(dir_ / "bench.err");
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_FALSE(fs::exists(dir_ / "out.json"));
  EXPECT_FALSE(fs::exists(dir_ / "out.json.tmp"));
}

}  // namespace
}  // namespace pairwise::test
