// The Newton-3 path of CUDA gravity (single and mixed precision, full evaluations): every unordered
// pair (i, j) is evaluated once and applied to both particles
// (physics::accumulate_accel_pair_from_rsqrt / accumulate_accel_jerk_pair_from_rsqrt), in the
// warp-tile scheme of engine/pair_tiles.cuh:
//
//   - tiles of B = 32·kI targets (kI per lane, in registers, with their running sums) × B sources
//     over the upper triangle of tiles; each warp takes a contiguous chunk of the triangle (row by
//     row, so the targets stay in registers along a row) and flushes the targets' sums when its
//     row changes;
//   - per tile the warp stages its B sources in its own shared memory, each 32-source group twice
//     (64 entries); at rotation step s lane L reads source (L + s) mod 32 (entry L + s) and adds
//     that pair to its kI targets' sums and to the source's sums, which then move one lane down
//     (__shfl_sync, 4 for GA and 7 for GAJ per step, amortized over kI pairs); after 32 steps lane
//     L holds source L's sums and flushes them;
//   - diagonal tiles (I == J) are one-sided (physics::accumulate_accel / accumulate_accel_jerk over
//     all B sources, the pair (i, i) included: its φ term is removed by the finalize kernel as on
//     the other paths);
//   - the pads of a partial last tile are far away with zero mass on both sides: they add exactly
//     zero to real particles, and their own sums are never flushed;
//   - equal masses (kUnit): the pair terms are summed without masses (m = 1 in the evaluators, so
//     m_j/s³ and m_i/s³ are both 1/s³, two FMUL fewer per pair) and the finalize kernel multiplies
//     by m in double; the pads then sit at kFarUnit (1e25), where s² overflows to +inf and 1/s to
//     exactly 0, so they still add exactly zero;
//   - every flush is an exact integer add (engine::exact_add, one int64 atomic per value), so the
//     result does not depend on the order of the flushes: bitwise reproducible. The finalize
//     kernel rounds each sum to double once, removes the self term of φ and zeroes the words.
//
// Issue slots per pair (SASS of the loop, docs/performance.md): GA 3 (d) + 3 (s²) + 1 (rsqrt) + 4
// (1/s³, m_j/s³, m_i/s³) + 6 (a_i, a_j) + 2 (φ_i, φ_j) = 19 for two interactions (17 with equal
// masses), plus per source
// step one LDS.128 and 4 SHFL shared by kI pairs; GAJ 38 + 2 LDS.128 + 7 SHFL.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "core/cuda_check.cuh"
#include "engine/pair_tiles.cuh"
#include "nbody/cuda_gravity.cuh"
#include "nbody/cuda_newton3_kernel.cuh"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody::cuda {
namespace {

using newton3::kBlockThreads;
using newton3::kWarps;

// The built-in kernels: the Newton-3 body with the Plummer pair term. The one with a register cap
// of its own (newton3::kMaxRegisters: single precision's general-mass GA) is in
// cuda_newton3_general.cu.
template <bool kJerk, bool kPot, bool kGuard, bool kUnit, int kMode, int kI>
__global__ void __launch_bounds__(kBlockThreads,
                                  (newton3::kMinBlocks<kJerk, kPot, kUnit, kMode, kI>))
    newton3_kernel(const Newton3Args a, const Newton3Grid g) {
  newton3::newton3_body<PlummerPair, kJerk, kPot, kGuard, kUnit, kMode, kI>(a, g);
}

// Rounds the exact sums to double, removes the self term of φ (the pair (i, i) of the diagonal
// tile added -m_i/ε, in float, as physics::self_potential computes it; -1/ε with equal masses,
// whose sums are then multiplied by m in double; nothing with a custom pair term, which skips the
// pair (i, i)), writes `out` and zeroes the words for the next evaluation.
__global__ void newton3_finalize_kernel(const ForceArgs a) {
  const int i = int(blockIdx.x) * int(blockDim.x) + int(threadIdx.x);
  if (i >= a.n_j) return;
  const std::size_t n = std::size_t(a.n_j);
  const int comps = a.jerk ? 7 : 4;
  const bool unit = a.equal_mass;
  const int p = a.order ? a.order[i] : i;  // the particle of sorted index i
  for (int c = 0; c < comps; ++c) {
    unsigned long long* words = a.exact + std::size_t(c) * engine::kExactWords * n + i;
    double v = engine::exact_value(reinterpret_cast<const long long*>(words), n);
    const double m = a.state.p[kM][p];
    if (c == kPot && a.potential && a.custom_newton3 == nullptr && a.remove_self)
      v -= double(physics::self_potential(unit ? 1.0f : float(m), float(a.eps2)));
    if (unit) v *= m;
#pragma unroll
    for (int w = 0; w < engine::kExactWords; ++w) words[std::size_t(w) * n] = 0;
    a.out[std::size_t(c) * n + p] = v;
  }
}

template <bool kJerk, bool kPot, bool kGuard, bool kUnit, int kMode, int kI>
Newton3KernelFn kernel_of() {
  constexpr int kCap = newton3::kMaxRegisters<kJerk, kPot, kUnit, kMode, kI>;
  if constexpr (kCap > 0) {
    static_assert(!kJerk && kPot && !kUnit && kMode == newton3::kSingle && kI == 8);
    return newton3_general_ga_kernel(kGuard);
  } else {
    return newton3_kernel<kJerk, kPot, kGuard, kUnit, kMode, kI>;
  }
}

template <bool kJerk, bool kPot, int kMode, int kI>
Newton3KernelFn pick_guard_unit(bool guard, bool unit) {
  if (unit)
    return guard ? kernel_of<kJerk, kPot, true, true, kMode, kI>()
                 : kernel_of<kJerk, kPot, false, true, kMode, kI>();
  return guard ? kernel_of<kJerk, kPot, true, false, kMode, kI>()
               : kernel_of<kJerk, kPot, false, false, kMode, kI>();
}

template <int kMode>
Newton3KernelFn pick_precision(bool jerk, bool potential, bool guard, bool unit, int k_i) {
  if (jerk)
    return k_i == 2 ? pick_guard_unit<true, true, kMode, 2>(guard, unit)
                    : pick_guard_unit<true, true, kMode, 4>(guard, unit);
  if (k_i == 8)
    return potential ? pick_guard_unit<false, true, kMode, 8>(guard, unit)
                     : pick_guard_unit<false, false, kMode, 8>(guard, unit);
  return potential ? pick_guard_unit<false, true, kMode, 4>(guard, unit)
                   : pick_guard_unit<false, false, kMode, 4>(guard, unit);
}

// Register tiles compiled: GA kI = 4 or 8, GAJ kI = 2 or 4; positions of newton3::PositionMode
// `mode` (single; mixed double-single, or offsets from the source groups' origins).
Newton3KernelFn pick(int mode, bool jerk, bool potential, bool guard, bool unit, int k_i) {
  switch (mode) {
    case newton3::kMixedDs:
      return pick_precision<newton3::kMixedDs>(jerk, potential, guard, unit, k_i);
    case newton3::kMixedGroup:
      return pick_precision<newton3::kMixedGroup>(jerk, potential, guard, unit, k_i);
    case newton3::kMixedFar:
      return pick_precision<newton3::kMixedFar>(jerk, potential, guard, unit, k_i);
    case newton3::kMixedNear:
      return pick_precision<newton3::kMixedNear>(jerk, potential, guard, unit, k_i);
    default:
      break;
  }
  return pick_precision<newton3::kSingle>(jerk, potential, guard, unit, k_i);
}

// Mixed precision's float sums of the targets run over at most this many sources before they are
// folded into the second level (double: newton3::kLevel2Values), as the split path's end in double
// after every j-tile of 256 (the mixed of issue 15's filing). The accuracy follows the length of
// these sums: at N = 65,536 (a Plummer sphere, GAJ, against double, exact flushes at every
// interval) rms acceleration / φ errors 2.9e-8 / 1.2e-8 at 128 sources, 3.2e-8 / 1.5e-8 at
// 256, 3.9e-8 / 2.3e-8 at 512 and 5.4e-8 / 4.2e-8 at 1,024, the split path 3.4e-8 / 1.7e-8
// (docs/performance.md, "nbody mixed, session 20").
constexpr int kMixedFloatSumSources = 256;

// Mixed precision takes near/far tile pairs (newton3::kMixedFar) from this many particles: where
// the near tiles, one-sided at twice the double-single cost a pair, are few enough (H200, a uniform
// sphere: 5 % of the GA tiles at N = 1,048,576, faster than double-single; 16 % at 262,144, slower;
// docs/performance.md, "nbody mixed, session 25").
constexpr int kMixedNearFarMinN = 786432;

// Blocks of `kernel` resident on one multiprocessor of the current device, times its
// multiprocessors; cached per thread (the call costs microseconds, a small Newton-3 launch tens).
// PAIRWISE_CUDA_NEWTON3_BLOCKS_PER_SM=k caps the blocks an SM (experiments).
long long resident_blocks(const void* kernel) {
  thread_local std::unordered_map<const void*, std::pair<int, long long>> cache;
  int device = 0;
  PW_CUDA(cudaGetDevice(&device));
  auto it = cache.find(kernel);
  if (it != cache.end() && it->second.first == device) return it->second.second;
  int per_sm = 1, sms = 1;
  PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlockThreads, 0));
  PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  static const int cap = [] {
    const char* env = std::getenv("PAIRWISE_CUDA_NEWTON3_BLOCKS_PER_SM");
    return env && std::atoi(env) > 0 ? std::atoi(env) : 0;
  }();
  if (cap > 0) per_sm = std::min(per_sm, cap);
  const long long blocks = (long long)std::max(per_sm, 1) * std::max(sms, 1);
  cache[kernel] = {device, blocks};
  return blocks;
}

