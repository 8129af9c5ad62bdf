// Running the `pairwise` executable from end-to-end tests: find it, run it in a directory with
// stdout and stderr captured together, and a gtest fixture base giving each test a fresh directory
// and checks for failed runs (exit code 1, "error: ...", no file left behind).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <string>

namespace pairwise::test {

// What a run of the executable gave.
struct Result {
  int code = -1;       // exit code; -1 if it did not start or did not exit normally
  std::string output;  // stdout and stderr together
};

// The executable: $PAIRWISE_BINARY, else the path this test was built with, else the build tree's
// apps/pairwise/pairwise beside this test (scripts/device-check runs copied executables elsewhere).
inline std::string binary() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("PAIRWISE_BINARY"); env && *env) return env;
  if (fs::exists(PAIRWISE_BINARY)) return PAIRWISE_BINARY;
  return (fs::read_symlink("/proc/self/exe").parent_path() / ".." / "apps" / "pairwise" /
          "pairwise")
      .string();
}

// Runs `pairwise <args>` in `dir` (a shell command line; arguments are quoted by the caller), after
// `prefix` (shell text before the binary: environment assignments, `ulimit ...;`), if any.
inline Result run_pairwise(const std::filesystem::path& dir, const std::string& args,
                           const std::string& prefix = "") {
  const std::string command =
      "cd '" + dir.string() + "' && " + prefix + " '" + binary() + "' " + args + " 2>&1";
  Result r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// Fixture base: a fresh directory per test, named after the suite, the test and the process id (so
// parallel ctest runs do not collide), removed afterwards. Files written with write() are the
// test's inputs; a failed run must leave nothing else behind.
class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("pw_") + info->test_suite_name() + "_" + info->name() + "_" +
                       std::to_string(::getpid());
    for (char& c : name)
      if (c == '/') c = '_';  // parameterized names
    dir_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `pairwise <args>` in the test directory (or in `dir`).
  Result pairwise(const std::string& args) const { return run_pairwise(dir_, args); }
  static Result pairwise(const std::filesystem::path& dir, const std::string& args) {
    return run_pairwise(dir, args);
  }

  // Writes `text` to the file `name` in the test directory and remembers it as an input.
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    inputs_.insert(name);
  }
  // Every file in the directory is one the test wrote: the failed run created nothing.
  void expect_no_output() const {
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_)) {
      EXPECT_TRUE(inputs_.count(e.path().filename().string())) << "left behind: " << e.path();
    }
  }
  // Runs, expects exit code 1, "error: " and every fragment in the message, and no output.
  void expect_error(const std::string& args, std::initializer_list<std::string> fragments) const {
    const Result r = pairwise(args);
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find("error: "), std::string::npos) << r.output;
    for (const auto& f : fragments)
      EXPECT_NE(r.output.find(f), std::string::npos) << f << "\n" << r.output;
    expect_no_output();
  }

  std::filesystem::path dir_;     // the test directory
  std::set<std::string> inputs_;  // names of the files the test put there
};

}  // namespace pairwise::test
