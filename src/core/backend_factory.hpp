// The dispatch of a kernel factory on a resolved backend, written once for the workloads whose
// factories choose among a reference, a cpu and a cuda implementation (nbody, ljc, fredholm): the
// cuda factory runs only in a CUDA build (elsewhere the Error names the missing backend), and an
// unresolved `automatic` is a programming error named after the factory.
#pragma once

#include <string>

#include "pairwise/backend.hpp"
#include "pairwise/error.hpp"

namespace pairwise {

template <class Reference, class Cpu, class Cuda>
auto make_for_backend(BackendKind backend, const char* factory, Reference&& reference, Cpu&& cpu,
                      [[maybe_unused]] Cuda&& cuda) -> decltype(reference()) {
  switch (backend) {
    case BackendKind::reference:
      return reference();
    case BackendKind::cpu:
      return cpu();
    case BackendKind::cuda:
#ifdef PAIRWISE_HAVE_CUDA
      return cuda();
#else
      throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
#endif
    case BackendKind::automatic:
      break;
  }
  throw Error(std::string(factory) + " needs a resolved backend, not auto");
}

}  // namespace pairwise
