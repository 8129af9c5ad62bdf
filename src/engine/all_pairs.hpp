// The all-pairs tile engine, host side: launch plans and the planner's cost model. Compiles with
// g++ alone (no device code); the kernel template is in all_pairs.cuh.
//
// An all-pairs sum y_i = finalize_i( Σ_j pair(target_i, source_j) ) over n_i targets and n_j
// sources runs as one launch of blocks of kAllPairsThreads threads:
//   - each block owns i_per_block = (kAllPairsThreads / q) · i_per_thread targets, i_per_thread
//     (the register tile kI) per thread, held in registers;
//   - it walks j-tiles of kAllPairsThreads sources staged in shared memory (every read a warp-wide
//     broadcast), the q thread groups of the block each taking 1/q of every tile (in-block
//     j-split);
//   - `splits` blocks share the same targets and take 1/splits of the tiles each (grid j-split,
//     Elsen's i-particle replication), so small n_i still fills every SM;
//   - partial sums are reduced in fixed order (groups g = 0..q-1 in shared memory, then splits
//     0..splits-1 in double by the last block of the i-block to finish, found with a ticket
//     counter): results are bitwise reproducible, no floating-point atomics.
// plan_all_pairs() chooses (tile, q, splits) from n_i, n_j and the SM count with a model of
// per-SM issue time plus the reduction tail.
#pragma once

#include <cstddef>
#ifndef __CUDACC_RTC__  // NVRTC (all_pairs.cuh): the plan only, not the host planner
#include <vector>
#endif

namespace pairwise::engine {

inline constexpr int kAllPairsThreads = 256;  // threads per block == sources per j-tile

// How one all-pairs launch is spread over the GPU (see the top of this file).
struct AllPairsPlan {
  int q = 1, splits = 1, i_blocks = 1;
  int i_per_thread = 1;  // register tile kI
  int variant = 0;       // a workload's code variant (experiments); the engine ignores it
  // A workload's own small-problem path (N-body gravity has one); the engine's kernel never
  // runs a plan with small set.
  bool small = false;
};

#ifndef __CUDACC_RTC__
// One compiled register tile of a workload's kernel.
struct AllPairsShape {
  int tile = 4;  // targets per thread (kI)
  int blocks_per_sm =
      1;  // occupancy of that kernel (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
  double cost_factor = 1.0;  // measured correction of the model for this shape (1 = none)
};

// The planner's model of a workload's kernel.
struct AllPairsCostModel {
  // Issue slots per interaction at kI = 4, one shared-memory load per source included.
  double per_pair = 14.2;
  // Shared-memory loads per source (LDS.128 or narrower): each costs 1/kI slot per interaction.
  double loads_per_source = 1.0;
  int components = 4;  // finalized values per target (the reduction tail)
  // Bytes of the partial-sum buffer per (target, split): splits are capped by max_partial_bytes.
  std::size_t partial_bytes_per_target = 16;
  std::vector<AllPairsShape> shapes;  // candidates, in order of preference on equal cost
};

// Bytes of the partial-sum buffer of `plan` for n_i targets.
std::size_t all_pairs_partial_bytes(const AllPairsCostModel& model, const AllPairsPlan& plan,
                                    int n_i);

// The plan of least modeled time (q ∈ {1, 2, 4, 8}, splits ∈ [1, number of j-tiles]); its modeled
// cycles go to *cost when given.
AllPairsPlan plan_all_pairs(const AllPairsCostModel& model, int n_i, int n_j, int sms,
                            std::size_t max_partial_bytes, double* cost = nullptr);

// Modeled cycles of one SM for `plan` (exposed for tests and plan debugging).
double all_pairs_plan_cost(const AllPairsCostModel& model, const AllPairsShape& shape,
                           const AllPairsPlan& plan, int n_i, int n_j, int sms);
#endif  // __CUDACC_RTC__

}  // namespace pairwise::engine
