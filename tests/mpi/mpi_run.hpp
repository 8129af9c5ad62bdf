// Helpers of the mpi tests: run the pairwise CLI under mpirun (or alone), capture its output and
// exit code, compare the numbers of two output files.
#pragma once

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

namespace pairwise::mpitest {

// Whether this test executable (and so the pairwise it runs, built with the same flags) has
// AddressSanitizer: GCC defines __SANITIZE_ADDRESS__, clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

struct Result {
  int code = -1;
  std::string output;  // stdout and stderr
};

// Runs `command` with stderr joined to stdout; a hang past `limit_s` seconds is killed (timeout)
// and reported as exit code 124.
inline Result shell(const std::string& command, int limit_s = 120) {
  // As root (CI containers) Open MPI refuses to start without these; one OpenMP thread per rank
  // (ranks share the 2 cores of CI).
  setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
  setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  setenv("OMP_NUM_THREADS", "1", 1);
  setenv("OMP_WAIT_POLICY", "passive", 1);  // idle OpenMP threads sleep: ranks share the cores
  // Containers often forbid the cross-process memory attach (CMA) of Open MPI's shared-memory
  // transport for large messages: copy through the shared segment instead.
  setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 1);
  // Sanitizer builds (the debug and fuzz presets): Open MPI leaks by design at MPI_Finalize, mostly
  // from MCA components it has unloaded, which LeakSanitizer cannot name (no suppression matches
  // them), so the launched processes' leak check is off; ASan's other checks and UBSan stay on.
  if (kAddressSanitizer) setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
  const std::string full = "timeout " + std::to_string(limit_s) + " " + command + " 2>&1";
  Result r;
  FILE* pipe = popen(full.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) r.output += buffer;
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// $PAIRWISE_MPIEXEC and $PAIRWISE_BINARY, where set, replace the paths this test was built with
// (a build carried to a GPU machine: its mpirun and the binary's place differ there).
inline std::string from_env_or(const char* name, const char* built_with) {
  const char* value = std::getenv(name);
  return value && *value ? value : built_with;
}

inline std::string mpirun(int ranks) {
  return from_env_or("PAIRWISE_MPIEXEC", PAIRWISE_MPIEXEC) + " --oversubscribe -np " +
         std::to_string(ranks) + " ";
}

inline std::string binary() {
  return from_env_or("PAIRWISE_BINARY", PAIRWISE_BINARY);
}

// The directories fresh_dir made, removed when the test program ends.
struct TempDirs {
  std::vector<std::filesystem::path> made;
  ~TempDirs() {
    std::error_code ignored;
    for (const auto& dir : made) std::filesystem::remove_all(dir, ignored);
  }
};
inline TempDirs temp_dirs;

inline std::filesystem::path fresh_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("pairwise-mpi-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  temp_dirs.made.push_back(dir);
  return dir;
}

// Every number of a text file (tokens that parse completely as doubles), in order.
inline std::vector<double> numbers_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<double> values;
  std::string token;
  while (in >> token) {
    for (char& c : token)
      if (c == ',' || c == '(' || c == ')') c = ' ';
    std::istringstream parts(token);
    std::string part;
    while (parts >> part) {
      char* end = nullptr;
      const double v = std::strtod(part.c_str(), &end);
      if (end && *end == '\0' && end != part.c_str()) values.push_back(v);
    }
  }
  return values;
}

// The two files hold the same numbers within `relative` (relative to max(1, |a|)).
inline void expect_same_numbers(const std::filesystem::path& a, const std::filesystem::path& b,
                                double relative) {
  ASSERT_TRUE(std::filesystem::exists(a)) << a;
  ASSERT_TRUE(std::filesystem::exists(b)) << b;
  const auto x = numbers_of(a), y = numbers_of(b);
  ASSERT_EQ(x.size(), y.size()) << a << " vs " << b;
  ASSERT_GT(x.size(), 0u) << a;
  for (std::size_t i = 0; i < x.size(); ++i)
    ASSERT_LE(std::abs(x[i] - y[i]), relative * std::max(1.0, std::abs(x[i])))
        << "number " << i << " of " << a.filename() << ": " << x[i] << " vs " << y[i];
}

}  // namespace pairwise::mpitest

namespace pairwise::mpitest {

// The columns of a CSV file with a header row, by name.
inline std::vector<std::pair<std::string, std::vector<double>>> csv_columns(
    const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::vector<std::pair<std::string, std::vector<double>>> columns;
  if (!std::getline(in, line)) return columns;
  std::istringstream header(line);
  std::string name;
  while (std::getline(header, name, ',')) columns.push_back({name, {}});
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    for (std::size_t c = 0; c < columns.size() && std::getline(row, cell, ','); ++c)
      columns[c].second.push_back(std::strtod(cell.c_str(), nullptr));
  }
  return columns;
}

// Every column of two CSV files but `skip` (timings) agrees within `relative`.
inline void expect_same_csv(const std::filesystem::path& a, const std::filesystem::path& b,
                            double relative, const std::vector<std::string>& skip) {
  ASSERT_TRUE(std::filesystem::exists(a)) << a;
  ASSERT_TRUE(std::filesystem::exists(b)) << b;
  const auto x = csv_columns(a), y = csv_columns(b);
  ASSERT_EQ(x.size(), y.size());
  ASSERT_GT(x.size(), 0u) << a;
  for (std::size_t c = 0; c < x.size(); ++c) {
    ASSERT_EQ(x[c].first, y[c].first);
    if (std::find(skip.begin(), skip.end(), x[c].first) != skip.end()) continue;
    ASSERT_EQ(x[c].second.size(), y[c].second.size()) << x[c].first;
    ASSERT_GT(x[c].second.size(), 0u) << x[c].first;
    for (std::size_t i = 0; i < x[c].second.size(); ++i) {
      const double u = x[c].second[i], v = y[c].second[i];
      ASSERT_LE(std::abs(u - v), relative * std::max(1e-300, std::abs(u)))
          << a.filename() << " column " << x[c].first << " row " << i << ": " << u << " vs " << v;
    }
  }
}

}  // namespace pairwise::mpitest
