// The MPI communicator (MPI_COMM_WORLD) and the GPU-collective transport note. Declared for
// every build; without MPI, mpi_compiled() is false and start_mpi() is never called.
#pragma once

#include <memory>
#include <string>

#include "parallel/communicator.hpp"

namespace pairwise::parallel {

bool mpi_compiled();
// MPI_Init_thread (funneled: OpenMP threads do not call MPI) and MPI_COMM_WORLD as a
// Communicator whose destructor calls MPI_Finalize.
std::unique_ptr<Communicator> start_mpi(int& argc, char**& argv);
// Which transport GPU collectives use: "NCCL 2.28.3" when libnccl.so.2 loads, else
// "MPI through host memory (NCCL not loaded: <why>)" (nccl.cpp).
std::string gpu_transport_note();

}  // namespace pairwise::parallel
