// The arguments of the ljc Newton-3 tile kernel and of the custom term's 1-4 kernel
// (cuda_ljc_tiles.cuh), as plain structs that g++, nvcc and NVRTC all compile with the same layout:
// the built-in launcher (cuda_ljc.cu) and the custom term's (cuda_custom_term.cpp, through the
// driver API) pass them by value. See cuda_ljc.cuh for what the tile kernel does.
#pragma once

#include <cstdint>

#include "pairwise/hd.hpp"

namespace pairwise::ljc::cuda {

// Double precision's energies are not summed with FP64 atomics, whose order (and so the last bits
// of the sum) would vary from run to run: every writer (a warp of the tile kernel, a block of the
// bonded and 1-4 kernels, a target of the one-sided kernel) stores its own sums into its own slot
// of kEnergySlotWidth doubles (LJ, Coulomb, bond), and one block adds the slots in a fixed order
// (launch_sum_energy_slots, cuda_ljc.cuh), so that they are bitwise reproducible. Single and mixed
// sum them as 64-bit fixed-point integers (order-independent) into [3] long long.
inline constexpr int kEnergySlotWidth = 3;
// Threads per block of the bonded and 1-4 kernels (one energy slot per block in double).
inline constexpr int kEnergyBlockThreads = 128;

// Mixed precision's near/far tiles (docs/performance.md, "ljc mixed: spatial order and near/far
// tiles"): the atoms sit in a spatial order (tile_masks.hpp: spatial_tile_order), and each tile of
// B slots has a box from its atoms' current double positions: centre c (Å), half extents h and
// |h|² (padding slots excluded). A far tile pair (I, J) takes the FP32 displacement
//   d = fl(s_j - t_i),  s_j = fl(x_j - c_J) (per atom, a kernel per call),  t_i = fl(x_i - c_J)
// (per target and tile, from the double-single x_i in FP64), whose error per component is at most
// u·(|s_j| + |t_i| + |d|) <= u·(2|d_c| + 2 h_J,c) (u = 2^-24), so |err| <= 2u(|d| + |h_J|); with
// the boxes' gap g(I, J) >= kappa·|h_J| (g <= |d| for every pair of the tiles) that is at most
// 2u(1 + 1/kappa)·|d|. Near tiles take the double-single displacement (x_j,hi - x_i,hi) +
// (x_j,lo - x_i,lo), error ~u·|d|.
struct TileBox {
  double c[3];
  double h2;  // |h|²
  double h[3];
  double pad;
};
PW_HD TileBox make_tile_box(const double (&lo)[3], const double (&hi)[3]) {
  TileBox b{};
  for (int k = 0; k < 3; ++k) {
    b.c[k] = 0.5 * (lo[k] + hi[k]);
    b.h[k] = 0.5 * (hi[k] - lo[k]);
    b.h2 += b.h[k] * b.h[k];
  }
  return b;
}
// Whether tile pair (I, J) is far: g² >= kappa² |h_J|² and g > 0, g the distance between the
// boxes (a lower bound of every pair's distance).
PW_HD bool far_tile_pair(const TileBox& i, const TileBox& j, double kappa) {
  double g2 = 0;
  for (int k = 0; k < 3; ++k) {
    const double dc = j.c[k] - i.c[k];
    const double g = (dc < 0 ? -dc : dc) - i.h[k] - j.h[k];
    if (g > 0) g2 += g * g;
  }
  return g2 > 0 && g2 >= kappa * kappa * j.h2;
}

// Which tiles a launch of the tile kernel takes: every tile of the triangle (or square), in its
// folded order; or one of mixed's near/far lists (built per call on the device from the tile
// boxes: far when far_tile_pair and unmasked): near tiles with the double-single displacement,
// far tiles with FP32 offsets from the source tile's centre. Near and far run as two launches so
// that each kernel holds one pair body: one kernel with both, choosing per tile, measured 1.05 T
// pairs/s at N = 65,536 against 1.39 T with the double-single body alone (the warps of an SM
// then run both bodies at once).
enum class TileSet { all, near, far };
struct TilePair {
  int I, J;  // target and source tile, J >= I
};

struct TileKernelArgs {
  int n = 0, n_blocks = 0;
  long long n_tiles = 0;      // tiles enumerated (the folded upper triangle)
  int warps = 0;              // warps launched; each takes a contiguous chunk of the tiles' groups
  const void* pos = nullptr;  // float4 / double4 [n_blocks·B]: x, y, z, 0
  const void* pos_lo = nullptr;          // float4, mixed only
  const void* par = nullptr;             // float4 / double4: the pair functor's three parameters
  const int* tile_mask_index = nullptr;  // [n_blocks²] -1 or the tile's mask
  const std::uint32_t* masks = nullptr;  // [masked tiles][kI·kI·32]
  void* force = nullptr;                 // long long (fixed point) or double [3][n]
  // The functor's two energies: long long [2] (fixed point), or in double the slots
  // [warps][kEnergySlotWidth] (warp w's sums in slot w; the slots are zero before the launch).
  void* energy_acc = nullptr;
  double sig[4] = {};
  // Every atom the same parameters (but the charge): the unmasked tiles call the functor's
  // `uniform` with these three constants (built-in: σ², 24 ε, 48 ε; a formula: σ, ε, unused).
  bool uniform_lj = false;
  double lj_sigma2 = 0, lj_eps24 = 0, lj_eps48 = 0;
  // Mixed's near/far tiles (TileSet; nullptr otherwise): slot s of pos, pos_lo, par and the
  // masks holds atom atom_of_slot[s], whose force is accumulated at its own index; the launch's
  // tiles, tile_list[0 .. *tile_list_count) (device memory, grouped by row); far launches read
  // the source tile's centre from tile_boxes and the sources' FP32 offsets from pos_off.
  const int* atom_of_slot = nullptr;
  const TilePair* tile_list = nullptr;
  const int* tile_list_count = nullptr;
  const TileBox* tile_boxes = nullptr;
  const void* pos_off = nullptr;  // float4 [n_blocks·B]
};

// The 1-4 pairs of a custom term (the tile kernel's masks skip them): pair k = (pair_ij[k],
// pair_ij[n_pairs + k]) times `scale`, positions from double x [3][n].
struct Pairs14Args {
  int n = 0, n_pairs = 0;
  const int* pair_ij = nullptr;
  double scale = 1;
  const double* x = nullptr;
  const void* par = nullptr;
  void* force = nullptr;
  void* energy_acc = nullptr;  // as TileKernelArgs's; double: block b's sums in slot b
  bool energy = true;
};

}  // namespace pairwise::ljc::cuda
