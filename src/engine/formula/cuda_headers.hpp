// The text of the kernel headers that NVRTC compiles again at run time (issue 13): the md and ljc
// force kernels are templates on a pair functor, compiled by nvcc with the built-in styles and by
// NVRTC with a functor generated from a formula. The headers are embedded into the library at
// configure time (embed_cuda_headers.cmake, the list of files is there), with small stand-ins for
// the C++ standard headers they include (nvrtc_std/: NVRTC ships no standard library).
#pragma once

#include <vector>

#include "engine/formula/nvrtc_loader.hpp"

namespace pairwise::formula {

const std::vector<CudaHeader>& embedded_cuda_headers();

}  // namespace pairwise::formula
