// The ljc Newton-3 tile kernel (the scheme: cuda_ljc.cuh) as a template on its pair functor, so
// that nvcc compiles it with the built-in LJ + Coulomb (BuiltinLjcPair, cuda_ljc.cu) and NVRTC at
// run time with a functor generated from a formula (issue 13: CustomPair, cuda_custom_term.cpp).
// This header is embedded as text for NVRTC (engine/formula/embed_cuda_headers.cmake): it includes
// only headers that NVRTC finds there (engine/formula/nvrtc_std/ stands in for the std headers).
//
// A pair functor Pair has
//   kHasUniform                       whether `uniform` exists (the built-in's constant σ, ε path);
//   masked<D, F>(r2, ai, aj, keep, sig)   the pair times keep (0 or 1; 0 also where r2 may be 0:
//                                         the atom with itself, padding), masked tiles;
//   general<D, F>(r2, ai, eps24_i, eps48_i, aj, sig)  the unmasked tiles' pair;
//   uniform<D, F>(r2, ai, aj, c0, c1, c2, sig)   ditto where every atom has the same parameters
//                                     (TileKernelArgs::uniform_lj): c0..c2 from the kernel's
//                                     arguments (lj_sigma2, lj_eps24, lj_eps48), only ai.q, aj.q
//                                     from the atoms;
// each returning physics::LjcTerms<F> (two energies, summed into energy_acc: see
// cuda_tile_args.hpp; and F/r).
// ai and aj are the atoms' three parameters as uploaded in `par` (x, y, z of a float4/double4):
// the built-in's scaled charge, σ/2, sqrt ε, or a formula's q, σ, ε.
#pragma once

#include <cstdint>
#include <type_traits>

#include "engine/pair_tiles.cuh"
#include "ljc/cuda_tile_args.hpp"
#include "pairwise/physics/ljc.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::ljc::cuda {

using physics::DielectricKind;

// 2^32: the fixed-point scale of the force and energy accumulators in single and mixed.
inline constexpr double kTileFixedScale = 4294967296.0;

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

// Adds v to an accumulator: 64-bit fixed point (deterministic) or FP64 atomics (double
// precision's forces; its energies go to slots instead: store_block_energies).
template <bool kFixed>
__device__ __forceinline__ void accumulate(void* base, long long index, double v) {
  if constexpr (kFixed) {
    const long long fixed = __double2ll_rn(v * kTileFixedScale);
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
    const long long fixed = __float2ll_rn(v * float(kTileFixedScale));
    atomicAdd(reinterpret_cast<unsigned long long*>(base) + index,
              static_cast<unsigned long long>(fixed));
  } else {
    atomicAdd(static_cast<double*>(base) + index, double(v));
  }
}

// Double precision's energy slots (cuda_tile_args.hpp): the block's sums of each thread's
// (LJ, Coulomb, bond) energies e, added in a fixed tree in shared memory and stored by thread 0
// into slot blockIdx.x of `slots`. Every thread of the block (kEnergyBlockThreads) calls it.
__device__ __forceinline__ void store_block_energies(void* slots,
                                                     const double (&e)[kEnergySlotWidth]) {
  __shared__ double s[kEnergySlotWidth][kEnergyBlockThreads];
  const int t = threadIdx.x;
#pragma unroll
  for (int c = 0; c < kEnergySlotWidth; ++c) s[c][t] = e[c];
  __syncthreads();
#pragma unroll
  for (int h = kEnergyBlockThreads / 2; h > 0; h >>= 1) {
    if (t < h) {
#pragma unroll
      for (int c = 0; c < kEnergySlotWidth; ++c) s[c][t] += s[c][t + h];
    }
    __syncthreads();
  }
  if (t == 0) {
    double* slot = static_cast<double*>(slots) + (long long)kEnergySlotWidth * blockIdx.x;
#pragma unroll
    for (int c = 0; c < kEnergySlotWidth; ++c) slot[c] = s[c][0];
  }
}

