// Backend selection (OpenMM's Platform idea): reference (double, plain loops, the oracle),
// cpu (OpenMP), cuda. `auto` picks CUDA when a usable device exists, else cpu.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pairwise {

enum class BackendKind { automatic, reference, cpu, cuda };

BackendKind parse_backend(std::string_view text);  // throws pairwise::Error
std::string_view to_string(BackendKind b);

struct DeviceInfo {
  int index = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  int clock_khz = 0;
  std::size_t total_bytes = 0, free_bytes = 0;
};

// True when this build contains the CUDA backend.
bool cuda_compiled();
// The usable CUDA devices (empty without the CUDA backend, a driver or a device). When there is
// none, `why` (if given) says why: "built without CUDA", "no CUDA driver", ...
std::vector<DeviceInfo> cuda_devices(std::string* why = nullptr);

// Resolves `automatic`; checks that an explicitly requested cuda backend is usable (throws
// pairwise::Error otherwise). `note` receives a sentence for the log ("backend auto: using cuda on
// ...").
BackendKind resolve_backend(BackendKind requested, std::string* note = nullptr);

// Number of OpenMP threads the cpu backend uses.
int cpu_threads();

}  // namespace pairwise
