#include "potmap/rank_slabs.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "parallel/communicator.hpp"
#include "potmap/cuda_map.hpp"

namespace pairwise::potmap {

MapResult map_across_ranks(BackendKind backend, const Atoms& atoms, const Lattice& lattice,
                           const MapOptions& options) {
  parallel::Communicator& comm = parallel::world();
  const std::size_t plane = lattice.counts[1] * lattice.counts[2];
  const parallel::Block mine = parallel::block_of(lattice.counts[0], comm.rank(), comm.size());
  Lattice slab = lattice;
  slab.counts[0] = mine.size();
  // Atoms farther than the cutoff (and the exclusion radius) from the slab add exactly 0.
  Atoms reaching;
  if (mine.size() > 0) {
    slab.origin[0] = lattice.coord(0, mine.begin);
    if (options.cutoff > 0) {
      const double reach = std::max(options.cutoff, options.exclusion) + lattice.spacing;
      const double lo = slab.origin[0] - reach, hi = lattice.coord(0, mine.end - 1) + reach;
      for (std::size_t a = 0; a < atoms.size(); ++a)
        if (atoms.x[a] >= lo && atoms.x[a] <= hi)
          reaching.push_back(atoms.x[a], atoms.y[a], atoms.z[a], atoms.q[a]);
    } else {
      reaching = atoms;
    }
  }
  // Described once the map is made: the GPU collectives' transport is known only then.
  const auto ranks = [&] {
    return "; " + parallel::describe_ranks(backend == BackendKind::cuda ? 1 : 0);
  };
  // cuda: the slabs are all-gathered on the GPUs (std::nullopt where the map does not fit there).
  if (backend == BackendKind::cuda) {
    std::optional<MapResult> on_gpus = cuda_map_across_ranks(reaching, slab, lattice, options);
    if (on_gpus) {  // its seconds are already the slowest rank's
      on_gpus->device += ranks();
      return std::move(*on_gpus);
    }
  }
  MapResult result;
  result.values.assign(lattice.size(), 0.0);
  result.backend = backend;
  result.precision = options.precision;
  if (reaching.size() > 0) {
    parallel::RankLocalWork local;
    MapResult part = compute_map(backend, reaching, slab, options);
    std::copy(part.values.begin(), part.values.end(),
              result.values.begin() + long(mine.begin * plane));
    result.backend = part.backend, result.precision = part.precision;
    result.device = part.device, result.seconds = part.seconds;
    result.slabs = part.slabs, result.slab_note = part.slab_note;
  }
  parallel::allgather_blocks(comm, std::span<double>(result.values), plane);
  // The map is done when the slowest rank's slab is.
  comm.allreduce_max(std::span<double>(&result.seconds, 1));
  if (result.device.empty()) result.device = std::string(to_string(backend));
  result.device += ranks() + ", slabs of x-planes all-gathered through host memory";
  return result;
}

}  // namespace pairwise::potmap