// One thread's pair (i, j) of the bonded and 1-4 kernels, d = x_i - x_j: its force on i and the
// opposite on j into the force accumulators; its energies into the fixed-point sums (single,
// mixed, when `energy`) and into e (LJ, Coulomb), which double precision's kernels add per block
// (store_block_energies).
template <bool kFixed, class F>
__device__ __forceinline__ void add_pair_terms(void* force, void* energy_acc, bool energy, int n,
                                               int i, int j, const F (&d)[3],
                                               const physics::LjcTerms<F>& t,
                                               double (&e)[kEnergySlotWidth]) {
  for (int c = 0; c < 3; ++c) {
    accumulate<kFixed>(force, (long long)c * n + i, double(t.force_over_r * d[c]));
    accumulate<kFixed>(force, (long long)c * n + j, -double(t.force_over_r * d[c]));
  }
  e[0] = double(t.lj), e[1] = double(t.coulomb);
  if constexpr (kFixed) {
    if (energy) accumulate<true>(energy_acc, 0, e[0]), accumulate<true>(energy_acc, 1, e[1]);
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
template <Precision P, DielectricKind D, int kI, bool kN3, bool kEnergy, class Pair,
          TileSet kSet = TileSet::all>
__global__ void __launch_bounds__(32 * kWarpsPerBlock, (kMinBlocks<P, kI>))
    tiles_kernel(const TileKernelArgs a) {
  static_assert(kSet == TileSet::all || (P == Precision::mixed && kN3),
                "the near/far lists are mixed precision's Newton-3 tiles");
  constexpr bool kFar = kSet == TileSet::far;
  constexpr bool kList = kSet != TileSet::all;
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
  const long long n_tiles = kList ? (long long)*a.tile_list_count : a.n_tiles;
  const long long n_units = n_tiles * kI;
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
  if constexpr (kList) {
    I = a.tile_list[t].I, J = a.tile_list[t].J;
  } else if constexpr (kN3) {
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
  // The atom in slot i (the spatial order of mixed's near/far tiles, or slot = atom).
  auto atom_of = [&](int i) {
    if constexpr (kList)
      return a.atom_of_slot[i];
    else
      return a.atom_of_slot ? a.atom_of_slot[i] : i;
  };
  auto flush_row = [&]() {
    if (row < 0) return;
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      const int i = row * B + k * 32 + lane;
      if (i < a.n) {
        const int atom = atom_of(i);
#pragma unroll
        for (int c = 0; c < 3; ++c)
          accumulate<T::kFixed>(a.force, (long long)c * a.n + atom, fi[k][c]);
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
        if constexpr (!kFar) {  // far tiles take their targets per tile (below)
          const V4 p = pos[i];
          xi[k][0] = p.x, xi[k][1] = p.y, xi[k][2] = p.z;
          if constexpr (T::kLo) {
            const V4 l = lo4[i];
            xil[k][0] = l.x, xil[k][1] = l.y, xil[k][2] = l.z;
          }
        }
        const V4 q = par[i];
        ai[k] = {q.x, q.y, q.z};
        eps24_i[k] = F(24) * q.z;
        eps48_i[k] = F(48) * q.z;
        fi[k][0] = fi[k][1] = fi[k][2] = 0;
      }
    }
    // Far tiles: the targets' t_i = fl(x_i - c_J) once per tile, from x_i,hi + x_i,lo in FP64,
    // into xi; the sources' s_j = fl(x_j - c_J) from pos_off (TileBox, cuda_tile_args.hpp).
    if constexpr (kFar) {
      const double* cj = a.tile_boxes[J].c;
#pragma unroll
      for (int k = 0; k < kI; ++k) {
        const int i = I * B + k * 32 + lane;
        const V4 p = pos[i], l = lo4[i];
        xi[k][0] = F((double(p.x) + double(l.x)) - cj[0]);
        xi[k][1] = F((double(p.y) + double(l.y)) - cj[1]);
        xi[k][2] = F((double(p.z) + double(l.z)) - cj[2]);
      }
    }
    const V4* src = kFar ? static_cast<const V4*>(a.pos_off) : pos;
    // Stage the tile's sources (the groups this warp takes).
    __syncwarp();
#pragma unroll
    for (int u = 0; u < kI; ++u) {
      if (u < u_lo || u >= u_hi) continue;
      const int j = J * B + u * 32 + lane;
      const V4 p = src[j], q = par[j];
      V4 pq = p;
      pq.w = q.x;
      const F2 se{q.y, q.z};
      s_pq[wib][u][lane] = pq, s_pq[wib][u][lane + 32] = pq;
      s_se[wib][u][lane] = se, s_se[wib][u][lane + 32] = se;
      if constexpr (T::kLo && !kFar) {
        const V4 l = lo4[j];
        s_lo[wib][u][lane] = l, s_lo[wib][u][lane + 32] = l;
      }
    }
    __syncwarp();
    // Far tiles have no mask (masked tiles are near: classify_tiles).
    const int mask_index = kFar ? -1 : a.tile_mask_index[(long long)I * nb + J];
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
        m[k] = !kFar && mask_index >= 0
                   ? a.masks[(long long)mask_index * (kI * kI * 32) + (k * kI + u) * 32 + lane]
                   : 0u;
      }
      // 32 rotation steps. Four variants: unmasked off-diagonal tiles (most of them: no mask
      // test, Newton's third law, the cheaper pair form; with uniform LJ parameters, the cheaper
      // still), masked off-diagonal tiles, and diagonal tiles (one-sided). Mixed's far tiles
      // take the FP32 displacement alone (kDs false), the others the double-single one.
      constexpr bool kDs = T::kLo && !kFar;
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
          if constexpr (kDs) {
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
              if constexpr (kDs) d[c] += xil[k][c] - xjl[c];
            }
            const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            physics::LjcTerms<F> term;
            if constexpr (kMasked) {
              const F keep = ((m[k] >> s) & 1u) ? F(0) : F(1);
              term = Pair::template masked<D, F>(r2, ai[k], physics::LjcAtom<F>{pj.w, sj.x, sj.y},
                                                 keep, sig);
            } else if constexpr (kUniform) {
              term = Pair::template uniform<D, F>(r2, ai[k], physics::LjcAtom<F>{pj.w, sj.x, sj.y},
                                                  u_s2, u_e24, u_e48, sig);
            } else {
              term = Pair::template general<D, F>(r2, ai[k], eps24_i[k], eps48_i[k],
                                                  physics::LjcAtom<F>{pj.w, sj.x, sj.y}, sig);
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
      constexpr bool kHasUniform = D != DielectricKind::sigmoidal && Pair::kHasUniform;
      if (mask_index < 0) {
        if constexpr (kHasUniform) {
          if (a.uniform_lj)
            sweep(False{}, std::integral_constant<bool, kN3>{}, True{});
          else
            sweep(False{}, std::integral_constant<bool, kN3>{}, False{});
        } else {
          sweep(False{}, std::integral_constant<bool, kN3>{}, False{});
        }
      } else if constexpr (!kFar) {
        if (n3) {
          sweep(True{}, True{}, False{});
        } else {
          sweep(True{}, False{}, False{});
        }
      }
      if constexpr (!kDirect) {
#pragma unroll
        for (int k = 0; k < kI; ++k)
#pragma unroll
          for (int c = 0; c < 3; ++c) fi[k][c] += A(ft_store[k][c]);
      }
      if constexpr (kEnergy) e_lj += A(t_lj), e_c += A(t_c);
      if (n3 && j0 < a.n) {
        const int atom = atom_of(j0);
#pragma unroll
        for (int c = 0; c < 3; ++c)
          accumulate<T::kFixed>(a.force, (long long)c * a.n + atom, fj[c]);
      }
    }
    u_lo = 0;
    if constexpr (kList) {
      if (t < t_last) I = a.tile_list[t + 1].I, J = a.tile_list[t + 1].J;
      continue;
    }
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
      if constexpr (T::kFixed) {
        accumulate<true>(a.energy_acc, 0, double(e_lj));
        accumulate<true>(a.energy_acc, 1, double(e_c));
      } else {  // this warp's slot (warps that return early leave theirs zero)
        double* slot = static_cast<double*>(a.energy_acc) + kEnergySlotWidth * warp;
        slot[0] = double(e_lj), slot[1] = double(e_c);
      }
    }
  }
}

