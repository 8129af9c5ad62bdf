// The all-pairs planner (see all_pairs.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/all_pairs.hpp"

namespace pairwise::engine {

std::size_t all_pairs_partial_bytes(const AllPairsCostModel& model, const AllPairsPlan& plan,
                                    int n_i) {
  return model.partial_bytes_per_target * std::size_t(plan.splits) * std::size_t(n_i);
}

// Cost model, in cycles of one SM: blocks are spread evenly over the SMs (ceil(blocks/sms) per
// SM, run `blocks_per_sm` at a time); a block is kAllPairsThreads/32 warps issuing `per_pair`
// instructions per interaction (plus ~40 per tile and ~300 fixed, and the in-block reduction of
// the q groups); the SM's 4 schedulers issue one instruction per cycle each when it holds >= 16
// warps, proportionally less below. With splits > 1 the last block of each i-block adds the
// partials: ~700 cycles of L2 latency per 8 splits per 4 (component, target) pairs of a thread,
// after ~500 for the ticket. (Fitted to the N-body kernels on an H200: docs/performance.md.)
double all_pairs_plan_cost(const AllPairsCostModel& model, const AllPairsShape& shape,
                           const AllPairsPlan& plan, int n_i, int n_j, int sms) {
  constexpr int kWarpsPerBlock = kAllPairsThreads / 32;
  const long long n_tiles = (std::max(n_j, 1) + kAllPairsThreads - 1) / kAllPairsThreads;
  const int tile = shape.tile, q = plan.q;
  const long long s = plan.splits;
  const int n_comp = model.components;
  const int i_per_block = kAllPairsThreads / q * tile;
  const long long i_blocks = (n_i + i_per_block - 1) / i_per_block;
  const long long blocks = i_blocks * s;
  const double tiles = std::ceil(double(n_tiles) / double(s));
  // One shared-memory load per source per tile of targets; per_pair counts it at kI = 4.
  const double pair = model.per_pair + model.loads_per_source * (1.0 / tile - 0.25);
  const double block_instr = tiles * (double(kAllPairsThreads / q) * tile * pair + 40.0) + 300.0 +
                             (q > 1 ? 40.0 * q * n_comp * tile / 4.0 : 0.0);
  const double sm_blocks = std::ceil(double(blocks) / std::max(sms, 1));
  const double warps =
      std::min<double>(sm_blocks, std::max(shape.blocks_per_sm, 1)) * kWarpsPerBlock;
  const double efficiency = std::min(1.0, warps / 16.0);
  double cost = sm_blocks * block_instr * kWarpsPerBlock / 4.0 / efficiency * shape.cost_factor;
  if (s > 1)
    cost += 500.0 + std::ceil(double(std::min<long long>(i_per_block, n_i)) * n_comp /
                              (4.0 * kAllPairsThreads)) *
                        std::ceil(double(s) / 8.0) * 700.0;
  return cost;
}

AllPairsPlan plan_all_pairs(const AllPairsCostModel& model, int n_i, int n_j, int sms,
                            std::size_t max_partial_bytes, double* cost) {
  AllPairsPlan best;
  double best_cost = std::numeric_limits<double>::infinity();
  const long long n_tiles = (std::max(n_j, 1) + kAllPairsThreads - 1) / kAllPairsThreads;
  for (const AllPairsShape& shape : model.shapes) {
    for (int q : {1, 2, 4, 8}) {
      const int i_per_block = kAllPairsThreads / q * shape.tile;
      const long long i_blocks = (n_i + i_per_block - 1) / i_per_block;
      for (long long s = 1; s <= n_tiles; ++s) {
        const AllPairsPlan trial{q, int(s), int(i_blocks), shape.tile};
        if (s > 1 && all_pairs_partial_bytes(model, trial, n_i) > max_partial_bytes) break;
        const double c = all_pairs_plan_cost(model, shape, trial, n_i, n_j, sms);
        if (c < best_cost * 0.999) best_cost = c, best = trial;
      }
    }
  }
  if (cost) *cost = best_cost;
  return best;
}

}  // namespace pairwise::engine
