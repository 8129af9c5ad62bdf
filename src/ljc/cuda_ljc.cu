// CUDA kernels of the ljc workload (see cuda_ljc.cuh for the tile scheme). The pair arithmetic is
// physics::ljc_pair (pairwise/physics/ljc.hpp), unchanged.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/cuda_check.cuh"
#include "engine/pair_tiles.cuh"
#include "ljc/cuda_ljc.cuh"
#include "ljc/cuda_ljc_tiles.cuh"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/ljc.hpp"

namespace pairwise::ljc::cuda {
namespace {

using physics::DielectricKind;

static_assert(kFixedScale == kTileFixedScale);

// Warps resident on the whole GPU for this instantiation (occupancy × SMs), computed once.
template <Precision P, DielectricKind D, int kI, bool kN3, bool kEnergy,
          TileSet kSet = TileSet::all>
long long resident_warps() {
  static const long long warps = [] {
    int device = 0, sms = 1, per_sm = 1;
    PW_CUDA(cudaGetDevice(&device));
    PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, tiles_kernel<P, D, kI, kN3, kEnergy, BuiltinLjcPair, kSet>, 32 * kWarpsPerBlock,
        0));
    return (long long)std::max(per_sm, 1) * kWarpsPerBlock * sms;
  }();
  return warps;
}

// What the tile kernel reads of TileArgs.
TileKernelArgs tile_kernel_args(const TileArgs& a) {
  TileKernelArgs k;
  k.n = a.n, k.n_blocks = a.n_blocks, k.n_tiles = a.n_tiles, k.warps = a.warps;
  k.pos = a.pos, k.pos_lo = a.pos_lo, k.par = a.par;
  k.tile_mask_index = a.tile_mask_index, k.masks = a.masks;
  k.force = a.force, k.energy_acc = a.energy_acc;
  for (int c = 0; c < 4; ++c) k.sig[c] = a.sig[c];
  k.uniform_lj = a.uniform_lj;
  k.lj_sigma2 = a.lj_sigma2, k.lj_eps24 = a.lj_eps24, k.lj_eps48 = a.lj_eps48;
  k.atom_of_slot = a.atom_of_slot;
  k.tile_list = a.tile_list, k.tile_list_count = a.tile_list_count;
  k.tile_boxes = a.tile_boxes, k.pos_off = a.pos_off;
  return k;
}

// One wave of warps (as many as are resident at once), each a contiguous chunk of the tiles'
// source groups; a.warps caps it (0: no cap). A list's length is known on the device only: the
// whole wave is launched, warps past the work return.
template <Precision P, DielectricKind D, int kI, bool kN3, TileSet kSet>
void launch_tiles_set(const TileArgs& a0) {
  TileArgs a = a0;
  const long long resident = a.energy ? resident_warps<P, D, kI, kN3, true, kSet>()
                                      : resident_warps<P, D, kI, kN3, false, kSet>();
  const long long cap = a.warps > 0 ? std::min<long long>(a.warps, resident) : resident;
  a.warps = int(kSet == TileSet::all ? std::min<long long>(a.n_tiles * kI, cap) : cap);
  constexpr int kThreads = 32 * kWarpsPerBlock;
  const unsigned blocks = unsigned((a.warps * 32LL + kThreads - 1) / kThreads);
  auto stream = static_cast<cudaStream_t>(a.stream);
  const TileKernelArgs k = tile_kernel_args(a);
  if (a.energy) {
    tiles_kernel<P, D, kI, kN3, true, BuiltinLjcPair, kSet><<<blocks, kThreads, 0, stream>>>(k);
  } else {
    tiles_kernel<P, D, kI, kN3, false, BuiltinLjcPair, kSet><<<blocks, kThreads, 0, stream>>>(k);
  }
  PW_CUDA_LAUNCH(kSet == TileSet::far    ? "ljc tiles_kernel (far tiles)"
                 : kSet == TileSet::near ? "ljc tiles_kernel (near tiles)"
                                         : "ljc tiles_kernel");
}

template <Precision P, DielectricKind D, int kI, bool kN3>
void launch_tiles_for(const TileArgs& a) {
  if constexpr (P == Precision::mixed && kN3) {
    if (a.tile_set == TileSet::near) return launch_tiles_set<P, D, kI, kN3, TileSet::near>(a);
    if (a.tile_set == TileSet::far) return launch_tiles_set<P, D, kI, kN3, TileSet::far>(a);
  }
  launch_tiles_set<P, D, kI, kN3, TileSet::all>(a);
}

