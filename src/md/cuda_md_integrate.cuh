// The md cuda engine's per-atom kernels: integrate1 (half kick, drift, wrap, the rebuild test),
// Andersen's collisions, find_bad (the first non-finite or too fast atom), to_fixed and gather
// (the permutation into cell order).
// Included by cuda_md.cu only; the whole step is described there.
#pragma once

#include "md/cuda_md_common.cuh"
#include "pairwise/physics/dynamics.hpp"

namespace pairwise::md {
namespace {

// Folds x into [lo, hi) of dimension d, counting box crossings in m.
template <class R>
__device__ __forceinline__ void wrap1(R& x, int& m, const BoxP<R>& box, int d) {
  if (x >= box.hi[d] || x < box.lo[d]) {
    const R k = floor((x - box.lo[d]) / box.L[d]);
    x -= k * box.L[d], m += int(k);
    if (x >= box.hi[d]) x -= box.L[d], m += 1;
    if (x < box.lo[d]) x = box.lo[d];
  }
}

// The minimum-image displacement a − b of two fixed-point coordinates along d, in double.
__device__ __forceinline__ double fixed_delta_double(int a, int b, const FixedP& f, int d) {
  const double quantum = double(f.quantum_hi[d]) + double(f.quantum_lo[d]);
  return double(int(unsigned(a) - unsigned(b))) * quantum;
}

// Mixed's master positions (PAIRWISE_MD_MASTER=1): each coordinate a 50-bit fixed point
// U = round((x − lo) / q) mod 2^50 of the quantum q = L·2^-50 (exact in double; L = 134 σ: 1.2e-13
// σ, 4× double's spacing at x = L, uniform over the box), kept as the force kernel's 32-bit fixed
// point u = round(U / 2^18) mod 2^32 (FixedP, fixed_pos_) and an 18-bit residual
// r = U − u·2^18 ∈ [−2^17, 2^17) (the three biased by 2^17 in one 64-bit word): 24 bytes an atom
// where the double position and the copy took 48. The drift adds round(v·dt / q) to U and the
// wrap is exact (U mod 2^50, the carry counts the box crossings). The double positions (pos)
// are then a copy, x = lo + U·q, written by master_to_pos where something reads them.
struct MasterP {
  double lo[3], quantum[3], inv_quantum[3];
};
constexpr int kResidBits = 18;
constexpr long long kMasterMask = (1LL << 50) - 1;

__device__ __forceinline__ long long master_coordinate(int u, unsigned long long resid, int d) {
  const long long r = (long long)((resid >> (kResidBits * d)) & ((1ull << kResidBits) - 1)) -
                      (1LL << (kResidBits - 1));
  return ((static_cast<long long>(unsigned(u)) << kResidBits) + r) & kMasterMask;
}

// U ∈ [0, 2^50) into u (returned) and its residual's field of resid.
__device__ __forceinline__ int split_master(long long U, unsigned long long& resid, int d) {
  const long long uu = (U + (1LL << (kResidBits - 1))) >> kResidBits;  // ≤ 2^32
  const long long r = U - (uu << kResidBits);
  resid |= static_cast<unsigned long long>(r + (1LL << (kResidBits - 1))) << (kResidBits * d);
  return int(unsigned(static_cast<unsigned long long>(uu)));
}

// Kick false: forces_kick's Ahead applied this step's first half kick already (inside a graph);
// the force is then not read, and without Langevin the velocity is not written (unchanged).
// Master (mixed, MasterP): the positions are fixed (u) + resid; pos is neither read nor written.
template <class R, int Thermostat, bool Kick = true, bool Master = false>
__global__ void __launch_bounds__(kIntBlock)
    integrate1(int n, typename Vec4<R>::type* __restrict__ pos,
               typename Vec4<R>::type* __restrict__ vel,
               const typename Vec4<R>::type* __restrict__ force, int4* __restrict__ image,
               const unsigned* __restrict__ id, const typename Vec4<R>::type* __restrict__ x0,
               BoxP<R> box, DynP dyn, double skin, double2* __restrict__ block_top2, Flags* flags,
               cudaGraphConditionalHandle cond, int use_cond, int4* __restrict__ fixed,
               FixedP fixed_p, const int4* __restrict__ x0_fixed,
               unsigned long long* __restrict__ resid, MasterP master) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d2 = 0;
  if constexpr (Master) {
    if (i < n) {
      auto v = vel[i];
      int4 u = fixed[i];
      const unsigned long long rr = resid[i];
      long long U[3] = {master_coordinate(u.x, rr, 0), master_coordinate(u.y, rr, 1),
                        master_coordinate(u.z, rr, 2)};
      if constexpr (Kick) half_kick(v, R(0.5 * dyn.dt) * v.w, force[i]);
      auto drift = [&](double h) {
        U[0] += __double2ll_rn(double(v.x) * h * master.inv_quantum[0]);
        U[1] += __double2ll_rn(double(v.y) * h * master.inv_quantum[1]);
        U[2] += __double2ll_rn(double(v.z) * h * master.inv_quantum[2]);
      };
      if (Thermostat == 1) {
        drift(0.5 * dyn.dt);
        physics::langevin_o_step(v.x, v.y, v.z, double(v.w), dyn.kT, {dyn.c1, dyn.c2}, dyn.seed,
                                 flags->step, id[i]);
        drift(0.5 * dyn.dt);
      } else {
        drift(dyn.dt);
      }
      // Box crossings: the carries out of [0, 2^50) (|drift| ≪ 2^50: −1, 0 or 1).
      const int kx = int(U[0] >> 50), ky = int(U[1] >> 50), kz = int(U[2] >> 50);
      unsigned long long r = 0;
      u.x = split_master(U[0] & kMasterMask, r, 0);
      u.y = split_master(U[1] & kMasterMask, r, 1);
      u.z = split_master(U[2] & kMasterMask, r, 2);
      fixed[i] = u;
      resid[i] = r;
      if (Kick || Thermostat == 1) vel[i] = v;
      if (kx | ky | kz) {
        int4 old = image[i];
        old.x += kx, old.y += ky, old.z += kz;
        image[i] = old;
      }
      const int4 q = x0_fixed[i];
      const double dx = fixed_delta_double(u.x, q.x, fixed_p, 0);
      const double dy = fixed_delta_double(u.y, q.y, fixed_p, 1);
      const double dz = fixed_delta_double(u.z, q.z, fixed_p, 2);
      d2 = dx * dx + dy * dy + dz * dz;
      if (!(d2 == d2)) d2 = 1e300;
    }
  } else if (i < n) {
    auto v = vel[i];
    auto p = pos[i];
    if constexpr (Kick) half_kick(v, R(0.5 * dyn.dt) * v.w, force[i]);
    if (Thermostat == 1) {
      const R hd = R(0.5 * dyn.dt);
      p.x += v.x * hd, p.y += v.y * hd, p.z += v.z * hd;
      physics::langevin_o_step(v.x, v.y, v.z, double(v.w), dyn.kT, {dyn.c1, dyn.c2}, dyn.seed,
                               flags->step, id[i]);
      p.x += v.x * hd, p.y += v.y * hd, p.z += v.z * hd;
    } else {
      const R dt = R(dyn.dt);
      p.x += v.x * dt, p.y += v.y * dt, p.z += v.z * dt;
    }
    int4 im = make_int4(0, 0, 0, 0);  // box crossings this step (rare: image read only then)
    wrap1(p.x, im.x, box, 0);
    wrap1(p.y, im.y, box, 1);
    wrap1(p.z, im.z, box, 2);
    pos[i] = p;
    if (Kick || Thermostat == 1) vel[i] = v;
    int4 u = make_int4(0, 0, 0, 0);
    if (fixed) fixed[i] = u = fixed_of(p, fixed_p);  // mixed: the force kernel's positions
    if (im.x | im.y | im.z) {
      int4 old = image[i];
      old.x += im.x, old.y += im.y, old.z += im.z;
      image[i] = old;
    }
    if (x0_fixed) {  // mixed's float lists: x0 is the fixed-point position at the build
      const int4 q = x0_fixed[i];
      const double dx = fixed_delta_double(u.x, q.x, fixed_p, 0);
      const double dy = fixed_delta_double(u.y, q.y, fixed_p, 1);
      const double dz = fixed_delta_double(u.z, q.z, fixed_p, 2);
      d2 = dx * dx + dy * dy + dz * dz;
    } else {
      const auto q = x0[i];
      const double dx = min_image(double(p.x - q.x), double(box.L[0]), double(box.half[0]));
      const double dy = min_image(double(p.y - q.y), double(box.L[1]), double(box.half[1]));
      const double dz = min_image(double(p.z - q.z), double(box.L[2]), double(box.half[2]));
      d2 = dx * dx + dy * dy + dz * dz;
    }
    if (!(d2 == d2)) d2 = 1e300;  // NaN: rebuild (and thermo will report the atom)
  }
  // Stage 1: block top-2 of d².
  double a1 = d2, a2 = 0;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const double b1 = __shfl_down_sync(0xffffffffu, a1, o);
    const double b2 = __shfl_down_sync(0xffffffffu, a2, o);
    merge_top2(a1, a2, b1, b2);
  }
  __shared__ double s1[kIntBlock / 32], s2[kIntBlock / 32];
  __shared__ bool last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) s1[warp] = a1, s2[warp] = a2;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b1 = s1[0], b2 = s2[0];
    for (int w = 1; w < kIntBlock / 32; ++w) merge_top2(b1, b2, s1[w], s2[w]);
    block_top2[blockIdx.x] = make_double2(b1, b2);
    __threadfence();
    last = atomicAdd(&flags->done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // Stage 2 (the last block): top-2 over the blocks, then the rebuild decision.
  __threadfence();
  a1 = 0, a2 = 0;
  for (int b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    const volatile double* t = reinterpret_cast<volatile double*>(block_top2) + 2 * b;
    merge_top2(a1, a2, t[0], t[1]);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const double b1 = __shfl_down_sync(0xffffffffu, a1, o);
    const double b2 = __shfl_down_sync(0xffffffffu, a2, o);
    merge_top2(a1, a2, b1, b2);
  }
  if (lane == 0) s1[warp] = a1, s2[warp] = a2;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b1 = s1[0], b2 = s2[0];
    for (int w = 1; w < kIntBlock / 32; ++w) merge_top2(b1, b2, s1[w], s2[w]);
    const int rebuild = (sqrt(b1) + sqrt(b2) > skin) || flags->force_rebuild;
    flags->rebuild = rebuild;
    if (use_cond) cudaGraphSetConditional(cond, unsigned(rebuild));  // the graph's IF node
    flags->force_rebuild = 0;
    flags->done = 0;
    flags->step += 1;  // every block has read the step index by now
  }
}

