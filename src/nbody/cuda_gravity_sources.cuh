// The j-particles (sources) and targets of gravity's split path as its two policies load them:
// GravityPolicy (the built-in pair, nbody/cuda_gravity.cu, nvcc) and FormulaSplitPolicy (a custom
// potential, nbody/cuda_formula_split.cuh, compiled at run time by NVRTC). The layouts are
// nbody/cuda_gravity.cuh's: pos (x, y, z, m) as float4 or a double quadruple (GravityD4), the low
// parts of x as float4 (mixed: double-single positions) and the velocities (GAJ). Both compilers
// read this one definition: it is embedded as text for NVRTC (engine/formula/
// embed_cuda_headers.cmake), so it includes nothing (float4 is built into both).
#pragma once

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)

namespace pairwise::nbody::cuda {

struct alignas(32) GravityD4 {
  double x, y, z, w;
};

// One source as staged in shared memory: position (x, y, z, m), plus the low parts of the
// position (kLo: mixed) and the velocity (kJerk: GAJ).
template <class JP, bool kLo, bool kJerk>
struct GravitySource {
  JP p;
};
template <class JP>
struct GravitySource<JP, true, false> {
  JP p;
  float4 lo;
};
template <class JP>
struct GravitySource<JP, false, true> {
  JP p;
  JP v;
};
template <class JP>
struct GravitySource<JP, true, true> {
  JP p;
  float4 lo;
  JP v;
};

// One target in registers (F: the pair arithmetic's type); xl, yl, zl only with kLo, vx, vy, vz
// only with kJerk.
template <class F>
struct GravityTarget {
  F x, y, z, vx, vy, vz;
  float xl, yl, zl;
};

// Target k of a launch whose Args has jpos, jlo, jvel and i_index (ForceArgs, FormulaSplitArgs):
// the source i_index[k], or k itself when i_index is null (full evaluations).
template <class F, class JP, bool kLo, bool kJerk, class Args>
__device__ __forceinline__ GravityTarget<F> load_gravity_target(const Args& a, int k) {
  const int idx = a.i_index ? a.i_index[k] : k;
  GravityTarget<F> t;
  const JP p = static_cast<const JP*>(a.jpos)[idx];
  t.x = p.x, t.y = p.y, t.z = p.z;
  if constexpr (kLo) {
    const float4 l = static_cast<const float4*>(a.jlo)[idx];
    t.xl = l.x, t.yl = l.y, t.zl = l.z;
  }
  if constexpr (kJerk) {
    const JP v = static_cast<const JP*>(a.jvel)[idx];
    t.vx = v.x, t.vy = v.y, t.vz = v.z;
  }
  return t;
}

// Source j of the same launch.
template <class JP, bool kLo, bool kJerk, class Args>
__device__ __forceinline__ GravitySource<JP, kLo, kJerk> load_gravity_source(const Args& a, int j) {
  GravitySource<JP, kLo, kJerk> s;
  s.p = static_cast<const JP*>(a.jpos)[j];
  if constexpr (kLo) s.lo = static_cast<const float4*>(a.jlo)[j];
  if constexpr (kJerk) s.v = static_cast<const JP*>(a.jvel)[j];
  return s;
}

// The source that pads the last tile: zero mass at (far, far, far), zero low parts and velocity,
// so that it adds exactly nothing (the policies skip or zero massless pairs) with finite
// differences.
template <class F, class JP, bool kLo, bool kJerk>
__device__ __forceinline__ GravitySource<JP, kLo, kJerk> gravity_pad_source(F far) {
  GravitySource<JP, kLo, kJerk> s;
  s.p.x = far, s.p.y = far, s.p.z = far, s.p.w = F(0);
  if constexpr (kLo) s.lo.x = s.lo.y = s.lo.z = s.lo.w = 0.f;
  if constexpr (kJerk) s.v.x = s.v.y = s.v.z = s.v.w = F(0);
  return s;
}

}  // namespace pairwise::nbody::cuda

#endif  // __CUDACC__ || __CUDACC_RTC__
