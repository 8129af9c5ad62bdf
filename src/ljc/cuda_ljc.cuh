// CUDA kernels of the ljc workload behind host launchers taking plain structs (compiles with g++:
// no device code here). Algorithms: cuda_ljc.cu, cuda_one_sided.cu and docs/ljc.md.
//
// Two pair kernels:
//   one-sided  the shared all-pairs engine (engine/all_pairs.cuh) instantiated with LjcPolicy
//              (cuda_one_sided.cu): each ordered pair once, exclusions from per-target rows of the
//              32 × 32 tile masks (OneSidedArgs);
//   newton3    warp tiles of B = 32·kI targets × B sources with J >= I (TileArgs): kI targets per
//              lane in registers, sources read from shared memory and the forces on them
//              rotated across the lanes by shuffles, 32 at a time, each unordered pair once;
//              diagonal tiles run one-sided.
//              (tiles_kernel keeps a one-sided mode, kN3 = false, that no launcher instantiates.)
// In the Newton-3 tiles, excluded pairs (1-2, 1-3, explicit), 1-4 pairs (added back scaled by the
// bonded kernel), the atom with itself and the padding past N are skipped by a compact per-tile
// mask: kI·kI·32 words per tile that has any (one bit per (target lane, rotation step)); tiles
// without are unmasked and run the branch-free path. Forces are summed with 64-bit fixed-point
// integer atomics (2^-32 kcal/(mol·Å) resolution) in single and mixed, so results are bitwise
// reproducible; double sums forces with FP64 atomics here and in the bonded kernel (order not
// fixed: reproducible to rounding, not bitwise), and its energies in per-writer slots added in a
// fixed order (kEnergySlotWidth, cuda_tile_args.hpp: bitwise reproducible).
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/all_pairs.hpp"
#include "ljc/cuda_tile_args.hpp"
#include "pairwise/physics/dielectric.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::ljc::cuda {

inline constexpr double kFixedScale = 4294967296.0;  // 2^32

struct TileArgs {
  Precision precision = Precision::single;
  physics::DielectricKind dielectric = physics::DielectricKind::constant;
  bool newton3 = false, energy = true;
  int n = 0, n_blocks = 0, i_per_lane = 1;  // B = 32 · i_per_lane
  long long n_tiles = 0;                    // tiles enumerated (triangle or square)
  int warps = 0;  // cap on the warps launched (0: one resident wave); each takes a chunk
  const void* pos = nullptr;             // float4 / double4 [n_blocks·B]: x, y, z, 0
  const void* pos_lo = nullptr;          // float4, mixed only
  const void* par = nullptr;             // float4 / double4: q (scaled), σ/2, sqrt ε, 0
  const int* tile_mask_index = nullptr;  // [n_blocks²] -1 or the tile's mask
  const std::uint32_t* masks = nullptr;  // [masked tiles][kI·kI·32]
  void* force = nullptr;                 // long long or double [3][n]
  // LJ, Coulomb: long long [2], or double's slots (warp w's in slot w, as TileKernelArgs's; at
  // most max_tile_warps() warps).
  void* energy_acc = nullptr;
  double sig[4] = {};
  // Every atom has the same σ and ε: unmasked tiles take σ², 24 ε and 48 ε from here, not from the
  // atoms (no mixing per pair); masked tiles still mix the atoms' own parameters.
  bool uniform_lj = false;
  double lj_sigma2 = 0, lj_eps24 = 0, lj_eps48 = 0;
  // Mixed's near/far tiles (TileSet, TileKernelArgs: cuda_tile_args.hpp): which tiles, the
  // spatial order, the launch's list and its length (device), the tile boxes and the FP32
  // offsets (launch_pack_tiles, launch_classify_tiles).
  TileSet tile_set = TileSet::all;
  const int* atom_of_slot = nullptr;
  const TilePair* tile_list = nullptr;
  const int* tile_list_count = nullptr;
  const TileBox* tile_boxes = nullptr;
  const void* pos_off = nullptr;
  void* stream = nullptr;
};
void launch_tiles(const TileArgs& a);
// The most warps a tile launch on `device` uses (one resident wave): double precision's energy
// slots of a tile launch.
long long max_tile_warps(int device);

// The one-sided kernel: an instantiation of the shared all-pairs engine (cuda_one_sided.cu), with
// per-target rows of the 32 × 32 tile masks (int2 {J, bits}, sorted by J) for the exclusions.
// Sources carry their index in par.w (float bits, or a double).
struct OneSidedArgs {
  // The engine's members (engine/all_pairs.cuh).
  int n_i = 0, n_j = 0;
  engine::AllPairsPlan plan;
  void* partial = nullptr;
  unsigned* tickets = nullptr;
  // The ljc policy's.
  Precision precision = Precision::single;
  physics::DielectricKind dielectric = physics::DielectricKind::constant;
  bool energy = true;
  const void* pos = nullptr;
  const void* pos_lo = nullptr;
  const void* par = nullptr;
  const int* row_start = nullptr;   // [n + 1]
  const void* row_masks = nullptr;  // int2 {J, bits} [row_start[n]]
  void* force = nullptr;
  void* energy_acc = nullptr;  // long long [2], or double's slots [n] (target k's in slot k)
  double sig[4] = {};
  void* stream = nullptr;
};
engine::AllPairsPlan plan_one_sided(Precision p, physics::DielectricKind d, int n, int sms,
                                    std::size_t max_partial_bytes);
