// `pairwise info`: version, compiled backends, CUDA devices, OpenMP threads and precision modes.
#include <cstdio>
#include <iostream>
#include <string>

#include "commands.hpp"
#include "pairwise/backend.hpp"

namespace pairwise::cli {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

int print_info() {
  std::cout << "pairwise " << PAIRWISE_VERSION << "\n\nbackends\n"
            << "  reference  double precision, plain loops: the oracle the others are tested "
               "against\n"
            << "  cpu        OpenMP, " << cpu_threads()
            << " threads (set OMP_NUM_THREADS to change), float or double\n"
            << "  cuda       "
            << (cuda_compiled() ? "compiled in" : "not compiled in (no nvcc at build time)")
            << "\n\nCUDA devices\n";
  std::string why;
  const auto devices = cuda_devices(&why);
  if (devices.empty()) std::cout << "  none: " << why << "\n";
  for (const auto& d : devices) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "  %d: %s, sm_%d%d, %d SMs, %.2f GHz, %.1f GiB total, %.1f GiB free\n", d.index,
                  d.name.c_str(), d.compute_major, d.compute_minor, d.multiprocessors,
                  d.clock_khz / 1e6, d.total_bytes / kGiB, d.free_bytes / kGiB);
    std::cout << line;
  }
  std::cout << "  --backend auto uses " << (devices.empty() ? "cpu" : "cuda on device 0") << "\n"
            << "\nprecision modes (--precision)\n"
            << "  single   FP32 throughout\n"
            << "  mixed    (default) FP32 pair arithmetic; FP64 (or double-single) positions and\n"
            << "           FP64 force accumulation\n"
            << "  double   FP64 throughout\n";
  return 0;
}

}  // namespace

Command add_info_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand(
      "info", "Show the version, compiled backends, CUDA devices, threads and precision modes");
  return {sub, print_info};
}

}  // namespace pairwise::cli
