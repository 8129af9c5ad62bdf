// The all-pairs tile engine, device side: one kernel template that every all-pairs workload
// instantiates with an interaction policy (N-body gravity, the Fredholm matrix-vector product,
// one-sided LJ + Coulomb). The plan and planner are in all_pairs.hpp; this header needs nvcc.
//
// ## The policy interface
//
// A policy is a struct with static members only (no state); the kernel is
// all_pairs_kernel<Policy, kI, kMinBlocks> (kI targets per thread, kMinBlocks the
// __launch_bounds__ residency hint, which caps registers).
//
//   using Args = ...;      // the launch's parameter struct, passed by value to the kernel. It must
//                          // have the members  int n_i, n_j;  AllPairsPlan plan;
//                          // void* partial;  unsigned* tickets;  (see "Buffers" below) and
//                          // whatever the policy's functions read.
//   using Source = ...;    // one source as staged in shared memory (trivially copyable; every
//                          // read of it is a warp-wide broadcast, so an AoS of a few float4 is
//                          fine)
//   using Target = ...;    // one target's state, held in registers
//   using Accum = ...;     // one target's running sum, in registers; value-initialized to zero
//   using Ctx = ...;       // per-thread constants derived once from Args (e.g. ε² in float)
//   using Partial = ...;   // the type of partial sums (float or double)
//   static constexpr int kComponents;  // partial/finalized values per target
//
//   static Ctx    context(const Args&);
//   static Target load_target(const Args&, int k);   // target k ∈ [0, n_i) (may map k itself)
//   static Source load_source(const Args&, int j);   // source j ∈ [0, n_j)
//   static Source pad_source(const Args&);           // pads the last tile: must add exactly 0
//   template <int kI>
//   static void interact(const Ctx&, const Source&, const Target (&)[kI], Accum (&)[kI]);
//                          // one source against the thread's kI targets (the pair function; a
//                          // policy may interleave the kI pairs for instruction-level parallelism)
//   template <int kI>
//   static void end_tile(Accum (&)[kI]);             // after each j-tile (e.g. fold float sums
//                          // of one tile into double: mixed precision); usually empty
//   static Partial partial(const Accum&, int c);     // component c of a thread's sum
//   static void finalize(const Args&, int k, int c, double sum);
//                          // the total of component c of target k (splits added in split order,
//                          // in double): apply the finishing touch (self terms, scale) and store
//   static void after_finalize(const Args&, int k_begin, int k_end);
//                          // called by the block that finalized targets [k_begin, k_end), after
//                          // its finalize calls (all threads of the block); usually empty
//
// Optional, two evaluators chosen per (warp, 32-source group) (mixed gravity's near/far: cheap
// arithmetic for sources far from a warp's targets, careful arithmetic near them):
//   static constexpr bool kTwoEvaluators = true;
//   template <int kI> struct Region;   // what near() reads of one warp's targets (shared memory)
//   template <int kI>
//   static Region<kI> region(const Args&, const Target (&)[kI]);  // warp-collective: the region
//                          // of the warp's 32·kI targets, the same value in every lane
//   template <int kI>
//   static bool near(const Args&, const Region<kI>&, int group);  // whether the sources
//                          // [32·group, 32·group + 32) need interact_near for these targets
//                          // (group may be past the last source: pads, either evaluator adds 0)
//   template <int kI>
//   static void interact_near(const Ctx&, const Source&, const Target (&)[kI], Accum (&)[kI]);
//   template <int kI>
//   static void end_near_group(Accum (&)[kI]);  // after each group interact_near took
// interact is then the evaluator of the other groups. A warp's groups of one tile are tested at
// once (one lane a group, a ballot) while the tile is staged.
//
// Two policies to copy from: MatvecPolicy in src/fredholm/cuda_matvec.cu (small: scalar or
// complex sums, optional per-tile fold into double) and GravityPolicy in src/nbody/cuda_gravity.cu
// (several staged arrays, a two-stage evaluator, self terms and an after_finalize hook).
//
// ## Host side
//   AllPairsCostModel model;  // per_pair, loads_per_source, components, bytes
//   model.shapes = {{kI, all_pairs_blocks_per_sm<P, kI, B>()}};
//   AllPairsPlan plan = plan_all_pairs(model, n_i, n_j, sms, max_partial_bytes);
//   workspace.prepare(plan, all_pairs_partial_bytes(model, plan, n_i), stream);
//   args.plan = plan, args.partial = workspace.partial(), args.tickets = workspace.tickets();
//   launch_all_pairs<P, kI, B>(args, stream, "name");  // kI == plan.i_per_thread
// (workspace: an AllPairsWorkspace, device_buffer.cuh.)
// Plans depend only on (n_i, n_j): cache them (the planner queries occupancy once per shape).
//
// ## Buffers
//   partial: Partial[kComponents][splits][n_i] (only used when plan.splits > 1)
//   tickets: unsigned[plan.i_blocks], zero before the first launch; each launch leaves them zero.
// AllPairsWorkspace (device_buffer.cuh) sizes both.
//
// ## Order of summation (determinism)
// Per target: sources in tile order within one group's slice, groups g = 0..q-1 added in shared
// memory (in Partial), splits 0..splits-1 added in double by whichever block finishes last. The
// result does not depend on timing: bitwise reproducible run to run.
//
// Under NVRTC (__CUDACC_RTC__: a policy generated at run time, e.g. fredholm's formula kernels,
// src/fredholm/cuda_formula_matvec.cpp) only the device part is compiled; the host launch helpers
// below are then left out, and the caller launches the kernel it compiled.
#pragma once

