// The per-tile exclusion masks of the CUDA pair kernels (cuda_ljc.cuh), built on the host.
// Targets and sources are grouped in blocks of B = 32·kI atoms (padded to a multiple of B); tile
// (I, J) holds B × B pairs. A tile that contains an excluded pair, a 1-4 pair (added back by the
// bonded kernel), an atom with itself or a padding atom gets kI·kI·32 words: word
// [(k·kI + u)·32 + lane] bit s is set when the pair (target I·B + 32k + lane,
// source J·B + 32u + ((lane + s) mod 32)) is to be skipped. Every other tile has no mask
// (index -1) and runs the unmasked path.
#pragma once

#include <cstdint>
#include <vector>

#include "ljc/cuda_tile_args.hpp"
#include "ljc/molecule.hpp"

namespace pairwise::ljc {

struct TileMasks {
  int i_per_lane = 1;  // kI
  int block = 32;      // B
  int n_blocks = 0;
  bool newton3 = false;              // only tiles J >= I are used (and masked)
  std::vector<int> index;            // [n_blocks²], -1: unmasked
  std::vector<std::uint32_t> words;  // [masked tiles][kI·kI·32]
  long long tiles() const {
    return newton3 ? (long long)n_blocks * (n_blocks + 1) / 2 : (long long)n_blocks * n_blocks;
  }
  // True when the pair (target i, source j) is skipped (for tests).
  bool skipped(int i, int j) const;
};

TileMasks build_tile_masks(int n, const PairLists& lists, int i_per_lane, bool newton3);

// The same skips for the one-sided engine kernel, per target: the rows of its 32 × 32 tiles that
// hold any skipped pair, entries (J, bits) sorted by J with bit b for source 32 J + b; the atom
// itself, excluded and 1-4 pairs are skipped. Entries of target i: [row_start[i], row_start[i+1]).
struct RowMasks {
  std::vector<int> row_start;
  std::vector<std::int32_t> entries;  // pairs J, bits (an int2 array on the device)
  bool skipped(int i, int j) const;
};
RowMasks build_row_masks(int n, const PairLists& lists);

// The far test's kappa of mixed precision's near/far tiles (cuda_tile_args.hpp: far_tile_pair):
// a far pair's displacement error is at most 2u(1 + 1/kappa)·|d| = 4u·|d| (u = 2^-24; the
// double-single one's ~u·|d|); docs/performance.md, "ljc mixed: spatial order and near/far
// tiles", gives the measured speed and errors of kappa 1, 1.5, 2 and 4.
inline constexpr double kNearFarKappa = 1.0;

// The spatial order of mixed precision's near/far tiles (cuda_tile_args.hpp, TileBox): slot s
// holds atom order[s]. Recursive bisection of the atoms' bounding box across its longest side,
// split after a whole number of tiles (half of them, rounded down), so that every tile of `block`
// consecutive slots (the last one partial) is a compact box and neighbouring tiles lie near each
// other; ties by index (deterministic).
std::vector<int> spatial_tile_order(int n, const double* x, const double* y, const double* z,
                                    int block);
// The lists with every atom i replaced by its slot (order[slot] = i).
PairLists lists_in_order(const PairLists& lists, const std::vector<int>& order);
// The boxes of the tiles of `block` slots of that order (as launch_pack_tiles builds them).
std::vector<cuda::TileBox> tile_boxes(int n, const double* x, const double* y, const double* z,
                                      const std::vector<int>& order, int block);
// The fraction of the Newton-3 tiles (J >= I) that run near: masked (the diagonal among them) or
// not far_tile_pair(I, J, kappa).
double near_tile_fraction(const std::vector<cuda::TileBox>& boxes, const TileMasks& masks,
                          double kappa);

}  // namespace pairwise::ljc