// Newton-3 tiles only (the one-sided kernel is the engine's, cuda_one_sided.cu); kI = 1 (small
// N: more warps) or the wide tile, 4 in FP32 and 2 in FP64.
template <Precision P, DielectricKind D>
void launch_tiles_p(const TileArgs& a) {
  constexpr int kWide = P == Precision::double_ ? 2 : 4;
  if (a.i_per_lane == kWide) return launch_tiles_for<P, D, kWide, true>(a);
  return launch_tiles_for<P, D, 1, true>(a);
}

template <Precision P>
void launch_tiles_d(const TileArgs& a) {
  switch (a.dielectric) {
    case DielectricKind::linear:
      return launch_tiles_p<P, DielectricKind::linear>(a);
    case DielectricKind::sigmoidal:
      return launch_tiles_p<P, DielectricKind::sigmoidal>(a);
    case DielectricKind::constant:
      break;
  }
  launch_tiles_p<P, DielectricKind::constant>(a);
}

// ---- bonds and 1-4 pairs: one thread per item, in the kernel's precision ----

// Energies: fixed-point atomics (single, mixed), or the block's sums into its slot (double:
// store_block_energies), so every thread of a block reaches the end.
template <Precision P, DielectricKind D>
__global__ void __launch_bounds__(kEnergyBlockThreads) bonded_kernel(const BondedArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using V4 = typename T::V4;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const double* x = a.x;
  double e[kEnergySlotWidth] = {0, 0, 0};  // LJ, Coulomb, bond
  if (k < a.n_bonds) {
    const int i = a.bond_ij[k], j = a.bond_ij[a.n_bonds + k];
    const double r0 = a.bond_rk[k], kb = a.bond_rk[a.n_bonds + k];
    double d[3];
    for (int c = 0; c < 3; ++c) d[c] = x[c * a.n + i] - x[c * a.n + j];
    const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const double dr = r - r0;
    const double f = r > 0 ? -kb * dr / r : 0.0;
    for (int c = 0; c < 3; ++c) {
      accumulate<T::kFixed>(a.force, (long long)c * a.n + i, f * d[c]);
      accumulate<T::kFixed>(a.force, (long long)c * a.n + j, -f * d[c]);
    }
    e[2] = 0.5 * kb * dr * dr;
    if constexpr (T::kFixed) {
      if (a.energy) accumulate<true>(a.energy_acc, 2, e[2]);
    }
  } else if (k - a.n_bonds < a.n_pairs14) {
    const int p = k - a.n_bonds;
    const int i = a.pair_ij[p], j = a.pair_ij[a.n_pairs14 + p];
    const V4* par = static_cast<const V4*>(a.par);
    const V4 pi = par[i], pj = par[j];
    F d[3];
    for (int c = 0; c < 3; ++c) d[c] = F(x[c * a.n + i] - x[c * a.n + j]);
    const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const physics::SigmoidalTerms<F> sig{F(a.sig[0]), F(a.sig[1]), F(a.sig[2]), F(a.sig[3])};
    const auto t = physics::ljc_pair_scaled<D, F>(r2, physics::LjcAtom<F>{pi.x, pi.y, pi.z},
                                                  physics::LjcAtom<F>{pj.x, pj.y, pj.z},
                                                  F(a.scale14_lj), F(a.scale14_coulomb), sig);
    add_pair_terms<T::kFixed>(a.force, a.energy_acc, a.energy, a.n, i, j, d, t, e);
  }
  if constexpr (!T::kFixed) {
    if (a.energy) store_block_energies(a.energy_acc, e);
  }
}