#ifndef __CUDACC_RTC__
#include <cuda_runtime.h>

#include "core/cuda_check.cuh"
#endif
#include <cstddef>

#include "engine/all_pairs.hpp"

namespace pairwise::engine {

// Whether Policy declares kTwoEvaluators = true (the optional interface above), and its region
// type where it does (an empty one otherwise). Written without <type_traits>: NVRTC compiles this
// header too.
template <class...>
struct VoidOf {
  using type = void;
};
template <class Policy, int kI, class = void>
struct TwoEvaluatorsOf {
  static constexpr bool value = false;
  struct Region {};
};
template <class Policy, int kI>
struct TwoEvaluatorsOf<Policy, kI, typename VoidOf<decltype(Policy::kTwoEvaluators)>::type> {
  static constexpr bool value = Policy::kTwoEvaluators;
  using Region = typename Policy::template Region<kI>;
};

// The evaluator a chunk loop calls: interact, or the optional interact_near (a type, so that a
// policy without interact_near never names it).
template <bool kNear>
struct NearEvaluator {
  template <class Policy, int kI, class Ctx, class Source, class Target, class Accum>
  static __device__ __forceinline__ void interact(const Ctx& ctx, const Source& src,
                                                  const Target (&tgt)[kI], Accum (&acc)[kI]) {
    if constexpr (kNear)
      Policy::template interact_near<kI>(ctx, src, tgt, acc);
    else
      Policy::template interact<kI>(ctx, src, tgt, acc);
  }
};

// Finalizes targets [k_begin, k_end), kPairs (component, target) pairs per thread at a time: the
// splits' partial sums added in split order (in double). The loads of kBatch splits of all kPairs
// pairs are in flight together (this tail runs on one block after the others finished, so it is
// L2-latency bound). `partial` is read through L2 (__ldcg): other blocks of this launch wrote it.
template <class Policy>
__device__ void all_pairs_finalize_targets(const typename Policy::Args& a, int k_begin, int k_end) {
  using Partial = typename Policy::Partial;
  constexpr int kComp = Policy::kComponents;
  constexpr int kThreads = kAllPairsThreads;
  constexpr int kPairs = 4, kBatch = 8;
  const Partial* partial = static_cast<const Partial*>(a.partial);
  const int splits = a.plan.splits, n = k_end - k_begin, pairs = n * kComp;
  for (int w0 = int(threadIdx.x); w0 < pairs; w0 += kPairs * kThreads) {
    const Partial* src[kPairs];
    double s[kPairs];
#pragma unroll
    for (int r = 0; r < kPairs; ++r) {
      const int w = min(w0 + r * kThreads, pairs - 1);  // duplicates past the end: not written
      const int c = w / n, k = k_begin + (w - c * n);
      src[r] = partial + std::size_t(c) * splits * a.n_i + k;
      s[r] = 0;  // fixed order over the splits: deterministic
    }
    int sp = 0;
    for (; sp + kBatch <= splits; sp += kBatch) {
      Partial v[kPairs][kBatch];
#pragma unroll
      for (int r = 0; r < kPairs; ++r)
#pragma unroll
        for (int u = 0; u < kBatch; ++u) v[r][u] = __ldcg(src[r] + std::size_t(sp + u) * a.n_i);
#pragma unroll
      for (int r = 0; r < kPairs; ++r)
#pragma unroll
        for (int u = 0; u < kBatch; ++u) s[r] += double(v[r][u]);
    }
    for (; sp < splits; ++sp) {
      Partial v[kPairs];
#pragma unroll
      for (int r = 0; r < kPairs; ++r) v[r] = __ldcg(src[r] + std::size_t(sp) * a.n_i);
#pragma unroll
      for (int r = 0; r < kPairs; ++r) s[r] += double(v[r]);
    }
#pragma unroll
    for (int r = 0; r < kPairs; ++r) {
      const int w = w0 + r * kThreads;
      if (w >= pairs) break;
      const int c = w / n, k = k_begin + (w - c * n);
      Policy::finalize(a, k, c, s[r]);
    }
  }
}

// The all-pairs kernel: grid = plan.i_blocks · plan.splits blocks of kAllPairsThreads threads.
template <class Policy, int kI, int kMinBlocks>
__global__ void __launch_bounds__(kAllPairsThreads, kMinBlocks)
    all_pairs_kernel(const typename Policy::Args a) {
  using Source = typename Policy::Source;
  using Target = typename Policy::Target;
  using Accum = typename Policy::Accum;
  using Partial = typename Policy::Partial;
  constexpr int kThreads = kAllPairsThreads;
  constexpr int kComp = Policy::kComponents;

  using TwoEvaluators = TwoEvaluatorsOf<Policy, kI>;
  constexpr bool kTwo = TwoEvaluators::value;

  __shared__ Source s_src[kThreads];
  __shared__ Partial s_red[kThreads * kI];
  __shared__ bool s_last;
  // kTwo: each warp's region (Policy::region), written once by its lane 0.
  __shared__ typename TwoEvaluators::Region s_region[kTwo ? kThreads / 32 : 1];

  const int q = a.plan.q;
  const int group_size = kThreads / q;  // >= 32: a warp lies inside one group
  const int g = threadIdx.x / group_size;
  const int lane = threadIdx.x - g * group_size;
  const int i_block = blockIdx.x % a.plan.i_blocks;  // neighbouring blocks share the j-range (L2)
  const int split = blockIdx.x / a.plan.i_blocks;
  const int i_per_block = group_size * kI;
  const int i_base = i_block * i_per_block + lane;

  Target tgt[kI];
#pragma unroll
  for (int k = 0; k < kI; ++k)
    tgt[k] = Policy::load_target(a, min(i_base + k * group_size, a.n_i - 1));
  Accum acc[kI];
#pragma unroll
  for (int k = 0; k < kI; ++k) acc[k] = Accum{};
  const typename Policy::Ctx ctx = Policy::context(a);

  const long long n_tiles = (a.n_j + kThreads - 1) / kThreads;
  const int t0 = int(split * n_tiles / a.plan.splits);
  const int t1 = int((split + 1) * n_tiles / a.plan.splits);
  const int j_begin = g * group_size, j_end = j_begin + group_size;
  [[maybe_unused]] const int warp = int(threadIdx.x) >> 5, warp_lane = int(threadIdx.x) & 31;
  if constexpr (kTwo) {
    const auto region = Policy::template region<kI>(a, tgt);
    if (warp_lane == 0) s_region[warp] = region;
    __syncwarp();
  }

  // kTwo: split s takes every splits-th tile from s instead of a contiguous range, so that the
  // groups near its targets (which sit in the few tiles of their own neighbourhood when the sources
  // are in a spatial order) spread over the splits rather than lengthen one block of the i-block.
  const int tile_begin = kTwo ? split : t0, tile_end = kTwo ? int(n_tiles) : t1;
  const int tile_step = kTwo ? a.plan.splits : 1;
  for (int tile = tile_begin; tile < tile_end; tile += tile_step) {
    const int j = tile * kThreads + threadIdx.x;
    s_src[threadIdx.x] = j < a.n_j ? Policy::load_source(a, j) : Policy::pad_source(a);
    // kTwo: bit b of `near` says whether this warp's 32-source group b of the tile takes
    // interact_near (group_size / 32 <= 8 groups, one lane each, tested while the tile loads).
    unsigned near = 0;
    if constexpr (kTwo) {
      const int first = (tile * kThreads + j_begin) / 32;
      const bool mine = warp_lane < group_size / 32 &&
                        Policy::template near<kI>(a, s_region[warp], first + warp_lane);
      near = __ballot_sync(0xffffffffu, mine);
    }
    __syncthreads();
    // Sources [jb, je) in chunks of kUnroll, fully unrolled: kUnroll broadcast loads and one loop
    // test per kUnroll·kI interactions (group_size is a multiple of 32); `evaluator` (a
    // NearEvaluator) picks interact or interact_near.
    constexpr int kUnroll = 8;
    auto sweep = [&](int jb, int je, auto evaluator) {
      for (int jc = jb; jc < je; jc += kUnroll) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const Source src = s_src[jc + u];
          decltype(evaluator)::template interact<Policy, kI>(ctx, src, tgt, acc);
        }
      }
    };
    if constexpr (kTwo) {
      for (int jg = j_begin; jg < j_end; jg += 32, near >>= 1) {
        if (near & 1u) {
          sweep(jg, jg + 32, NearEvaluator<true>{});
          Policy::template end_near_group<kI>(acc);
        } else {
          sweep(jg, jg + 32, NearEvaluator<false>{});
        }
      }
    } else {
      sweep(j_begin, j_end, NearEvaluator<false>{});
    }
    Policy::template end_tile<kI>(acc);
    __syncthreads();
  }

  // Partial sums of this (i-block, split): in-block groups reduced in order g = 0..q-1. With one
  // split they are final and finalized directly.
  const int splits = a.plan.splits;
  Partial* __restrict__ partial = static_cast<Partial*>(a.partial);