Newton3Grid grid_of(int n, int k_i, int blocks) {
  Newton3Grid g;
  g.nb = (n + 32 * k_i - 1) / (32 * k_i);
  g.n_tiles = engine::triangle_tiles(g.nb);
  g.warps = std::min<long long>(g.n_tiles, (long long)blocks * kWarps);
  return g;
}

// The exact words, then the level-2 sums, then the 32-particle groups' boxes (mixed near/far: two
// float4 a group): their bytes.
std::size_t level2_bytes(int blocks) {
  return sizeof(double) * newton3::kLevel2Values * kWarps * std::size_t(std::max(blocks, 0));
}
std::size_t exact_words_bytes(int n) {
  return sizeof(unsigned long long) * engine::kExactWords * kComponents *
         std::size_t(std::max(n, 1));
}

}  // namespace

std::size_t newton3_exact_bytes(int n, int blocks) {
  return exact_words_bytes(n) + level2_bytes(blocks) + group_boxes_bytes(n);
}

namespace {

// Each 32-particle group's box (newton3::Newton3Args::boxes) from the hi parts: lowest x, y, z and
// the half-diagonal, highest x, y, z and the largest |coordinate| (newton3::boxes_near); one warp
// a group, one lane a particle.
__global__ void group_boxes_kernel(const float4* jpos, int n, float4* boxes) {
  const int group = int(blockIdx.x) * kWarps + int(threadIdx.x >> 5), lane = threadIdx.x & 31;
  if (group >= newton3::group_count(n)) return;
  float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  if (const int i = group * 32 + lane; i < n) {
    const float4 p = jpos[i];
    const float x[3] = {p.x, p.y, p.z};
    for (int c = 0; c < 3; ++c) lo[c] = hi[c] = x[c];
  }
  const float reach = newton3::warp_box(lo, hi);
  if (lane == 0) {
    float r2 = 0;
    for (int c = 0; c < 3; ++c) r2 += 0.25f * (hi[c] - lo[c]) * (hi[c] - lo[c]);
    // Rounded up a little: the test only decides which loop a tile takes.
    boxes[2 * group] = make_float4(lo[0], lo[1], lo[2], 1.0001f * sqrtf(r2));
    boxes[2 * group + 1] = make_float4(hi[0], hi[1], hi[2], reach);
  }
}

}  // namespace

