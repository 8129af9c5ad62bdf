// The md engine across ranks (spatial domain decomposition: domain_engine.cpp on the cpu backend,
// cuda_domain_engine.cu on the cuda backend). make_md_engine returns it when more than one rank
// runs; with one rank nothing changes.
#pragma once

#include <memory>

#include "md/engine.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::md {

// Throws pairwise::Error for a backend other than cpu and cuda and, at set_state, when the ranks
// cannot cut the box into domains at least cutoff + skin wide.
std::unique_ptr<MdEngine> make_domain_engine(BackendKind backend, const EngineOptions& o,
                                             parallel::Communicator& comm);
// The cuda backend's (cuda_domain_engine.cu): the same decomposition with the state and the steps
// on the rank's GPU. Throws in a build without CUDA.
std::unique_ptr<MdEngine> make_cuda_domain_engine(const EngineOptions& o,
                                                  parallel::Communicator& comm);

}  // namespace pairwise::md
