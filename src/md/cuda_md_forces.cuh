// The md cuda engine's force kernel: pair forces over the full Verlet list + the second half
// kick. Included by cuda_md.cu only; the whole step is described there.
#pragma once

#include <cstddef>
#include <type_traits>

#include "md/cuda_md_common.cuh"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

// Forces over the full list + the second half kick (Andersen's collisions follow in a kernel of
// their own, andersen_collisions: inlined here, their random draws raised the register pressure
// of every run's pair loop, which at 16 blocks per SM spilled). TPA threads share an atom, each
// taking every TPA-th neighbor, and combine by shuffles in a fixed order (deterministic): small
// systems need the extra threads to hide the latency of the neighbor gathers.
//
// Vec (TPA 4, row-major lists of a capacity that is a multiple of 4): each thread loads 4
// consecutive neighbor indices with one 16-byte load (the 4 threads of an atom: 64 contiguous
// bytes) instead of 4 scalar loads, and takes neighbors 4·sub .. 4·sub + 3 of every 16.
//
// Mixed (float pair terms P, double sums A) with Vec and Fixed: the terms of one trip of the Vec
// loop (4 neighbors) are summed in float and that sum is added into double, so a float sum never
// holds more than 4 terms, and the conversions and double adds are 4× fewer (3 F2F + 3 DADD per
// pair otherwise: the conversions run at 1/8 of the FP32 rate). Without Fixed (PAIRWISE_MD_FIXED=0
// or boxes over 256 cutoffs) the kernel is the earlier mixed one, every term added into double.
//
// Pair: BuiltInPair (the LJ styles, nvcc) or a formula's CustomPair (NVRTC, cuda_md_common.cuh).
//
// Fixed (mixed): the positions of the pairs come from the fixed-point copy (FixedP, 16 bytes a
// neighbor instead of 32; the minimum image is the integer difference).
//
// Ahead (steps inside a graph but its last, no Andersen): after this step's second half kick,
// also the next step's first half kick, the same FMAs integrate1 would apply (half_kick), which
// that step's integrate1 then skips; the force is not stored (nothing reads it before the next
// forces_kick). The velocities seen between graphs (thermo, get_state, checkpoints, the overflow
// snapshot) are the full-step ones, as without it.
template <class R, class P, class A, bool SF, bool OneType, int TPA, bool Vec = false,
          int MinBlocks = 1, bool Fast = false, bool Fixed = false, class Pair = BuiltInPair,
          bool Ahead = false>