// The built-in pair: LJ (Lorentz–Berthelot) + Coulomb of physics::ljc_pair_* (pairwise/physics/
// ljc.hpp); par holds the scaled charge, σ/2 and sqrt ε.
struct BuiltinLjcPair {
  static constexpr bool kHasUniform = true;
  template <DielectricKind D, class F>
  __device__ __forceinline__ static physics::LjcTerms<F> masked(
      F r2, const physics::LjcAtom<F>& ai, const physics::LjcAtom<F>& aj, F keep,
      const physics::SigmoidalTerms<F>& sig) {
    return physics::ljc_pair_scaled<D, F>(r2, ai, aj, keep, keep, sig);
  }
  template <DielectricKind D, class F>
  __device__ __forceinline__ static physics::LjcTerms<F> general(
      F r2, const physics::LjcAtom<F>& ai, F eps24_i, F eps48_i, const physics::LjcAtom<F>& aj,
      const physics::SigmoidalTerms<F>& sig) {
    const F sigma = ai.half_sigma + aj.half_sigma;
    return physics::ljc_pair_lb<D, F>(r2, ai.q * aj.q, sigma * sigma, aj.sqrt_eps, eps24_i, eps48_i,
                                      sig);
  }
  template <DielectricKind D, class F>
  __device__ __forceinline__ static physics::LjcTerms<F> uniform(
      F r2, const physics::LjcAtom<F>& ai, const physics::LjcAtom<F>& aj, F sigma2, F eps24,
      F eps48, const physics::SigmoidalTerms<F>& sig) {
    return physics::ljc_pair_lb<D, F>(r2, ai.q * aj.q, sigma2, F(1), eps24, eps48, sig);
  }
};

