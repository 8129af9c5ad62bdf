// The arguments of the ljc Newton-3 tile kernel and of the custom term's 1-4 kernel
// (cuda_ljc_tiles.cuh), as plain structs that g++, nvcc and NVRTC all compile with the same layout:
// the built-in launcher (cuda_ljc.cu) and the custom term's (cuda_custom_term.cpp, through the
// driver API) pass them by value. See cuda_ljc.cuh for what the tile kernel does.
#pragma once

#include <cstdint>

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