__global__ void __launch_bounds__(kBlock, MinBlocks)
    forces_kick(int n, const typename Vec4<R>::type* __restrict__ pos,
                typename Vec4<R>::type* __restrict__ vel,
                typename Vec4<R>::type* __restrict__ force, const int* __restrict__ nbr,
                const int* __restrict__ nbr_count, int capacity, std::size_t si, std::size_t sk,
                BoxP<R> box, int types, DynP dyn, const unsigned* __restrict__ id, bool kick,
                const Flags* flags, const int4* __restrict__ fixed, FixedP fixed_p) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = t / TPA, sub = t % TPA;
  if (i >= n) return;  // whole groups leave together (TPA divides 32)
  const auto p = pos[i];
  int4 fi = make_int4(0, 0, 0, 0);
  if constexpr (Fixed) fi = fixed[i];
  const int ti = Fixed ? fi.w : int(p.w);
  A fx = 0, fy = 0, fz = 0;
  constexpr bool kChunked = Vec && Fixed && !std::is_same_v<A, P>;
  P gx = 0, gy = 0, gz = 0;  // kChunked: the float sums of this trip
  auto add = [&](P f, P dx, P dy, P dz) {
    if constexpr (kChunked) {
      gx += f * dx, gy += f * dy, gz += f * dz;
    } else {
      fx += A(f * dx), fy += A(f * dy), fz += A(f * dz);
    }
  };
  const int count = min(nbr_count[i], capacity);
  physics::LjPairParams<P> one;
  if constexpr (!Pair::custom) {
    if (OneType) one = pair_params<P>(0);
  }
  auto pair = [&](int j) {
    P dx, dy, dz;
    int tj;
    if constexpr (Fixed) {
      const int4 q = fixed[j];
      fixed_displacement(fi, q, fixed_p, dx, dy, dz);
      tj = q.w;
    } else {
      const auto q = pos[j];
      dx = P(min_image(p.x - q.x, box.L[0], box.half[0]));
      dy = P(min_image(p.y - q.y, box.L[1], box.half[1]));
      dz = P(min_image(p.z - q.z, box.L[2], box.half[2]));
      tj = OneType ? 0 : int(q.w);
    }
    const P r2 = dx * dx + dy * dy + dz * dz;
    if constexpr (Pair::custom) {
      P energy, force_over_r;
      if (Pair::energy_force(OneType ? 0 : ti * types + tj, r2, energy, force_over_r))
        add(force_over_r, dx, dy, dz);
      return;
    }
    const physics::LjPairParams<P>& pp = OneType ? one : pair_params<P>(ti * types + tj);
    if (r2 < pp.rc2) {
      if constexpr (Fast) {  // float terms, cut or shift: approximate reciprocal (MUFU.RCP + FMUL)
        const auto term = physics::lennard_jones(__fdividef(1.0f, r2),
                                                 physics::LennardJonesCoefficients<P>{pp.a, pp.b});
        add(term.force_over_r2, dx, dy, dz);
      } else {
        const auto term = physics::lj_truncated<SF>(r2, pp);
        add(term.force_over_r2, dx, dy, dz);
      }
    }
  };
  if constexpr (Vec) {
    static_assert(TPA == 4, "vector index loads: 4 threads per atom");
    const int* row = nbr + std::size_t(i) * si;
    // MinBlocks 15 (mixed's fixed-point kernel at 16 blocks per SM; PAIRWISE_MD_SINGLE_MINB=15
    // for single's): the register cap of 16 blocks (32: ptxas rounds 34 down to its granule)
    // with one trip of the loop unrolled instead of two (mixed: 12 bytes spilled instead of 44).
    constexpr int kUnroll = MinBlocks == 15 ? 1 : 2;
#pragma unroll kUnroll
    for (int k0 = 4 * sub; k0 < count; k0 += 16) {
      const int4 jj = __ldg(reinterpret_cast<const int4*>(row + k0));
      pair(jj.x);
      if (k0 + 1 < count) pair(jj.y);
      if (k0 + 2 < count) pair(jj.z);
      if (k0 + 3 < count) pair(jj.w);
      if constexpr (kChunked) {
        fx += A(gx), fy += A(gy), fz += A(gz);
        gx = gy = gz = 0;
      }
    }
  } else {
#pragma unroll 4
    for (int k = sub; k < count; k += TPA)
      pair(__ldg(nbr + std::size_t(i) * si + std::size_t(k) * sk));
  }
  if (TPA > 1) {
    const int lane = threadIdx.x & 31;
    const unsigned mask = (TPA == 32 ? 0xffffffffu : ((1u << TPA) - 1u)) << (lane & ~(TPA - 1));
#pragma unroll
    for (int o = TPA / 2; o > 0; o >>= 1) {
      fx += __shfl_xor_sync(mask, fx, o);
      fy += __shfl_xor_sync(mask, fy, o);
      fz += __shfl_xor_sync(mask, fz, o);
    }
    if (sub != 0) return;
  }
  typename Vec4<R>::type f;
  f.x = R(fx), f.y = R(fy), f.z = R(fz), f.w = 0;
  if constexpr (!Ahead) force[i] = f;
  if (!kick) return;
  auto v = vel[i];
  const R h = R(0.5 * dyn.dt) * v.w;
  half_kick(v, h, f);
  if constexpr (Ahead) half_kick(v, h, f);
  vel[i] = v;
}

}  // namespace
}  // namespace pairwise::md
