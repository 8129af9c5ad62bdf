// The md cuda engine's per-atom kernels: integrate1 (half kick, drift, wrap, the rebuild test),
// Andersen's collisions, find_bad (the first non-finite or too fast atom), to_fixed and gather
// (the permutation into cell order).
// Included by cuda_md.cu only; the whole step is described there.
#pragma once

#include "md/cuda_md_common.cuh"
#include "pairwise/physics/dynamics.hpp"

namespace pairwise::md {
namespace {

__device__ __forceinline__ void top2_merge(double& a1, double& a2, double b1, double b2) {
  if (b1 > a1) {
    a2 = fmax(a1, b2);
    a1 = b1;
  } else {
    a2 = fmax(a2, b1);
  }
}

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

// Kick false: forces_kick's Ahead applied this step's first half kick already (inside a graph);
// the force is then not read, and without Langevin the velocity is not written (unchanged).
template <class R, int Thermostat, bool Kick = true>
__global__ void __launch_bounds__(kIntBlock)
    integrate1(int n, typename Vec4<R>::type* __restrict__ pos,
               typename Vec4<R>::type* __restrict__ vel,
               const typename Vec4<R>::type* __restrict__ force, int4* __restrict__ image,
               const unsigned* __restrict__ id, const typename Vec4<R>::type* __restrict__ x0,
               BoxP<R> box, DynP dyn, double skin, double2* __restrict__ block_top2, Flags* flags,
               cudaGraphConditionalHandle cond, int use_cond, int4* __restrict__ fixed,
               FixedP fixed_p, const int4* __restrict__ x0_fixed) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d2 = 0;
  if (i < n) {
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
    top2_merge(a1, a2, b1, b2);
  }
  __shared__ double s1[kIntBlock / 32], s2[kIntBlock / 32];
  __shared__ bool last;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) s1[warp] = a1, s2[warp] = a2;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b1 = s1[0], b2 = s2[0];
    for (int w = 1; w < kIntBlock / 32; ++w) top2_merge(b1, b2, s1[w], s2[w]);
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
    top2_merge(a1, a2, t[0], t[1]);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const double b1 = __shfl_down_sync(0xffffffffu, a1, o);
    const double b2 = __shfl_down_sync(0xffffffffu, a2, o);
    top2_merge(a1, a2, b1, b2);
  }
  if (lane == 0) s1[warp] = a1, s2[warp] = a2;
  __syncthreads();
  if (threadIdx.x == 0) {
    double b1 = s1[0], b2 = s2[0];
    for (int w = 1; w < kIntBlock / 32; ++w) top2_merge(b1, b2, s1[w], s2[w]);
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