#pragma unroll
  for (int c = 0; c < kComp; ++c) {
    Partial value[kI];
#pragma unroll
    for (int k = 0; k < kI; ++k) value[k] = Policy::partial(acc[k], c);
    if (q > 1) {
#pragma unroll
      for (int k = 0; k < kI; ++k) s_red[k * kThreads + threadIdx.x] = value[k];
      __syncthreads();
      if (g == 0) {
#pragma unroll
        for (int k = 0; k < kI; ++k) {
          Partial s = value[k];
          for (int gg = 1; gg < q; ++gg) s += s_red[k * kThreads + gg * group_size + lane];
          value[k] = s;
        }
      }
      __syncthreads();
    }
    if (g == 0) {
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        const int i = i_base + k * group_size;
        if (i >= a.n_i) continue;
        if (splits == 1) {
          double s = 0;
          s += double(value[k]);
          Policy::finalize(a, i, c, s);
        } else {
          partial[(std::size_t(c) * splits + split) * a.n_i + i] = value[k];
        }
      }
    }
  }

  const int k_begin = i_block * i_per_block;
  const int k_end = min(k_begin + i_per_block, a.n_i);
  if (splits > 1) {
    // The last block of this i-block to finish sums every split's partials (the CUDA samples'
    // threadFenceReduction pattern); the order of the sum does not depend on which block it is.
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
      const unsigned ticket = atomicAdd(&a.tickets[i_block], 1u);
      s_last = ticket == unsigned(splits - 1);
    }
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    all_pairs_finalize_targets<Policy>(a, k_begin, k_end);
    if (threadIdx.x == 0) a.tickets[i_block] = 0;  // ready for the next launch
  }
  Policy::after_finalize(a, k_begin, k_end);
}

#ifndef __CUDACC_RTC__
// Blocks of all_pairs_kernel<Policy, kI, kMinBlocks> resident per SM.
template <class Policy, int kI, int kMinBlocks>
int all_pairs_blocks_per_sm() {
  int per_sm = 1;
  PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, all_pairs_kernel<Policy, kI, kMinBlocks>, kAllPairsThreads, 0));
  return per_sm < 1 ? 1 : per_sm;
}

// One launch of all_pairs_kernel<Policy, kI, kMinBlocks> for a.plan (kI must be
// a.plan.i_per_thread).
template <class Policy, int kI, int kMinBlocks>
void launch_all_pairs(const typename Policy::Args& a, cudaStream_t stream, const char* name) {
  const dim3 grid(unsigned(a.plan.i_blocks) * unsigned(a.plan.splits));
  all_pairs_kernel<Policy, kI, kMinBlocks><<<grid, kAllPairsThreads, 0, stream>>>(a);
  PW_CUDA_LAUNCH(name);
}
#endif  // __CUDACC_RTC__

}  // namespace pairwise::engine
