// CUDA kernels of the ljc workload (see cuda_ljc.cuh for the tile scheme). The pair arithmetic is
// physics::ljc_pair (pairwise/physics/ljc.hpp), unchanged.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/cuda_check.cuh"
#include "engine/pair_tiles.cuh"
#include "ljc/cuda_ljc.cuh"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/ljc.hpp"

namespace pairwise::ljc::cuda {
namespace {

using physics::DielectricKind;

struct alignas(32) D4 {
  double x, y, z, w;
};

template <Precision P>
struct Traits;
template <>
struct Traits<Precision::single> {
  using F = float;
  using A = float;  // sums over tiles
  using V4 = float4;
  static constexpr bool kLo = false, kFixed = true;
};
template <>
struct Traits<Precision::mixed> {
  using F = float;
  using A = double;
  using V4 = float4;
  static constexpr bool kLo = true, kFixed = true;
};
template <>
struct Traits<Precision::double_> {
  using F = double;
  using A = double;
  using V4 = D4;
  static constexpr bool kLo = false, kFixed = false;
};

// Adds v to an accumulator: 64-bit fixed point (deterministic) or FP64 atomics.
template <bool kFixed>
__device__ __forceinline__ void accumulate(void* base, long long index, double v) {
  if constexpr (kFixed) {
    const long long fixed = __double2ll_rn(v * kFixedScale);
    atomicAdd(reinterpret_cast<unsigned long long*>(base) + index,
              static_cast<unsigned long long>(fixed));
  } else {
    atomicAdd(static_cast<double*>(base) + index, v);
  }
}
// The same from an FP32 value: v·2^32 is exact in FP32 (a power-of-two scale), so the fixed-point
// integer is bitwise the double path's, without the FP64 conversion and multiply.
template <bool kFixed>
__device__ __forceinline__ void accumulate(void* base, long long index, float v) {
  if constexpr (kFixed) {
    const long long fixed = __float2ll_rn(v * float(kFixedScale));
    atomicAdd(reinterpret_cast<unsigned long long*>(base) + index,
              static_cast<unsigned long long>(fixed));
  } else {
    atomicAdd(static_cast<double*>(base) + index, double(v));
  }
}

// The tile kernel: each warp walks a contiguous chunk of tiles (row-major over the square, or the
// upper triangle with newton3, its rows taken in pairs p, nb-1-p), keeping its kI targets' forces
// in registers while the row stays the same. Per tile the warp stages its B sources in shared
// memory, each 32-source group twice in a row (64 entries), so that at rotation step s lane L reads
// source (L + s) mod 32 at entry L + s: one broadcast-free, conflict-free LDS.128 + LDS.64 per step
// and an immediate offset in the unrolled loop, where the sources used to be passed by six
// shuffles. Only the forces on the sources still travel between lanes (three shuffles per step).
// Unmasked tiles use the cheaper form of the pair (physics::ljc_pair_lb), masked ones
// ljc_pair_scaled.
template <class F>
struct Pair2;
template <>
struct Pair2<float> {
  using type = float2;
};
template <>
struct Pair2<double> {
  using type = double2;
};

constexpr int kWarpsPerBlock = 4;
// Blocks per SM asked of the register allocator for the wide tiles: 4 in single (16 warps, ≤ 128
// registers; else ~168 registers and 12 warps), 3 in mixed (12 warps, ≤ 168 registers, no spills;
// else ~245 registers and 8 warps: 1.539 against 1.510 T pairs/s at N = 65,536, per-atom LJ).
#ifndef PAIRWISE_LJC_WIDE_MIN_BLOCKS
#define PAIRWISE_LJC_WIDE_MIN_BLOCKS 4
#endif
#ifndef PAIRWISE_LJC_TILE_UNROLL
#define PAIRWISE_LJC_TILE_UNROLL 8  // rotation steps per loop trip
#endif
template <Precision P, int kI>
constexpr int kMinBlocks = kI < 4                   ? 1
                           : P == Precision::single ? PAIRWISE_LJC_WIDE_MIN_BLOCKS
                           : P == Precision::mixed  ? 3
                                                    : 1;
constexpr int kTileUnroll = PAIRWISE_LJC_TILE_UNROLL;

// Work is dealt out in units of one 32-source group of a tile (kI units per tile), so that the
// chunks of the warps differ by at most one group, not one tile.
template <Precision P, DielectricKind D, int kI, bool kN3, bool kEnergy>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, (kMinBlocks<P, kI>))
    tiles_kernel(const TileArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using V4 = typename T::V4;
  using F2 = typename Pair2<F>::type;
  constexpr int B = 32 * kI;
  // Per warp: for each 32-source group, 64 entries (the group twice).
  __shared__ V4 s_pq[kWarpsPerBlock][kI][64];  // x, y, z, q
  __shared__ F2 s_se[kWarpsPerBlock][kI][64];  // σ/2, sqrt ε
  __shared__ V4 s_lo[kWarpsPerBlock][T::kLo ? kI : 1][T::kLo ? 64 : 1];
  const int lane = threadIdx.x & 31;
  const int wib = threadIdx.x >> 5;
  const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  if (warp >= a.warps) return;
  const long long n_units = a.n_tiles * kI;
  const long long chunk = (n_units + a.warps - 1) / a.warps;
  const long long v0 = warp * chunk;
  const long long v_end = min(n_units, v0 + chunk);
  if (v0 >= v_end) return;
  long long t = v0 / kI;
  const long long t_last = (v_end - 1) / kI;
  int u_lo = int(v0 - t * kI);
  const int u_hi_last = int(v_end - 1 - t_last * kI) + 1;
  const int nb = a.n_blocks;
  // Decode the first tile. Newton-3 order (folded): the triangle's rows are taken in pairs, row p
  // (tiles J = p .. nb-1) then row nb-1-p (J = nb-1-p .. nb-1), nb + 1 tiles per pair, so that the
  // diagonal tiles (one-sided and masked: dearer) and the row changes are spread evenly over the
  // warps' chunks instead of crowding the chunks at the end of the triangle, whose short rows
  // made those warps the last to finish.
  int I, J, fold = 0;
  if constexpr (kN3) {
    fold = int(t / (nb + 1));
    const int r = int(t - (long long)fold * (nb + 1));
    if (r < nb - fold) {
      I = fold, J = fold + r;
    } else {
      I = nb - 1 - fold, J = I + (r - (nb - fold));
    }
  } else {
    I = int(t / nb);
    J = int(t - (long long)I * nb);
  }
  const V4* pos = static_cast<const V4*>(a.pos);
  const V4* lo4 = static_cast<const V4*>(a.pos_lo);
  const V4* par = static_cast<const V4*>(a.par);
  const physics::SigmoidalTerms<F> sig{F(a.sig[0]), F(a.sig[1]), F(a.sig[2]), F(a.sig[3])};
  // Uniform LJ parameters (every atom the same σ, ε): σ², 24 ε, 48 ε of every pair.
  const F u_s2 = F(a.lj_sigma2), u_e24 = F(a.lj_eps24), u_e48 = F(a.lj_eps48);

  F xi[kI][3], xil[kI][3], eps24_i[kI], eps48_i[kI];
  physics::LjcAtom<F> ai[kI];
  using A = typename T::A;
  // Where the per-group target sums go: straight into the row sums when they have the kernel's
  // precision (single, double: no second set of kI·3 registers), else FP32 partial sums per group
  // added to the FP64 row sums (mixed).
  constexpr bool kDirect = std::is_same_v<A, F>;
  A fi[kI][3];
  A e_lj = 0, e_c = 0;
  int row = -1;
  auto flush_row = [&]() {
    if (row < 0) return;
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      const int i = row * B + k * 32 + lane;
      if (i < a.n) {
#pragma unroll
        for (int c = 0; c < 3; ++c)
          accumulate<T::kFixed>(a.force, (long long)c * a.n + i, fi[k][c]);
      }
    }
  };
  for (; t <= t_last; ++t) {
    const int u_hi = t == t_last ? u_hi_last : kI;
    if (I != row) {
      flush_row();
      row = I;
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        const int i = I * B + k * 32 + lane;
        const V4 p = pos[i];
        xi[k][0] = p.x, xi[k][1] = p.y, xi[k][2] = p.z;
        if constexpr (T::kLo) {
          const V4 l = lo4[i];
          xil[k][0] = l.x, xil[k][1] = l.y, xil[k][2] = l.z;
        }
        const V4 q = par[i];
        ai[k] = {q.x, q.y, q.z};
        eps24_i[k] = F(24) * q.z;
        eps48_i[k] = F(48) * q.z;
        fi[k][0] = fi[k][1] = fi[k][2] = 0;
      }
    }
    // Stage the tile's sources (the groups this warp takes).
    __syncwarp();
#pragma unroll
    for (int u = 0; u < kI; ++u) {
      if (u < u_lo || u >= u_hi) continue;
      const int j = J * B + u * 32 + lane;
      const V4 p = pos[j], q = par[j];
      V4 pq = p;
      pq.w = q.x;
      const F2 se{q.y, q.z};
      s_pq[wib][u][lane] = pq, s_pq[wib][u][lane + 32] = pq;
      s_se[wib][u][lane] = se, s_se[wib][u][lane + 32] = se;
      if constexpr (T::kLo) {
        const V4 l = lo4[j];
        s_lo[wib][u][lane] = l, s_lo[wib][u][lane + 32] = l;
      }
    }
    __syncwarp();
    const int mask_index = a.tile_mask_index[(long long)I * nb + J];
    const bool n3 = kN3 && I != J;
#pragma unroll 1
    for (int u = u_lo; u < u_hi; ++u) {
      const int j0 = J * B + u * 32 + lane;
      const V4* sp = &s_pq[wib][u][lane];
      const F2* ss = &s_se[wib][u][lane];
      const V4* sl = &s_lo[wib][T::kLo ? u : 0][T::kLo ? lane : 0];
      F fj[3] = {0, 0, 0}, ft_store[kDirect ? 1 : kI][3] = {}, t_lj = 0, t_c = 0;
      auto& ft = *[&] {
        if constexpr (kDirect)
          return &fi;
        else
          return &ft_store;
      }();
      std::uint32_t m[kI];
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        m[k] = mask_index >= 0
                   ? a.masks[(long long)mask_index * (kI * kI * 32) + (k * kI + u) * 32 + lane]
                   : 0u;
      }
      // 32 rotation steps. Four variants: unmasked off-diagonal tiles (most of them: no mask
      // test, Newton's third law, the cheaper pair form; with uniform LJ parameters, the cheaper
      // still), masked off-diagonal tiles, and diagonal tiles (one-sided).
      auto sweep = [&](auto masked, auto pair_n3, auto uniform) {
        constexpr bool kMasked = decltype(masked)::value, kPairN3 = decltype(pair_n3)::value;
        constexpr bool kUniform = decltype(uniform)::value;
        [[maybe_unused]] const F e_w = kPairN3 ? F(1) : F(0.5);
#pragma unroll kTileUnroll
        for (int s = 0; s < 32; ++s) {
          const V4 pj = sp[s];
          [[maybe_unused]] F2 sj{};
          if constexpr (!kUniform) sj = ss[s];
          [[maybe_unused]] F xjl[3] = {0, 0, 0};
          if constexpr (T::kLo) {
            const V4 l = sl[s];
            xjl[0] = l.x, xjl[1] = l.y, xjl[2] = l.z;
          }
          const F xj[3] = {pj.x, pj.y, pj.z};
#pragma unroll
          for (int k = 0; k < kI; ++k) {
            F d[3];
#pragma unroll
            for (int c = 0; c < 3; ++c) {
              d[c] = xi[k][c] - xj[c];
              if constexpr (T::kLo) d[c] += xil[k][c] - xjl[c];
            }
            const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            physics::LjcTerms<F> term;
            if constexpr (kMasked) {
              const F keep = ((m[k] >> s) & 1u) ? F(0) : F(1);
              term = physics::ljc_pair_scaled<D, F>(
                  r2, ai[k], physics::LjcAtom<F>{pj.w, sj.x, sj.y}, keep, keep, sig);
            } else if constexpr (kUniform) {
              term = physics::ljc_pair_lb<D, F>(r2, ai[k].q * pj.w, u_s2, F(1), u_e24, u_e48, sig);
            } else {
              const F sigma = ai[k].half_sigma + sj.x;
              term = physics::ljc_pair_lb<D, F>(r2, ai[k].q * pj.w, sigma * sigma, sj.y, eps24_i[k],
                                                eps48_i[k], sig);
            }
#pragma unroll
            for (int c = 0; c < 3; ++c) {
              ft[k][c] += term.force_over_r * d[c];
              if constexpr (kPairN3) fj[c] -= term.force_over_r * d[c];
            }
            if constexpr (kEnergy) t_lj += e_w * term.lj, t_c += e_w * term.coulomb;
          }
          // Pass the forces on the sources one lane down, with the sources.
          if constexpr (kPairN3) {
#pragma unroll
            for (int c = 0; c < 3; ++c) fj[c] = engine::rotate_next(fj[c]);
          }
        }
      };
      using True = std::integral_constant<bool, true>;
      using False = std::integral_constant<bool, false>;
      // The uniform-LJ sweep is not taken with the sigmoidal dielectric, where it measured slower
      // than the general one (N = 65,536: 1.18 against 1.23 T pairs/s in single, 0.90 against
      // 1.07 in mixed; the exp() dominates its pair and the compiler schedules it worse).
      constexpr bool kHasUniform = D != DielectricKind::sigmoidal;
      if (mask_index < 0) {
        if (kHasUniform && a.uniform_lj)
          sweep(False{}, std::integral_constant<bool, kN3>{}, True{});
        else
          sweep(False{}, std::integral_constant<bool, kN3>{}, False{});
      } else if (n3) {
        sweep(True{}, True{}, False{});
      } else {
        sweep(True{}, False{}, False{});
      }
      if constexpr (!kDirect) {
#pragma unroll
        for (int k = 0; k < kI; ++k)
#pragma unroll
          for (int c = 0; c < 3; ++c) fi[k][c] += A(ft_store[k][c]);
      }
      if constexpr (kEnergy) e_lj += A(t_lj), e_c += A(t_c);
      if (n3 && j0 < a.n) {
#pragma unroll
        for (int c = 0; c < 3; ++c) accumulate<T::kFixed>(a.force, (long long)c * a.n + j0, fj[c]);
      }
    }
    u_lo = 0;
    ++J;
    if (J == nb) {
      if constexpr (kN3) {
        if (I == fold) {
          I = nb - 1 - fold;  // the pair's second row (past the end when it is row fold itself)
        } else {
          I = ++fold;
        }
        J = I;
      } else {
        ++I;
        J = kN3 ? I : 0;
      }
    }
  }
  flush_row();
  if constexpr (kEnergy) {
    for (int off = 16; off > 0; off >>= 1) {
      e_lj += __shfl_down_sync(0xffffffffu, e_lj, off);
      e_c += __shfl_down_sync(0xffffffffu, e_c, off);
    }
    if (lane == 0) {
      accumulate<T::kFixed>(a.energy_acc, 0, double(e_lj));
      accumulate<T::kFixed>(a.energy_acc, 1, double(e_c));
    }
  }
}

