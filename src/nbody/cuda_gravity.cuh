// CUDA gravity kernels (GA, GAJ, Hermite prediction) behind host launchers taking plain structs.
// This header compiles with g++ too (no device code): cuda_kernel.cu and bench.cpp include it.
//
// Device layout of the j-particles (sources), per precision:
//   single: pos = float4 (x, y, z, m),           vel = float4 (vx, vy, vz, 0)
//   mixed:  pos = float4 (x_hi, y_hi, z_hi, m),  lo = float4 (x_lo, y_lo, z_lo, 0), vel = float4;
//           x = x_hi + x_lo (double-single), dx = (xj_hi - xi_hi) + (xj_lo - xi_lo) in FP32
//   double: pos = double4 (x, y, z, m),          vel = double4 (vx, vy, vz, 0)
// The master state (x, v, a, jerk, t_last, m) is double SoA, predicted in double.
#pragma once

#include <cstddef>
#include <string>

#include "engine/all_pairs.hpp"
#include "nbody/cuda_newton3_kernel.cuh"
#include "pairwise/precision.hpp"

namespace pairwise::nbody {
class GravityKernel;
// GA without the potential term (12 FP32 instructions + 1 rsqrt per interaction), timed like
// GravityKernel::time_compute; for benchmarks. Returns -1 when `kernel` is not the cuda backend.
double cuda_time_accel_without_potential(GravityKernel& kernel, int repeats);
// The kernel path a full evaluation (GA when !jerk, GAJ when jerk) runs on the loaded particles:
// "newton3 kI=4", "split kI=4 q=1 splits=18", "small kI=1"; empty when `kernel` is not the cuda
// backend. For benchmark records.
std::string cuda_force_path(GravityKernel& kernel, bool jerk);
// Seconds a custom potential's kernels took to compile with NVRTC (or to read from the disk cache)
// so far; -1 when `kernel` is not the cuda backend with a custom potential.
double cuda_formula_compile_seconds(GravityKernel& kernel);
}  // namespace pairwise::nbody

