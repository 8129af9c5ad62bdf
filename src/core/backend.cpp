#include "pairwise/backend.hpp"

#include <omp.h>

#include "pairwise/error.hpp"

namespace pairwise {

BackendKind parse_backend(std::string_view text) {
  if (text == "auto") return BackendKind::automatic;
  if (text == "reference") return BackendKind::reference;
  if (text == "cpu") return BackendKind::cpu;
  if (text == "cuda") return BackendKind::cuda;
  throw Error("unknown backend '" + std::string(text) +
              "' (expected auto, reference, cpu or cuda)");
}

std::string_view to_string(BackendKind b) {
  switch (b) {
    case BackendKind::automatic:
      return "auto";
    case BackendKind::reference:
      return "reference";
    case BackendKind::cpu:
      return "cpu";
    case BackendKind::cuda:
      return "cuda";
  }
  return "?";
}

bool cuda_compiled() {
#ifdef PAIRWISE_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

#ifndef PAIRWISE_HAVE_CUDA
std::vector<DeviceInfo> cuda_devices(std::string* why) {
  if (why) *why = "this build has no CUDA backend (nvcc was not found when it was configured)";
  return {};
}
#endif

BackendKind resolve_backend(BackendKind requested, std::string* note) {
  std::string why;
  if (requested == BackendKind::automatic) {
    const auto devices = cuda_devices(&why);
    if (!devices.empty()) {
      if (note) *note = "backend auto: using cuda on device 0, " + devices[0].name;
      return BackendKind::cuda;
    }
    if (note) *note = "backend auto: using cpu (" + why + ")";
    return BackendKind::cpu;
  }
  if (requested == BackendKind::cuda) {
    const auto devices = cuda_devices(&why);
    if (devices.empty()) throw Error("--backend cuda has no usable GPU: " + why, "backend");
    if (note) *note = "backend cuda: device 0, " + devices[0].name;
    return requested;
  }
  if (note) *note = "backend " + std::string(to_string(requested));
  return requested;
}

int cpu_threads() {
  return omp_get_max_threads();
}

}  // namespace pairwise