// Warps resident on the whole GPU for this instantiation (occupancy × SMs), computed once.
template <Precision P, DielectricKind D, int kI, bool kN3, bool kEnergy>
long long resident_warps() {
  static const long long warps = [] {
    int device = 0, sms = 1, per_sm = 1;
    PW_CUDA(cudaGetDevice(&device));
    PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, tiles_kernel<P, D, kI, kN3, kEnergy>, 32 * kWarpsPerBlock, 0));
    return (long long)std::max(per_sm, 1) * kWarpsPerBlock * sms;
  }();
  return warps;
}

// One wave of warps (as many as are resident at once), each a contiguous chunk of the tiles'
// source groups; a.warps caps it (0: no cap).
template <Precision P, DielectricKind D, int kI, bool kN3>
void launch_tiles_for(const TileArgs& a0) {
  TileArgs a = a0;
  const long long resident =
      a.energy ? resident_warps<P, D, kI, kN3, true>() : resident_warps<P, D, kI, kN3, false>();
  a.warps = int(std::min<long long>(
      a.n_tiles * kI, a.warps > 0 ? std::min<long long>(a.warps, resident) : resident));
  constexpr int kThreads = 32 * kWarpsPerBlock;
  const unsigned blocks = unsigned((a.warps * 32LL + kThreads - 1) / kThreads);
  auto stream = static_cast<cudaStream_t>(a.stream);
  if (a.energy) {
    tiles_kernel<P, D, kI, kN3, true><<<blocks, kThreads, 0, stream>>>(a);
  } else {
    tiles_kernel<P, D, kI, kN3, false><<<blocks, kThreads, 0, stream>>>(a);
  }
  PW_CUDA_LAUNCH("ljc tiles_kernel");
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

template <Precision P, DielectricKind D>
__global__ void bonded_kernel(const BondedArgs a) {
  using T = Traits<P>;
  using F = typename T::F;
  using V4 = typename T::V4;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const double* x = a.x;
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
    if (a.energy) accumulate<T::kFixed>(a.energy_acc, 2, 0.5 * kb * dr * dr);
    return;
  }
  const int p = k - a.n_bonds;
  if (p >= a.n_pairs14) return;
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
  for (int c = 0; c < 3; ++c) {
    accumulate<T::kFixed>(a.force, (long long)c * a.n + i, double(t.force_over_r * d[c]));
    accumulate<T::kFixed>(a.force, (long long)c * a.n + j, -double(t.force_over_r * d[c]));
  }
  if (a.energy) {
    accumulate<T::kFixed>(a.energy_acc, 0, double(t.lj));
    accumulate<T::kFixed>(a.energy_acc, 1, double(t.coulomb));
  }
}