std::size_t one_sided_partial_bytes(Precision p, const engine::AllPairsPlan& plan, int n);
void launch_one_sided(const OneSidedArgs& a);

// Bonds (½ k (r - r0)²) and 1-4 pairs (scaled LJ + Coulomb) from double positions, into the same
// accumulators (energy_acc[2] holds the bond energy; double: slots [bonded_blocks], block b's
// sums in slot b).
struct BondedArgs {
  Precision precision = Precision::single;
  physics::DielectricKind dielectric = physics::DielectricKind::constant;
  bool energy = true;
  int n_bonds = 0, n_pairs14 = 0;
  const int* bond_ij = nullptr;     // [2][n_bonds]
  const double* bond_rk = nullptr;  // [2][n_bonds]: r0, k
  const int* pair_ij = nullptr;     // [2][n_pairs14]
  double scale14_lj = 0, scale14_coulomb = 0;
  const double* x = nullptr;  // [3][n] double positions
  const void* par = nullptr;
  void* force = nullptr;
  void* energy_acc = nullptr;  // [3]
  int n = 0;
  double sig[4] = {};
  void* stream = nullptr;
};
void launch_bonded(const BondedArgs& a);
// Blocks (kEnergyBlockThreads threads) of the bonded kernel: its energy slots in double.
long long bonded_blocks(int n_bonds, int n_pairs14);

// Builds pos (and pos_lo) of the tile layout from double positions [3][n]; pads with far atoms.
void launch_pack_positions(Precision p, const double* x, int n, int n_padded, void* pos,
                           void* pos_lo, void* stream);
// Mixed's near/far tiles: pos and pos_lo (double-single) in the spatial order, slot s holding
// atom atom_of_slot[s] of the double positions x [3][n] (padding as launch_pack_positions); per
// tile of `block` slots its box (TileBox, from its atoms, not the padding) into boxes[n_blocks],
// and pos_off[s] = fl(x - c) (float4) relative to the tile's centre.
void launch_pack_tiles(const double* x, const int* atom_of_slot, int n, int n_blocks, int block,
                       void* pos, void* pos_lo, void* pos_off, TileBox* boxes, void* stream);
// Mixed's near/far lists of the Newton-3 tiles (J >= I) from the boxes and masks: far when
// unmasked and far_tile_pair(boxes[I], boxes[J], kappa), else near; each list by rows in the
// tile kernel's folded order (0, nb-1, 1, nb-2, ...), by J in a row (deterministic), lengths into
// counts[0] (near) and counts[1] (far). row_counts: scratch of 2·(n_blocks + 1) ints. Lists of
// n_blocks·(n_blocks + 1)/2 entries each at most.
void launch_classify_tiles(const TileBox* boxes, const int* tile_mask_index, int n_blocks,
                           double kappa, int* row_counts, TilePair* near_list, TilePair* far_list,
                           int* counts, void* stream);
// force_out[3][n] (double) = accumulators converted, accumulators zeroed; energies likewise:
// single and mixed from their [3] fixed-point sums, double from `energy_slots` slots (0: the
// energies are left as they are; launch_sum_energy_slots).
void launch_finish_forces(Precision p, void* force, void* energy_acc, long long energy_slots, int n,
                          double* force_out, double* energy_out, void* stream);
// out[kEnergySlotWidth] = the sums of `count` double energy slots (cuda_tile_args.hpp) in a fixed
// order; the slots are zeroed.
void launch_sum_energy_slots(void* slots, long long count, double* out, void* stream);

// The two halves of one step of the shared dynamics around the force evaluation
// (engine::dynamics_step, with the PW_HD steps of pairwise/physics/dynamics.hpp), arrays double
// [3][n]: first = half kick + drift (BAOAB: half kick, drift dt/2, O step, drift dt/2), second =
// half kick, then the device step counter (the Langevin random counter) is advanced. Fused: the
// first half also packs the new positions into the pair kernels' layout (pos, pos_lo); the second
// first converts the force accumulators into f (and zeroes them), as launch_finish_forces does.
struct StepArgs {
  Precision precision = Precision::single;
  void* pos = nullptr;  // nullptr: no packing (mixed's near/far tiles pack in launch_pack_tiles)
  void* pos_lo = nullptr;
  void* force_acc = nullptr;  // long long or double [3][n]
  double* x = nullptr;
  double* v = nullptr;
  double* f = nullptr;
  const double* inv_mass = nullptr;
  int n = 0;
  double dt = 1;
  bool langevin = false;
  double kT = 0, c1 = 1, c2 = 0;
  unsigned long long seed = 0;
  unsigned long long* step = nullptr;  // device: the index of the last step before this chain
  int offset = 0;   // this launch starts step *step + offset + 1 (its Langevin counter)
  int advance = 0;  // second half only: *step += advance (the chain's length)
  void* stream = nullptr;
};
void launch_step_first(const StepArgs& a);
void launch_step_second(const StepArgs& a);
// A chain of S steps is  first(0), pairs, [between(k), pairs] for k = 1 .. S-1, second(S):
// `between` is the second half of step k and the first half of step k + 1 in one kernel (the two
// half kicks use the same forces), one launch per step fewer.
void launch_step_between(const StepArgs& a);

}  // namespace pairwise::ljc::cuda
