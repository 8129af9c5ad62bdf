// The text of the kernel headers that NVRTC compiles again at run time (issue 13): the md and ljc
// force kernels are templates on a pair functor, compiled by nvcc with the built-in styles and by
// NVRTC with a functor generated from a formula. The headers are embedded into the library at
// configure time (embed_cuda_headers.cmake, the list of files is there), with small stand-ins for
// the C++ standard headers they include (nvrtc_std/: NVRTC ships no standard library).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "engine/formula/nvrtc_loader.hpp"

namespace pairwise::formula {

const std::vector<CudaHeader>& embedded_cuda_headers();

// A generated program over the embedded headers: `source`, the name expressions of its kernels,
// for sm_`arch` (0: device 0's). Every workload's formula kernels are built this way; a workload
// adds its NVRTC options or extra headers to what this returns.
inline CudaProgram embedded_cuda_program(std::string source, std::vector<std::string> names,
                                         int arch) {
  CudaProgram p;
  p.source = std::move(source);
  p.headers = embedded_cuda_headers();
  p.name_expressions = std::move(names);
  p.arch = arch;
  return p;
}

}  // namespace pairwise::formula