template <Precision P>
void launch_bonded_p(const BondedArgs& a) {
  const int items = a.n_bonds + a.n_pairs14;
  if (items == 0) return;
  const unsigned blocks = unsigned(bonded_blocks(a.n_bonds, a.n_pairs14));
  constexpr int kThreads = kEnergyBlockThreads;
  auto stream = static_cast<cudaStream_t>(a.stream);
  switch (a.dielectric) {
    case DielectricKind::linear:
      bonded_kernel<P, DielectricKind::linear><<<blocks, kThreads, 0, stream>>>(a);
      break;
    case DielectricKind::sigmoidal:
      bonded_kernel<P, DielectricKind::sigmoidal><<<blocks, kThreads, 0, stream>>>(a);
      break;
    case DielectricKind::constant:
      bonded_kernel<P, DielectricKind::constant><<<blocks, kThreads, 0, stream>>>(a);
      break;
  }
  PW_CUDA_LAUNCH("ljc bonded_kernel");
}

// ---- packing and finishing ----

template <Precision P>
__global__ void pack_kernel(const double* x, int n, int n_padded, void* pos, void* pos_lo) {
  using V4 = typename Traits<P>::V4;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_padded) return;
  double p[3];
  for (int c = 0; c < 3; ++c) p[c] = i < n ? x[c * n + i] : 1.0e4 + 10.0 * i * (c + 1);
  if constexpr (P == Precision::double_) {
    static_cast<D4*>(pos)[i] = {p[0], p[1], p[2], 0.0};
  } else {
    const float hx = float(p[0]), hy = float(p[1]), hz = float(p[2]);
    static_cast<V4*>(pos)[i] = make_float4(hx, hy, hz, 0.f);
    if constexpr (Traits<P>::kLo) {
      static_cast<float4*>(pos_lo)[i] =
          make_float4(float(p[0] - hx), float(p[1] - hy), float(p[2] - hz), 0.f);
    }
  }
}

// One block of `block` threads (32·kI <= 128) per tile: slot s = blockIdx.x·block + t. The box's
// bounds are reduced over the block's real atoms (the padding past n is left out), per warp by
// shuffles, then over the block's warps in shared memory.
constexpr int kMaxTileWarps = 4;
__global__ void __launch_bounds__(32 * kMaxTileWarps)
    pack_tiles_kernel(const double* x, const int* atom_of_slot, int n, void* pos, void* pos_lo,
                      void* pos_off, TileBox* boxes) {
  __shared__ double s_lo[3][kMaxTileWarps], s_hi[3][kMaxTileWarps];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5, warps = blockDim.x >> 5;
  const int s = blockIdx.x * blockDim.x + t;
  const bool real = s < n;
  const int atom = real ? atom_of_slot[s] : 0;
  double p[3], lo[3], hi[3];
  for (int c = 0; c < 3; ++c) {
    p[c] = real ? x[c * n + atom] : 1.0e4 + 10.0 * s * (c + 1);
    lo[c] = real ? p[c] : 1.0e300;
    hi[c] = real ? p[c] : -1.0e300;
  }
  const float hx = float(p[0]), hy = float(p[1]), hz = float(p[2]);
  static_cast<float4*>(pos)[s] = make_float4(hx, hy, hz, 0.f);
  static_cast<float4*>(pos_lo)[s] =
      make_float4(float(p[0] - hx), float(p[1] - hy), float(p[2] - hz), 0.f);
  for (int off = 16; off > 0; off >>= 1) {
    for (int c = 0; c < 3; ++c) {
      lo[c] = fmin(lo[c], __shfl_xor_sync(0xffffffffu, lo[c], off));
      hi[c] = fmax(hi[c], __shfl_xor_sync(0xffffffffu, hi[c], off));
    }
  }
  if (lane == 0) {
    for (int c = 0; c < 3; ++c) s_lo[c][warp] = lo[c], s_hi[c][warp] = hi[c];
  }
  __syncthreads();
  for (int c = 0; c < 3; ++c) {
    lo[c] = s_lo[c][0], hi[c] = s_hi[c][0];
    for (int w = 1; w < warps; ++w)
      lo[c] = fmin(lo[c], s_lo[c][w]), hi[c] = fmax(hi[c], s_hi[c][w]);
  }
  const TileBox box = make_tile_box(lo, hi);
  if (t == 0) boxes[blockIdx.x] = box;
  static_cast<float4*>(pos_off)[s] =
      make_float4(float(p[0] - box.c[0]), float(p[1] - box.c[1]), float(p[2] - box.c[2]), 0.f);
}

// Mixed's near/far lists (launch_classify_tiles), three kernels: per row I (a block of
// kClassifyThreads) the near and far tiles J >= I counted; one block turns the counts into row
// offsets (exclusive sums, in order) and the totals; per row the tiles written in order of J at
// the row's offsets (a block-wide ordered compaction per chunk of kClassifyThreads tiles).
constexpr int kClassifyThreads = 128;

