// pairwise::cuda_devices (pairwise/backend.hpp) for CUDA builds: the devices this build can run on.
// The build holds sm_90 machine code plus compute_90 PTX, so a device needs compute capability
// >= 9.0 (newer ones JIT the PTX); older devices are listed in `why` as unusable. Never throws.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "pairwise/backend.hpp"

namespace pairwise {

std::vector<DeviceInfo> cuda_devices(std::string* why) {
  std::vector<DeviceInfo> usable;
  std::string reason;
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || (status == cudaSuccess && count == 0)) {
    reason = "no CUDA device";
  } else if (status == cudaErrorInsufficientDriver) {
    reason = std::string("no CUDA driver, or one too old for this build (") +
             cudaGetErrorString(status) + ")";
  } else if (status != cudaSuccess) {
    reason = std::string("CUDA is not usable: ") + cudaGetErrorString(status);
  }
  int previous = 0;
  if (status == cudaSuccess) cudaGetDevice(&previous);
  for (int i = 0; status == cudaSuccess && i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = prop.name;
    d.compute_major = prop.major;
    d.compute_minor = prop.minor;
    d.multiprocessors = prop.multiProcessorCount;
    cudaDeviceGetAttribute(&d.clock_khz, cudaDevAttrClockRate, i);
    if (prop.major < 9) {
      if (!reason.empty()) reason += "; ";
      reason += "device " + std::to_string(i) + " (" + d.name + ") has compute capability " +
                std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                ", this build needs >= 9.0";
      continue;
    }
    // Free memory needs a context on the device (created here once; the backend reuses it).
    if (cudaSetDevice(i) == cudaSuccess) {
      std::size_t free_b = 0, total_b = 0;
      const cudaError_t mem = cudaMemGetInfo(&free_b, &total_b);
      if (mem != cudaSuccess) {
        if (!reason.empty()) reason += "; ";
        reason += "device " + std::to_string(i) + ": " + cudaGetErrorString(mem);
        cudaGetLastError();  // clear the sticky-free error so later calls start clean
        continue;
      }
      d.free_bytes = free_b;
      d.total_bytes = total_b;
    }
    usable.push_back(d);
  }
  if (status == cudaSuccess && count > 0) cudaSetDevice(previous);
  if (usable.empty() && reason.empty()) reason = "no usable CUDA device";
  if (why) *why = usable.empty() ? reason : std::string();
  return usable;
}

}  // namespace pairwise