std::size_t group_boxes_bytes(int n) {
  return 2 * sizeof(float4) * std::size_t(newton3::group_count(n));
}

void launch_group_boxes(const void* jpos, int n, void* boxes, void* stream) {
  group_boxes_kernel<<<unsigned((newton3::group_count(n) + kWarps - 1) / kWarps), kBlockThreads, 0,
                       static_cast<cudaStream_t>(stream)>>>(static_cast<const float4*>(jpos), n,
                                                            static_cast<float4*>(boxes));
  PW_CUDA_LAUNCH("gravity group_boxes_kernel");
}

int newton3_blocks(Precision precision, bool jerk, bool potential, int k_i, int n, int sms) {
  // The more resident of the general and equal-mass kernels (the launch takes its own kernel's
  // count up to this: in mixed precision these blocks size the second-level sums).
  int per_sm = 1;
  for (const bool unit : {false, true}) {
    int resident = 1;
    PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &resident, pick(newton3_position_mode(precision, n), jerk, potential, false, unit, k_i),
        kBlockThreads, 0));
    per_sm = std::max(per_sm, resident);
  }
  const int nb = (n + 32 * k_i - 1) / (32 * k_i);
  const long long tiles = engine::triangle_tiles(nb);
  const long long resident = (long long)std::max(per_sm, 1) * std::max(sms, 1);
  return int(std::max<long long>(1, std::min(resident, (tiles + kWarps - 1) / kWarps)));
}