__device__ __forceinline__ bool is_far_tile(const TileBox* boxes, const int* tile_mask_index,
                                            int nb, double kappa, int I, int J) {
  return tile_mask_index[(long long)I * nb + J] < 0 && far_tile_pair(boxes[I], boxes[J], kappa);
}

__global__ void __launch_bounds__(kClassifyThreads)
    count_tiles_kernel(const TileBox* boxes, const int* tile_mask_index, int nb, double kappa,
                       int* row_counts) {
  __shared__ int s_far[kClassifyThreads / 32];
  const int I = blockIdx.x, t = threadIdx.x;
  int far = 0;
  for (int J = I + t; J < nb; J += kClassifyThreads)
    far += is_far_tile(boxes, tile_mask_index, nb, kappa, I, J) ? 1 : 0;
  for (int off = 16; off > 0; off >>= 1) far += __shfl_xor_sync(0xffffffffu, far, off);
  if ((t & 31) == 0) s_far[t >> 5] = far;
  __syncthreads();
  if (t == 0) {
    int total = 0;
    for (int w = 0; w < kClassifyThreads / 32; ++w) total += s_far[w];
    row_counts[I] = (nb - I) - total;  // near
    row_counts[nb + 1 + I] = total;    // far
  }
}

// One block of 1024 threads: row_counts[k][0 .. nb) -> exclusive sums, [nb] and counts[k] the
// totals (k = 0 near, 1 far). The rows are summed in the tile kernel's folded order (rows p and
// nb-1-p in turn: folded_row), so that the diagonal tiles and the row changes spread evenly over
// the warps' chunks of a list as over the triangle's (row by row measured 1.44 against 1.63 T
// pairs/s at N = 65,536 with every tile near).
constexpr int kScanThreads = 1024;
__device__ __forceinline__ int folded_row(int f, int nb) {
  return (f & 1) == 0 ? f >> 1 : nb - 1 - (f >> 1);
}
__global__ void __launch_bounds__(kScanThreads)
    scan_tile_counts_kernel(int nb, int* row_counts, int* counts) {
  __shared__ int s[kScanThreads];
  const int t = threadIdx.x;
  for (int k = 0; k < 2; ++k) {
    int* c = row_counts + k * (nb + 1);
    int carry = 0;
    for (int base = 0; base < nb; base += kScanThreads) {
      const int row = base + t < nb ? folded_row(base + t, nb) : 0;
      const int v = base + t < nb ? c[row] : 0;
      s[t] = v;
      __syncthreads();
      for (int off = 1; off < kScanThreads; off <<= 1) {  // inclusive Hillis-Steele scan
        const int add = t >= off ? s[t - off] : 0;
        __syncthreads();
        s[t] += add;
        __syncthreads();
      }
      if (base + t < nb) c[row] = carry + s[t] - v;
      carry += s[kScanThreads - 1];
      __syncthreads();
    }
    if (t == 0) c[nb] = carry, counts[k] = carry;
  }
}

__global__ void __launch_bounds__(kClassifyThreads)
    fill_tiles_kernel(const TileBox* boxes, const int* tile_mask_index, int nb, double kappa,
                      const int* row_counts, TilePair* near_list, TilePair* far_list) {
  __shared__ int s_near[kClassifyThreads / 32], s_far[kClassifyThreads / 32];
  const int I = blockIdx.x, t = threadIdx.x, lane = t & 31, warp = t >> 5;
  int near_at = row_counts[I], far_at = row_counts[nb + 1 + I];
  for (int base = I; base < nb; base += kClassifyThreads) {
    const int J = base + t;
    const bool valid = J < nb;
    const bool far = valid && is_far_tile(boxes, tile_mask_index, nb, kappa, I, J);
    const bool near = valid && !far;
    const unsigned near_bits = __ballot_sync(0xffffffffu, near);
    const unsigned far_bits = __ballot_sync(0xffffffffu, far);
    if (lane == 0) s_near[warp] = __popc(near_bits), s_far[warp] = __popc(far_bits);
    __syncthreads();
    int near_before = 0, far_before = 0, near_all = 0, far_all = 0;
    for (int w = 0; w < kClassifyThreads / 32; ++w) {
      if (w < warp) near_before += s_near[w], far_before += s_far[w];
      near_all += s_near[w], far_all += s_far[w];
    }
    const unsigned below = (1u << lane) - 1u;
    if (near) near_list[near_at + near_before + __popc(near_bits & below)] = {I, J};
    if (far) far_list[far_at + far_before + __popc(far_bits & below)] = {I, J};
    near_at += near_all, far_at += far_all;
    __syncthreads();
  }
}