template <class R>
__global__ void find_bad(int n, const typename Vec4<R>::type* __restrict__ pos,
                         const typename Vec4<R>::type* __restrict__ vel,
                         const int* __restrict__ orig, double max_speed2, Flags* flags) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const auto p = pos[i];
  const auto v = vel[i];
  const double v2 = double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z;
  const bool finite =
      isfinite(double(p.x)) && isfinite(double(p.y)) && isfinite(double(p.z)) && isfinite(v2);
  if (!finite || v2 > max_speed2) atomicMin(&flags->bad, orig[i]);
}

// Andersen's collisions after forces_kick's second half kick (step index: integrate1 has counted
// the step already).
template <class R4>
__global__ void andersen_collisions(int n, R4* __restrict__ vel, const unsigned* __restrict__ id,
                                    DynP dyn, const Flags* flags) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto v = vel[i];
  if (physics::andersen_collision(v.x, v.y, v.z, double(v.w), dyn.kT, dyn.andersen_p, dyn.seed,
                                  flags->step - 1, id[i]))
    vel[i] = v;
}

// The master positions (MasterP) of every atom from its double position, and the double
// positions of the master ones (x = lo + U·q, one rounding; the type from fixed.w). The round
// trip master → double → master is exact: the double's rounding and the division's are each
// ≤ 1/8 of the quantum for |lo| ≤ L.
__global__ void to_master(int n, const Double4* __restrict__ pos, int4* __restrict__ fixed,
                          unsigned long long* __restrict__ resid, MasterP m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Double4 p = pos[i];
  const double x[3] = {p.x, p.y, p.z};
  unsigned long long r = 0;
  int u[3];
  for (int d = 0; d < 3; ++d)
    u[d] = split_master(__double2ll_rn((x[d] - m.lo[d]) / m.quantum[d]) & kMasterMask, r, d);
  fixed[i] = make_int4(u[0], u[1], u[2], int(p.w));
  resid[i] = r;
}

__device__ __forceinline__ Double4 master_position(const int4& u, unsigned long long r,
                                                   const MasterP& m) {
  Double4 p;
  p.x = fma(double(master_coordinate(u.x, r, 0)), m.quantum[0], m.lo[0]);
  p.y = fma(double(master_coordinate(u.y, r, 1)), m.quantum[1], m.lo[1]);
  p.z = fma(double(master_coordinate(u.z, r, 2)), m.quantum[2], m.lo[2]);
  p.w = double(u.w);
  return p;
}

__global__ void master_to_pos(int n, const int4* __restrict__ fixed,
                              const unsigned long long* __restrict__ resid,
                              Double4* __restrict__ pos, MasterP m) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] = master_position(fixed[i], resid[i], m);
}

// The fixed-point positions (FixedP) of every atom.
template <class R4>
__global__ void to_fixed(int n, const R4* __restrict__ pos, int4* __restrict__ fixed, FixedP f) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) fixed[i] = fixed_of(pos[i], f);
}

template <class T>
__global__ void gather(int n, const int* __restrict__ order, const T* __restrict__ src,
                       T* __restrict__ dst) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) dst[k] = src[order[k]];
}

}  // namespace
}  // namespace pairwise::md