// The 1-4 pairs of a custom term, one thread per pair (the built-in's are in bonded_kernel,
// cuda_ljc.cu): displacements from double positions, the pair in the kernel's precision times
// a.scale, into the same accumulators as the tiles. Blocks of kEnergyBlockThreads threads.
template <Precision P, class Pair>
__global__ void pairs14_kernel(const Pairs14Args a) {
  using T = Traits<P>;
  using F = typename T::F;
  using V4 = typename T::V4;
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  double e[kEnergySlotWidth] = {0, 0, 0};
  if (k < a.n_pairs) {
    const int i = a.pair_ij[k], j = a.pair_ij[a.n_pairs + k];
    const V4* par = static_cast<const V4*>(a.par);
    const V4 pi = par[i], pj = par[j];
    F d[3];
    for (int c = 0; c < 3; ++c) d[c] = F(a.x[c * a.n + i] - a.x[c * a.n + j]);
    const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const physics::SigmoidalTerms<F> sig{};
    const auto t = Pair::template masked<DielectricKind::constant, F>(
        r2, physics::LjcAtom<F>{pi.x, pi.y, pi.z}, physics::LjcAtom<F>{pj.x, pj.y, pj.z},
        F(a.scale), sig);
    add_pair_terms<T::kFixed>(a.force, a.energy_acc, a.energy, a.n, i, j, d, t, e);
  }
  if constexpr (!T::kFixed) {
    if (a.energy) store_block_energies(a.energy_acc, e);
  }
}

}  // namespace pairwise::ljc::cuda
