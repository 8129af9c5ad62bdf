// The cuda backend of potential maps (cuda_map.cu); compiles with g++. Without the CUDA backend in
// the build, cuda_map throws pairwise::Error.
#pragma once

#include "potmap/map.hpp"

namespace pairwise::potmap {

// Direct or cutoff map on the GPU: atoms binned on the device (a counting sort into cells), each
// region of lattice points scanning the bins its cutoff sphere reaches, exclusions on the device;
// lattices larger than the memory limit in slabs of x-planes. MapResult::seconds is measured with
// CUDA events around everything after the atoms' upload (binning, summation, exclusions).
MapResult cuda_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options);

// Default edge of the cuda backend's atom bins (Å).
inline constexpr double kDefaultBinSize = 4.0;

}  // namespace pairwise::potmap
