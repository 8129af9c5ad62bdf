// The host steps both md cuda engines share (cuda_md.cu, cuda_domain_engine.cu): the LJ pair
// table into the translation unit's constant tables (c_params_f, c_params_d of
// cuda_md_common.cuh) and the current device's name. Host code: not part of the NVRTC sources.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "md/cuda_md_common.cuh"
#include "md/system.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

// Uploads the table's pair parameters, in float and in double; true when any pair is
// force-shifted. Throws for more than kMaxTypes atom types.
inline bool upload_pair_params(const PairTable& table) {
  if (table.types > kMaxTypes)
    throw Error("the cuda engine supports up to " + std::to_string(kMaxTypes) + " atom types");
  bool any_sf = false;
  std::vector<physics::LjPairParams<float>> pf(kMaxTypes * kMaxTypes);
  std::vector<physics::LjPairParams<double>> pd(kMaxTypes * kMaxTypes);
  for (std::size_t k = 0; k < table.params.size(); ++k) {
    pd[k] = table.params[k];
    pf[k] = physics::lj_pair_params_cast<float>(table.params[k]);
    any_sf = any_sf || table.params[k].f_shift != 0;
  }
  PW_CUDA(cudaMemcpyToSymbol(c_params_f, pf.data(), sizeof(pf[0]) * pf.size()));
  PW_CUDA(cudaMemcpyToSymbol(c_params_d, pd.data(), sizeof(pd[0]) * pd.size()));
  return any_sf;
}

// The name of the current CUDA device.
inline std::string current_device_name() {
  int dev = 0;
  PW_CUDA(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  PW_CUDA(cudaGetDeviceProperties(&prop, dev));
  return prop.name;
}

}  // namespace
}  // namespace pairwise::md