namespace pairwise::nbody::cuda {

// Component (output order), kFar and kNewton3Warps: nbody/cuda_newton3_kernel.cuh.

// How one force evaluation is spread over the GPU: the all-pairs engine's plan
// (engine/all_pairs.hpp): blocks of kThreads threads; `q` groups of threads in a block share the
// same i-particles and take 1/q of each j-tile (in-block j-split); `splits` blocks share the same
// i-particles and take 1/splits of the j-tiles (grid j-split, Elsen's i-particle replication).
// Partial sums are reduced in fixed order, so results are deterministic. `variant` selects a code
// variant (experiments, single precision): see cuda_gravity.cu. `small` selects gravity's own
// small-problem path (single and mixed precision): blocks of kSmallThreads threads own
// kSmallTargets · i_per_thread targets (i_per_thread per lane, the same in every warp); each warp
// takes a disjoint slice of the sources, staged per warp in shared memory; the warps' sums are
// reduced in shared memory in fixed order. No grid split (splits == 1), one write per target.
// `newton3` selects the Newton-3 path (below): i_blocks is then its grid, i_per_thread its kI.
struct ForcePlan : engine::AllPairsPlan {
  bool newton3 = false;
  ForcePlan() = default;
  ForcePlan(const engine::AllPairsPlan& p, bool newton3_path = false)
      : engine::AllPairsPlan(p), newton3(newton3_path) {}
};

inline constexpr int kSmallThreads = 1024;
inline constexpr int kSmallTargets = 32;

inline constexpr int kThreads = engine::kAllPairsThreads;  // threads per block == j per tile

// The Newton-3 path (ForcePlan::newton3; single and mixed precision, full evaluations where the
// targets are all the sources; mixed with double-single displacements, its float sums folded
// into double every 256 sources): each unordered pair is evaluated once and applied to both
// particles, in warp tiles of 32·kI targets × 32·kI sources over the upper triangle of tiles
// (engine/pair_tiles.cuh), kNewton3Warps independent warps per block. Sums go to ForceArgs::exact,
// an exact fixed-point accumulator (engine::exact_add: integer atomics, order-independent, so
// bitwise reproducible), kComponents × engine::kExactWords int64 words per particle; a second
// kernel rounds them to double, removes the self term of φ, writes `out` and zeroes the words
// again. Bytes of ForceArgs::exact for n particles and a launch of `blocks` blocks: the exact
// words, then mixed precision's second-level sums (Newton3Args::level2), newton3::kLevel2Values
// doubles a warp.
std::size_t newton3_exact_bytes(int n, int blocks);

// The master state, double SoA on the device (row order of MasterState::p).
enum StateArray {
  kM,
  kX,
  kY,
  kZ,
  kVx,
  kVy,
  kVz,
  kAx_,
  kAy_,
  kAz_,
  kJx_,
  kJy_,
  kJz_,
  kT,
  kStateArrays
};
struct MasterState {
  double* p[kStateArrays] = {};
};

struct ForceArgs {
  Precision precision = Precision::single;
  bool jerk = false, potential = true, guard_zero = false;
  // Every mass is the same (> 0): the Newton-3 path then sums the mass-free pair terms d/s³ and
  // -1/s (and the jerk's) and multiplies by m once at the end (2 fewer FP32 instructions per pair
  // for GA: 17 instead of 19). PAIRWISE_CUDA_EQUAL_MASS=0 turns this off.
  bool equal_mass = false;
  // Mixed Newton-3: tiles between the folds of the targets' float sums (launch_newton3 sets it:
  // at most 256 sources).
  int ds_flush_tiles = 2;
  // Mixed on the small-problem path: 32-source chunks between the folds of each warp's float
  // sums into double (0: one fold, at the end). Every chunk (1) measured ~2 % slower than one
  // fold and 1.5x more accurate at N = 4,096 to 8,192 (docs/performance.md);
  // PAIRWISE_CUDA_SMALL_FOLD overrides it (experiments).
  int small_fold_chunks = 1;
  const void* jpos = nullptr;  // float4 or double4 [n_j]
  const void* jlo = nullptr;   // float4 [n_j], mixed only
  const void* jvel = nullptr;  // float4 or double4 [n_j], jerk only
  int n_j = 0;
  const int* i_index = nullptr;  // targets are j-particles i_index[k]; nullptr: k itself
  // Listed targets in another order than the caller's (block steps with near/far groups: sorted
  // by their j entries): target k's results go to out[c · n_i + i_slot[k]]; nullptr: k.
  const int* i_slot = nullptr;
  int n_i = 0;
  // Mixed split path with near/far source groups (block steps, GAJ; the j arrays in a spatial
  // order): each 32-source group's box (launch_group_boxes) and kappa of the near test
  // (GravityPolicy in cuda_gravity.cu, newton3::boxes_near); nullptr: double-single displacements
  // for every pair.
  const void* boxes = nullptr;
  float kappa = 1.f;
  double eps2 = 0;
  void* partial = nullptr;  // [kComponents][splits][n_i] float (single) or double (mixed, double)
  unsigned* tickets = nullptr;  // [i_blocks] zeroed counters (splits > 1); left zeroed
  // Newton-3 plans: the exact accumulator (newton3_exact_bytes), zeroed; left zeroed.
  unsigned long long* exact = nullptr;
  ForcePlan plan;
  // A Newton-3 kernel compiled at run time for a custom pair term (nbody/cuda_formula.cuh; a
  // cudaKernel_t), launched instead of the built-in one with plan.i_blocks blocks; nullptr:
  // built-in. Its pair (i, i) is skipped, so no self term is removed from φ; equal_mass is then
  // final.
  const void* custom_newton3 = nullptr;
  // Newton-3 with the j arrays in a spatial order (mixed precision: BuildArgs::inverse): the
  // particle of sorted index k is order[k] (the finalize kernel writes its results there); nullptr:
  // k.
  const int* order = nullptr;
  // Newton-3 across ranks (nbody/cuda_ranks.hpp): this launch evaluates the tiles [tile_begin,
  // tile_begin + tile_count) of the triangle only (tile_count < 0: all; a cut inside the triangle
  // must be a multiple of kNewton3Warps); `out` then holds this share's partial sums, which the
  // ranks add, and only one of them removes the self term of φ (remove_self).
  long long tile_begin = 0, tile_count = -1;
  bool remove_self = true;
  // Finalized results, written by the same launch: out[c * n_i + k] for the components
  // 0..(jerk ? 7 : 4)-1, summed over the splits in split order (in double) by the last block of
  // each i-block to finish (a ticket counter), with the self term -m_i/ε removed from φ (in the
  // kernel's precision, so it cancels what the loop added). With `predict`, also the targets'
  // predicted x, y, z, vx, vy, vz (in double from the master state) at out[(7 + c) * n_i + k].
  double* out = nullptr;
  MasterState state;
  bool predict = false;
  double t = 0;
  void* stream = nullptr;  // cudaStream_t
};

// Chooses the register tile, q and splits for n_i targets and n_j sources on a device with `sms`
// multiprocessors (minimizing a model of per-SM issue time plus the split reduction's tail).
// `all_targets`: the targets are all n_j sources (full evaluations), so the Newton-3 path may be
// chosen: by default for single and mixed precision whenever the small-problem path is not; the
// environment variable PAIRWISE_CUDA_NEWTON3=0 turns it off, =1 forces it for every full
// single-precision evaluation (docs/nbody.md); PAIRWISE_CUDA_NEWTON3_MIXED=0 turns it off for mixed
// precision alone (the split path, as before).
// `near_far`: the split path's kernels with near/far source groups (ForceArgs::boxes; only where
// near_far_groups says they exist).
ForcePlan plan_forces(Precision precision, bool jerk, bool potential, int n_i, int n_j, int sms,
                      std::size_t max_partial_bytes, bool all_targets = false,
                      bool near_far = false);
// Whether block steps (listed targets, GAJ with φ) of n particles take the split path's near/far
// source groups: mixed precision from kMixedSplitNearFarMinN particles (cuda_gravity.cu;
// PAIRWISE_CUDA_MIXED_NEARFAR=1 / 0: at any N / never).
bool near_far_groups(Precision precision, int n);
// kappa of the near/far tests (PAIRWISE_CUDA_MIXED_KAPPA, 1 by default; read at each call, as the
// tests set it).
float mixed_near_far_kappa();
std::size_t partial_bytes(Precision precision, const ForcePlan& plan, int n_i);
// One launch per force evaluation (forces, reduction over the splits and finalization).
void launch_forces(const ForceArgs& args);
// The Newton-3 path's two kernels (cuda_newton3.cu); launch_forces calls it for newton3 plans.
void launch_newton3(const ForceArgs& args);
// The Newton-3 kernels' signature.
using Newton3KernelFn = void (*)(Newton3Args, Newton3Grid);
// Single precision's general-mass GA kernel with φ at kI = 8, with or without the ε = 0 guard
// (cuda_newton3_general.cu: compiled in a translation unit of its own).
Newton3KernelFn newton3_general_ga_kernel(bool guard);
// Blocks of the Newton-3 launch for n particles with register tile kI on `sms` multiprocessors.
int newton3_blocks(Precision precision, bool jerk, bool potential, int k_i, int n, int sms);
// Whether a Newton-3 launch of particles with equal masses takes the equal-mass kernels
// (ForceArgs::equal_mass; PAIRWISE_CUDA_EQUAL_MASS=0 turns them off).
bool newton3_equal_mass(bool equal_masses);
// The newton3::PositionMode of a precision's Newton-3 kernels: mixed takes double-single
// displacements (kMixedDs); PAIRWISE_CUDA_MIXED_GROUP=1 takes FP32 offsets from the source groups'
// origins instead (kMixedGroup, the particles in a Morton order; an experiment, not the default:
// faster, less accurate, docs/performance.md).
int newton3_position_mode(Precision precision, int n);

// Builds the j arrays of `precision` from the master state, predicted to time t when `predict`
// (x_p, v_p of physics::predict with dt = t - t_last), else copied.
struct BuildArgs {
  Precision precision = Precision::single;
  MasterState state;
  int n = 0;
  bool predict = false;
  double t = 0;
  // Particle i goes to entry inverse[i] of the j arrays (mixed near/far: a spatial order, the
  // inverse of cuda::morton_order's; the master state is read in particle order, coalesced, and
  // the entries written scattered); nullptr: entry i.
  const int* inverse = nullptr;
  void* jpos = nullptr;
  void* jlo = nullptr;
  void* jvel = nullptr;
  void* stream = nullptr;
};
void launch_build_j(const BuildArgs& args);

// A spatial (Morton) order of the n particles of the master state: order[k] is the particle at
// sorted index k, inverse[order[k]] = k (when inverse is not null); keys is scratch of n unsigned
// (cuda_sort.cu). Synchronizes the stream.
void morton_order(const MasterState& s, int n, int* order, int* inverse, unsigned* keys,
                  void* stream);
// The n_a listed particles `active` in the spatial order: entries[k] = inverse[active[slot[k]]],
// ascending (cuda_sort.cu). scratch: sorted_targets_bytes(n_a) bytes.
std::size_t sorted_targets_bytes(int n_a);
void sorted_targets(const int* active, int n_a, const int* inverse, int n, int* entries, int* slot,
                    void* scratch, void* stream);

// Each 32-particle group's box of the j arrays' hi parts, two float4 a group (ForceArgs::boxes,
// newton3::Newton3Args::boxes; cuda_newton3.cu), and their bytes.
std::size_t group_boxes_bytes(int n);
void launch_group_boxes(const void* jpos, int n, void* boxes, void* stream);

// Block steps with a custom potential: the forces of every particle, full[c · n_j + i] (c < 7,
// from a full Newton-3 evaluation), to the targets args.i_index: args.out[c · n_i + k], with their
// predicted x, v when args.predict (rows 7..12, as launch_forces writes them).
void launch_gather_active(const ForceArgs& args, const double* full);

// Scatters packed corrected values of n active particles into the master state:
// packed[r * n + k], rows x, y, z, vx, vy, vz, ax, ay, az, jx, jy, jz, t (13 rows); active[k].
inline constexpr int kCommitRows = 13;
void launch_commit(const MasterState& state, const double* packed, const int* active, int n,
                   void* stream);

}  // namespace pairwise::nbody::cuda
