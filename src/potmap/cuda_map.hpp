// The cuda backend of potential maps (cuda_map.cu); compiles with g++. Without the CUDA backend in
// the build, cuda_map throws pairwise::Error.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "potmap/frames.hpp"
#include "potmap/map.hpp"

namespace pairwise::potmap {

// Direct or cutoff map on the GPU: atoms binned on the device (a counting sort into cells), each
// region of lattice points scanning the bins its cutoff sphere reaches, exclusions on the device;
// lattices larger than the memory limit in slabs of x-planes. MapResult::seconds is measured with
// CUDA events around everything after the atoms' upload (binning, summation, exclusions). The map
// is copied into `values` (resized to the lattice; see compute_map for why a caller gives it).
MapResult cuda_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options,
                   std::vector<double> values = {});

// Maps of many frames on the device (frames.hpp): buffers kept across frames, each frame's atoms
// uploaded from pinned memory on a stream and its map folded into an FP64 device accumulator
// (sum, min or max), so add() returns while the device works. The whole map must fit in device
// memory (no slabs): otherwise an error names the bytes needed.
std::unique_ptr<FrameMaps> cuda_frame_maps(const Lattice& lattice, const MapOptions& options,
                                           Combine combine);

// A map across ranks on the GPUs (rank_slabs.hpp; collective: every rank calls it): this rank's
// `slab` of `lattice` (its x-planes, parallel::block_of; none on some ranks) from `atoms` (those
// that reach it) summed into its block of a device buffer of P equal blocks (padded to the largest
// slab, as NCCL requires), all-gathered in place on the GPUs through parallel::GpuCollectives
// (NCCL when it loads, else MPI through host memory), then every rank's planes downloaded into
// the whole map. MapResult::seconds is the slowest rank's slab and all-gather (the same on every
// rank). std::nullopt (on every rank) when the gathered map does not fit in some rank's free
// device memory: the caller then takes the host path.
std::optional<MapResult> cuda_map_across_ranks(const Atoms& atoms, const Lattice& slab,
                                               const Lattice& lattice, const MapOptions& options);

// Creates the CUDA context of `device` (cudaFree(0)): called on a thread of its own while the
// host reads the input, so that the 0.2-0.4 s of context creation overlap with reading. Returns
// whether it worked; never throws (the map's own calls report errors).
bool cuda_start_context(int device) noexcept;
// Then loads the kernels a map with these options launches (CUDA loads each at its first launch
// otherwise). Never throws; both do nothing without the cuda backend.
void cuda_warm_up(const MapOptions& options) noexcept;

// Default edge of the cuda backend's atom bins (Å).
inline constexpr double kDefaultBinSize = 4.0;

}  // namespace pairwise::potmap
