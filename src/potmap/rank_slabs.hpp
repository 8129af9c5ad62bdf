// A potential map across ranks (issue 14): rank r computes the slab of x-planes
// parallel::block_of(nx, r, P) on its backend, from the atoms that reach the slab only (within
// the cutoff, or the exclusion radius, of it; every atom for direct summation), and the planes are
// all-gathered so that every rank holds the map (rank 0 writes it): on the cuda backend on the
// GPUs (cuda_map_across_ranks: GpuCollectives, NCCL when it loads), else through host MPI.
// compute_map calls this when more than one rank runs.
#pragma once

#include "potmap/map.hpp"

namespace pairwise::potmap {

MapResult map_across_ranks(BackendKind backend, const Atoms& atoms, const Lattice& lattice,
                           const MapOptions& options);

}  // namespace pairwise::potmap