// Forces into out (double) and zeroed; the fixed-point energies (single, mixed) likewise. Double
// precision's energies are added by sum_energy_slots_kernel.
template <bool kFixed>
__global__ void finish_kernel(void* force, void* energy_acc, int n, double* out,
                              double* energy_out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < 3 * n) {
    if constexpr (kFixed) {
      long long* f = static_cast<long long*>(force);
      out[k] = double(f[k]) / kFixedScale;
      f[k] = 0;
    } else {
      double* f = static_cast<double*>(force);
      out[k] = f[k];
      f[k] = 0;
    }
  }
  if constexpr (kFixed) {
    if (k < 3) {
      long long* e = static_cast<long long*>(energy_acc);
      energy_out[k] = double(e[k]) / kFixedScale;
      e[k] = 0;
    }
  }
}

// One block: thread t adds slots t, t + kSumThreads, ... in order, then a fixed tree in shared
// memory adds the threads' sums; the slots are zeroed. The order depends on `count` alone.
constexpr int kSumThreads = 256;
__global__ void __launch_bounds__(kSumThreads)
    sum_energy_slots_kernel(double* slots, long long count, double* out) {
  __shared__ double s[kEnergySlotWidth][kSumThreads];
  const int t = threadIdx.x;
  double e[kEnergySlotWidth] = {0, 0, 0};
  for (long long k = t; k < count; k += kSumThreads) {
#pragma unroll
    for (int c = 0; c < kEnergySlotWidth; ++c) {
      e[c] += slots[kEnergySlotWidth * k + c];
      slots[kEnergySlotWidth * k + c] = 0;
    }
  }
#pragma unroll
  for (int c = 0; c < kEnergySlotWidth; ++c) s[c][t] = e[c];
  __syncthreads();
  for (int h = kSumThreads / 2; h > 0; h >>= 1) {
    if (t < h) {
#pragma unroll
      for (int c = 0; c < kEnergySlotWidth; ++c) s[c][t] += s[c][t + h];
    }
    __syncthreads();
  }
  if (t < kEnergySlotWidth) out[t] = s[t][0];
}

// The first half of a step for atom i (v already holds the state after the previous step): half
// kick, drift (or BAOAB's drift, O, drift), store, and pack the new position for the pair kernels.
template <Precision P>
__device__ __forceinline__ void first_half(const StepArgs& a, int i, const double (&f)[3],
                                           unsigned long long step_index) {
  const double h = 0.5 * a.dt * a.inv_mass[i];
  double v[3], x[3];
  for (int c = 0; c < 3; ++c) {
    v[c] = a.v[c * a.n + i], x[c] = a.x[c * a.n + i];
    physics::kick(v[c], f[c], h);
  }
  if (a.langevin) {
    for (int c = 0; c < 3; ++c) physics::drift(x[c], v[c], 0.5 * a.dt);
    const physics::LangevinCoefficients coeff{a.c1, a.c2};
    physics::langevin_o_step(v[0], v[1], v[2], a.inv_mass[i], a.kT, coeff, a.seed, step_index,
                             std::uint32_t(i));
    for (int c = 0; c < 3; ++c) physics::drift(x[c], v[c], 0.5 * a.dt);
  } else {
    for (int c = 0; c < 3; ++c) physics::drift(x[c], v[c], a.dt);
  }
  for (int c = 0; c < 3; ++c) a.v[c * a.n + i] = v[c], a.x[c * a.n + i] = x[c];
  if (a.pos == nullptr) return;  // packed by launch_pack_tiles
  if constexpr (P == Precision::double_) {
    static_cast<D4*>(a.pos)[i] = {x[0], x[1], x[2], 0.0};
  } else {
    const float hx = float(x[0]), hy = float(x[1]), hz = float(x[2]);
    static_cast<float4*>(a.pos)[i] = make_float4(hx, hy, hz, 0.f);
    if constexpr (P == Precision::mixed) {
      static_cast<float4*>(a.pos_lo)[i] =
          make_float4(float(x[0] - hx), float(x[1] - hy), float(x[2] - hz), 0.f);
    }
  }
}