int newton3_position_mode(Precision precision, int n) {
  if (precision != Precision::mixed) return newton3::kSingle;
  // PAIRWISE_CUDA_MIXED_GROUP=1: offsets from the source groups' origins (an experiment);
  // PAIRWISE_CUDA_MIXED_NEARFAR=1 / 0: near/far tile pairs at any N / never (by default from
  // kMixedNearFarMinN). Read at each call, as the tests set them.
  if (const char* env = std::getenv("PAIRWISE_CUDA_MIXED_GROUP"); env && std::atoi(env) == 1)
    return newton3::kMixedGroup;
  const char* env = std::getenv("PAIRWISE_CUDA_MIXED_NEARFAR");
  const bool near_far = env ? std::atoi(env) == 1 : n >= kMixedNearFarMinN;
  return near_far ? newton3::kMixedFar : newton3::kMixedDs;
}

float mixed_near_far_kappa() {
  const char* env = std::getenv("PAIRWISE_CUDA_MIXED_KAPPA");
  return env && std::atof(env) >= 0 ? float(std::atof(env)) : 1.f;
}

bool newton3_equal_mass(bool equal_masses) {
  static const bool off = [] {
    const char* env = std::getenv("PAIRWISE_CUDA_EQUAL_MASS");
    return env != nullptr && std::atoi(env) == 0;
  }();
  return equal_masses && !off;
}