template <Precision P>
void launch_bonded_p(const BondedArgs& a) {
  const int items = a.n_bonds + a.n_pairs14;
  if (items == 0) return;
  const unsigned blocks = unsigned((items + 127) / 128);
  auto stream = static_cast<cudaStream_t>(a.stream);
  switch (a.dielectric) {
    case DielectricKind::linear:
      bonded_kernel<P, DielectricKind::linear><<<blocks, 128, 0, stream>>>(a);
      break;
    case DielectricKind::sigmoidal:
      bonded_kernel<P, DielectricKind::sigmoidal><<<blocks, 128, 0, stream>>>(a);
      break;
    case DielectricKind::constant:
      bonded_kernel<P, DielectricKind::constant><<<blocks, 128, 0, stream>>>(a);
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
  if (k < 3) {
    if constexpr (kFixed) {
      long long* e = static_cast<long long*>(energy_acc);
      energy_out[k] = double(e[k]) / kFixedScale;
      e[k] = 0;
    } else {
      double* e = static_cast<double*>(energy_acc);
      energy_out[k] = e[k];
      e[k] = 0;
    }
  }
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

void launch_finish_forces(Precision p, void* force, void* energy_acc, int n, double* force_out,
                          double* energy_out, void* stream) {
  const unsigned blocks = unsigned((3 * n + 127) / 128);
  auto s = static_cast<cudaStream_t>(stream);
  if (p == Precision::double_) {
    finish_kernel<false><<<blocks, 128, 0, s>>>(force, energy_acc, n, force_out, energy_out);
  } else {
    finish_kernel<true><<<blocks, 128, 0, s>>>(force, energy_acc, n, force_out, energy_out);
  }
  PW_CUDA_LAUNCH("ljc finish_kernel");
}

}  // namespace pairwise::ljc::cuda