// The forces of atom i from the accumulators (which are zeroed), stored into a.f.
template <bool kFixed>
__device__ __forceinline__ void take_forces(const StepArgs& a, int i, double (&f)[3]) {
  for (int c = 0; c < 3; ++c) {
    const long long k = (long long)c * a.n + i;
    if constexpr (kFixed) {
      long long* acc = static_cast<long long*>(a.force_acc);
      f[c] = double(acc[k]) / kFixedScale;
      acc[k] = 0;
    } else {
      double* acc = static_cast<double*>(a.force_acc);
      f[c] = acc[k];
      acc[k] = 0;
    }
    a.f[k] = f[c];
  }
}

template <Precision P>
__global__ void step_first_kernel(const StepArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const double f[3] = {a.f[i], a.f[a.n + i], a.f[2 * a.n + i]};
  first_half<P>(a, i, f, *a.step + a.offset + 1);
}

template <Precision P>
__global__ void step_between_kernel(const StepArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  double f[3];
  take_forces<P != Precision::double_>(a, i, f);
  const double h = 0.5 * a.dt * a.inv_mass[i];
  for (int c = 0; c < 3; ++c) physics::kick(a.v[c * a.n + i], f[c], h);  // ends step offset
  first_half<P>(a, i, f, *a.step + a.offset + 1);
}

template <bool kFixed>
__global__ void step_second_kernel(const StepArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) *a.step += a.advance;  // no other thread of this kernel reads it
  if (i >= a.n) return;
  double f[3];
  take_forces<kFixed>(a, i, f);
  const double h = 0.5 * a.dt * a.inv_mass[i];
  for (int c = 0; c < 3; ++c) physics::kick(a.v[c * a.n + i], f[c], h);
}

}  // namespace

void launch_step_first(const StepArgs& a) {
  const unsigned blocks = unsigned((a.n + 127) / 128);
  auto s = static_cast<cudaStream_t>(a.stream);
  switch (a.precision) {
    case Precision::single:
      step_first_kernel<Precision::single><<<blocks, 128, 0, s>>>(a);
      break;
    case Precision::mixed:
      step_first_kernel<Precision::mixed><<<blocks, 128, 0, s>>>(a);
      break;
    case Precision::double_:
      step_first_kernel<Precision::double_><<<blocks, 128, 0, s>>>(a);
      break;
  }
  PW_CUDA_LAUNCH("ljc step_first_kernel");
}

void launch_step_between(const StepArgs& a) {
  const unsigned blocks = unsigned((a.n + 127) / 128);
  auto s = static_cast<cudaStream_t>(a.stream);
  switch (a.precision) {
    case Precision::single:
      step_between_kernel<Precision::single><<<blocks, 128, 0, s>>>(a);
      break;
    case Precision::mixed:
      step_between_kernel<Precision::mixed><<<blocks, 128, 0, s>>>(a);
      break;
    case Precision::double_:
      step_between_kernel<Precision::double_><<<blocks, 128, 0, s>>>(a);
      break;
  }
  PW_CUDA_LAUNCH("ljc step_between_kernel");
}

void launch_step_second(const StepArgs& a) {
  const unsigned blocks = unsigned((a.n + 127) / 128);
  auto s = static_cast<cudaStream_t>(a.stream);
  if (a.precision == Precision::double_) {
    step_second_kernel<false><<<blocks, 128, 0, s>>>(a);
  } else {
    step_second_kernel<true><<<blocks, 128, 0, s>>>(a);
  }
  PW_CUDA_LAUNCH("ljc step_second_kernel");
}

void launch_tiles(const TileArgs& a) {
  if (a.n_tiles == 0) return;
  switch (a.precision) {
    case Precision::single:
      return launch_tiles_d<Precision::single>(a);
    case Precision::mixed:
      return launch_tiles_d<Precision::mixed>(a);
    case Precision::double_:
      return launch_tiles_d<Precision::double_>(a);
  }
}