void launch_newton3(const ForceArgs& args) {
  const auto stream = static_cast<cudaStream_t>(args.stream);
  const int n = args.n_j;
  const int k_i = args.plan.i_per_thread;
  ForceArgs a = args;
  // A custom kernel's caller decided equal_mass (the formula must vanish at the unit pads).
  if (!a.custom_newton3) a.equal_mass = newton3_equal_mass(args.equal_mass);
  // Mixed: tiles between the folds of the targets' float sums, so that no float sum runs over
  // more than kMixedFloatSumSources sources (GA kI = 8: every tile; GAJ kI = 4: every 2 tiles);
  // PAIRWISE_CUDA_MIXED_FLUSH_TILES overrides it (experiments).
  static const int flush_tiles_env = [] {
    const char* env = std::getenv("PAIRWISE_CUDA_MIXED_FLUSH_TILES");
    return env && std::atoi(env) > 0 ? std::atoi(env) : 0;
  }();
  a.ds_flush_tiles =
      flush_tiles_env > 0 ? flush_tiles_env : std::max(1, kMixedFloatSumSources / (32 * k_i));
  // Mixed with group origins: tiles within this many rows of the diagonal take double-single
  // displacements (PAIRWISE_CUDA_MIXED_BAND; 2 by default: docs/performance.md).
  static const int ds_band = [] {
    const char* env = std::getenv("PAIRWISE_CUDA_MIXED_BAND");
    return env && std::atoi(env) >= 0 ? std::atoi(env) : 2;
  }();
  int mode = newton3_position_mode(a.precision, n);
  // Near/far takes the whole triangle and square: not a rank's share.
  if (mode == newton3::kMixedFar && a.tile_count >= 0) mode = newton3::kMixedDs;
  const Newton3KernelFn kernel =
      a.custom_newton3 ? nullptr : pick(mode, a.jerk, a.potential, a.guard_zero, a.equal_mass, k_i);
  // The plan counted the more resident of the general and equal-mass kernels (newton3_blocks); a
  // built-in launch takes its own kernel's (the equal-mass GA kernel fits 4 an SM where the general
  // one fits 3), one warp per 4 tiles at most, and in mixed precision no more than the plan's (they
  // size the second-level sums).
  int blocks = args.plan.i_blocks;
  if (kernel) {
    const long long tiles = engine::triangle_tiles((n + 32 * k_i - 1) / (32 * k_i));
    long long own = std::min(resident_blocks(reinterpret_cast<const void*>(kernel)),
                             std::max<long long>(1, (tiles + kWarps - 1) / kWarps));
    if (a.precision == Precision::mixed) own = std::min<long long>(own, blocks);
    blocks = int(own);
  }
  Newton3Grid g = grid_of(n, k_i, blocks);
  if (a.tile_count >= 0) {  // a rank's share: no more warps than tiles (none strays past them)
    blocks = int(
        std::min<long long>(blocks, std::max<long long>(1, (a.tile_count + kWarps - 1) / kWarps)));
    g.t_begin = a.tile_begin, g.n_tiles = a.tile_count;
    g.warps = std::min<long long>(g.n_tiles, (long long)blocks * kWarps);
  }
  Newton3Args n3;
  n3.jpos = a.jpos, n3.jlo = a.jlo, n3.jvel = a.jvel, n3.exact = a.exact;
  // The second-level sums follow the exact words, the boxes those (newton3_exact_bytes(n, blocks);
  // the plan's blocks sized them).
  char* const tail = reinterpret_cast<char*>(a.exact) + exact_words_bytes(n);
  n3.level2 = reinterpret_cast<double*>(tail);
  float4* const boxes = reinterpret_cast<float4*>(tail + level2_bytes(args.plan.i_blocks));
  n3.boxes = boxes;
  // (kappa 0 makes every tile pair but the diagonal far.)
  n3.kappa = mixed_near_far_kappa();
  n3.eps2 = a.eps2, n3.n_j = n, n3.ds_flush_tiles = a.ds_flush_tiles;
  n3.ds_band = ds_band;
  if (g.n_tiles == 0) {
    // no tile for this rank: the finalize below writes zeros
  } else if (a.custom_newton3) {
    void* params[] = {&n3, &g};
    PW_CUDA(cudaLaunchKernel(a.custom_newton3, dim3(unsigned(blocks)), dim3(kBlockThreads), params,
                             0, stream));
  } else if (mode == newton3::kMixedFar) {
    // The groups' boxes, the far tiles of the triangle, the near tiles of the square (one-sided).
    launch_group_boxes(a.jpos, n, boxes, stream);
    kernel<<<unsigned(blocks), kBlockThreads, 0, stream>>>(n3, g);
    PW_CUDA_LAUNCH("gravity newton3_kernel (far tiles)");
    const Newton3KernelFn near_kernel =
        pick(newton3::kMixedNear, a.jerk, a.potential, a.guard_zero, a.equal_mass, k_i);
    Newton3Grid square = g;
    square.n_tiles = (long long)g.nb * g.nb;
    const int near_blocks = int(std::min<long long>(
        {resident_blocks(reinterpret_cast<const void*>(near_kernel)), (long long)args.plan.i_blocks,
         std::max<long long>(1, (square.n_tiles + kWarps - 1) / kWarps)}));
    square.warps = std::min<long long>(square.n_tiles, (long long)near_blocks * kWarps);
    near_kernel<<<unsigned(near_blocks), kBlockThreads, 0, stream>>>(n3, square);
  } else {
    kernel<<<unsigned(blocks), kBlockThreads, 0, stream>>>(n3, g);
  }
  PW_CUDA_LAUNCH(args.jerk ? "gravity newton3_kernel (GAJ)" : "gravity newton3_kernel (GA)");
  newton3_finalize_kernel<<<unsigned((n + 255) / 256), 256, 0, stream>>>(a);
  PW_CUDA_LAUNCH("gravity newton3_finalize_kernel");
}

}  // namespace pairwise::nbody::cuda