void launch_bonded(const BondedArgs& a) {
  switch (a.precision) {
    case Precision::single:
      return launch_bonded_p<Precision::single>(a);
    case Precision::mixed:
      return launch_bonded_p<Precision::mixed>(a);
    case Precision::double_:
      return launch_bonded_p<Precision::double_>(a);
  }
}

void launch_pack_positions(Precision p, const double* x, int n, int n_padded, void* pos,
                           void* pos_lo, void* stream) {
  const unsigned blocks = unsigned((n_padded + 127) / 128);
  auto s = static_cast<cudaStream_t>(stream);
  switch (p) {
    case Precision::single:
      pack_kernel<Precision::single><<<blocks, 128, 0, s>>>(x, n, n_padded, pos, pos_lo);
      break;
    case Precision::mixed:
      pack_kernel<Precision::mixed><<<blocks, 128, 0, s>>>(x, n, n_padded, pos, pos_lo);
      break;
    case Precision::double_:
      pack_kernel<Precision::double_><<<blocks, 128, 0, s>>>(x, n, n_padded, pos, pos_lo);
      break;
  }
  PW_CUDA_LAUNCH("ljc pack_kernel");
}

void launch_pack_tiles(const double* x, const int* atom_of_slot, int n, int n_blocks, int block,
                       void* pos, void* pos_lo, void* pos_off, TileBox* boxes, void* stream) {
  if (n_blocks == 0) return;
  pack_tiles_kernel<<<unsigned(n_blocks), unsigned(block), 0, static_cast<cudaStream_t>(stream)>>>(
      x, atom_of_slot, n, pos, pos_lo, pos_off, boxes);
  PW_CUDA_LAUNCH("ljc pack_tiles_kernel");
}

void launch_classify_tiles(const TileBox* boxes, const int* tile_mask_index, int n_blocks,
                           double kappa, int* row_counts, TilePair* near_list, TilePair* far_list,
                           int* counts, void* stream) {
  if (n_blocks == 0) return;
  auto s = static_cast<cudaStream_t>(stream);
  const unsigned rows = unsigned(n_blocks);
  count_tiles_kernel<<<rows, kClassifyThreads, 0, s>>>(boxes, tile_mask_index, n_blocks, kappa,
                                                       row_counts);
  PW_CUDA_LAUNCH("ljc count_tiles_kernel");
  scan_tile_counts_kernel<<<1, kScanThreads, 0, s>>>(n_blocks, row_counts, counts);
  PW_CUDA_LAUNCH("ljc scan_tile_counts_kernel");
  fill_tiles_kernel<<<rows, kClassifyThreads, 0, s>>>(boxes, tile_mask_index, n_blocks, kappa,
                                                      row_counts, near_list, far_list);
  PW_CUDA_LAUNCH("ljc fill_tiles_kernel");
}

void launch_finish_forces(Precision p, void* force, void* energy_acc, long long energy_slots, int n,
                          double* force_out, double* energy_out, void* stream) {
  const unsigned blocks = unsigned((3 * n + 127) / 128);
  auto s = static_cast<cudaStream_t>(stream);
  if (p == Precision::double_) {
    finish_kernel<false><<<blocks, 128, 0, s>>>(force, energy_acc, n, force_out, energy_out);
  } else {
    finish_kernel<true><<<blocks, 128, 0, s>>>(force, energy_acc, n, force_out, energy_out);
  }
  PW_CUDA_LAUNCH("ljc finish_kernel");
  if (p == Precision::double_ && energy_slots > 0)
    launch_sum_energy_slots(energy_acc, energy_slots, energy_out, stream);
}

long long max_tile_warps(int device) {
  int sms = 1, threads = 2048;
  PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PW_CUDA(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  return (long long)sms * (threads / 32);  // resident warps per SM at most
}

void launch_sum_energy_slots(void* slots, long long count, double* out, void* stream) {
  sum_energy_slots_kernel<<<1, kSumThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<double*>(slots), count, out);
  PW_CUDA_LAUNCH("ljc sum_energy_slots_kernel");
}

long long bonded_blocks(int n_bonds, int n_pairs14) {
  return (n_bonds + (long long)n_pairs14 + kEnergyBlockThreads - 1) / kEnergyBlockThreads;
}

}  // namespace pairwise::ljc::cuda
