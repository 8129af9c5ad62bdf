// The persistent cooperative MD-step kernel of the ljc workload (algorithm: cuda_persistent.cuh).
// Pair arithmetic: physics::ljc_pair / ljc_pair_scaled (pairwise/physics/ljc.hpp); integration:
// the PW_HD steps of pairwise/physics/dynamics.hpp, in the order of the graph path's kernels
// (cuda_ljc.cu: first half, between, second half).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda_check.cuh"
#include "ljc/cuda_persistent.cuh"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/ljc.hpp"

namespace pairwise::ljc::cuda {
namespace {

namespace cg = cooperative_groups;
using physics::DielectricKind;

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;

struct D4 {
  double x, y, z, w;
};
struct D2 {
  double x, y;
};

template <Precision P>
struct PTraits;
template <>
struct PTraits<Precision::single> {
  using F = float;
  using A = float;  // warp sums
  using V4 = float4;
  using V2 = float2;
  static constexpr bool kLo = false;
};
template <>
struct PTraits<Precision::mixed> {
  using F = float;
  using A = double;
  using V4 = float4;
  using V2 = float2;
  static constexpr bool kLo = true;
};
template <>
struct PTraits<Precision::double_> {
  using F = double;
  using A = double;
  using V4 = D4;
  using V2 = D2;
  static constexpr bool kLo = false;
};

template <Precision P>
constexpr std::size_t bytes_per_atom() {
  using T = PTraits<P>;
  return sizeof(typename T::V4) + sizeof(typename T::V2) + (T::kLo ? sizeof(float4) : 0);
}

// Shared memory of a block: positions (w = scaled charge), low parts (mixed), σ/2 and √ε of the
// np = 32·ceil(n/32) atoms, then the warps' partial forces [warp][target][3].
template <Precision P>
std::size_t smem_bytes(int n, int targets) {
  const std::size_t np = 32 * std::size_t((n + 31) / 32);
  return np * bytes_per_atom<P>() + std::size_t(kWarps) * targets * 3 * sizeof(double);
}

// Writes atom i's position into buffer `b` of the packed layout (and of the double layout).
template <Precision P>
__device__ __forceinline__ void store_position(const PersistentArgs& a, int b, int i,
                                               const double (&x)[3], double q) {
  using T = PTraits<P>;
  const int np = 32 * ((a.n + 31) / 32);
  for (int c = 0; c < 3; ++c) a.xbuf[(b * 3 + c) * a.n + i] = x[c];
  typename T::V4* pos = static_cast<typename T::V4*>(a.pbuf) + b * np;
  if constexpr (P == Precision::double_) {
    pos[i] = {x[0], x[1], x[2], q};
  } else {
    const float hx = float(x[0]), hy = float(x[1]), hz = float(x[2]);
    pos[i] = make_float4(hx, hy, hz, float(q));
    if constexpr (T::kLo) {
      static_cast<float4*>(a.pbuf_lo)[b * np + i] =
          make_float4(float(x[0] - hx), float(x[1] - hy), float(x[2] - hz), 0.f);
    }
  }
}

// Loads of what other blocks wrote before the last grid.sync bypass L1 (ld.global.cg).
__device__ __forceinline__ float4 load_cg(const float4* p) {
  return __ldcg(p);
}
__device__ __forceinline__ D4 load_cg(const D4* p) {
  const double2 a = __ldcg(reinterpret_cast<const double2*>(p));
  const double2 b = __ldcg(reinterpret_cast<const double2*>(p) + 1);
  return {a.x, a.y, b.x, b.y};
}

template <class A>
__device__ __forceinline__ A warp_sum(A v) {
  // Butterfly: every lane ends with the same sum, in an order fixed by the lane pattern.
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
  return v;
}

template <Precision P, DielectricKind D>
__global__ void __launch_bounds__(kThreads, 1) persistent_kernel(const PersistentArgs a) {
  using T = PTraits<P>;
  using F = typename T::F;
  using A = typename T::A;
  using V4 = typename T::V4;
  using V2 = typename T::V2;
  cg::grid_group grid = cg::this_grid();
  extern __shared__ __align__(16) unsigned char smem[];
  const int n = a.n, nJ = (n + 31) / 32, np = nJ * 32;
  V4* s_pos = reinterpret_cast<V4*>(smem);
  float4* s_lo = reinterpret_cast<float4*>(s_pos + np);
  V2* s_par = reinterpret_cast<V2*>(T::kLo ? reinterpret_cast<unsigned char*>(s_lo + np)
                                           : reinterpret_cast<unsigned char*>(s_pos + np));
  double* s_part = reinterpret_cast<double*>(s_par + np);

  const int tb = a.plan.targets_per_block;
  const int i0 = blockIdx.x * tb;
  const int mine = max(0, min(tb, n - i0));  // atoms this block owns
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const V4* par = static_cast<const V4*>(a.par);
  for (int j = tid; j < np; j += kThreads) {
    const V4 p = par[j];
    s_par[j] = {p.y, p.z};
  }
  const physics::SigmoidalTerms<F> sig{F(a.sig[0]), F(a.sig[1]), F(a.sig[2]), F(a.sig[3])};

  // The owned atom's state, in registers for the whole launch.
  const int own = i0 + tid;
  const bool owner = tid < mine;
  double x[3] = {0, 0, 0}, v[3] = {0, 0, 0}, f[3] = {0, 0, 0}, inv_m = 0, q_own = 0;
  F hs_own = 0, se_own = 0;
  if (owner) {
    for (int c = 0; c < 3; ++c) {
      x[c] = a.x[c * n + own], v[c] = a.v[c * n + own], f[c] = a.f[c * n + own];
    }
    inv_m = a.inv_mass[own];
    const V4 p = par[own];
    q_own = double(p.x), hs_own = p.y, se_own = p.z;
  }
  const unsigned long long step0 = *a.step;
  const double h = 0.5 * a.dt * inv_m;
  const int2* row_masks = static_cast<const int2*>(a.row_masks);
  // Padding atoms of the packed buffers: far apart and without charge (always masked anyway).
  if (blockIdx.x == 0) {
    for (int j = n + tid; j < np; j += kThreads) {
      for (int b = 0; b < 2; ++b) {
        const double far[3] = {1.0e4 + 10.0 * j, 2.0e4 + 10.0 * j, 3.0e4 + 10.0 * j};
        V4* pos = static_cast<V4*>(a.pbuf) + b * np;
        if constexpr (P == Precision::double_) {
          pos[j] = {far[0], far[1], far[2], 0.0};
        } else {
          pos[j] = make_float4(float(far[0]), float(far[1]), float(far[2]), 0.f);
          if constexpr (T::kLo)
            static_cast<float4*>(a.pbuf_lo)[b * np + j] = make_float4(0, 0, 0, 0);
        }
      }
    }
  }

  for (long long s = 0; s < a.steps; ++s) {
    const int b = int((s + 1) & 1);  // the buffer of this step's new positions
    // 1. Second half kick of the last step, first half of this one (graph path: between).
    if (owner) {
      for (int c = 0; c < 3; ++c) physics::kick(v[c], f[c], h);
      if (a.langevin) {
        for (int c = 0; c < 3; ++c) physics::drift(x[c], v[c], 0.5 * a.dt);
        const physics::LangevinCoefficients coeff{a.c1, a.c2};
        physics::langevin_o_step(v[0], v[1], v[2], inv_m, a.kT, coeff, a.seed,
                                 step0 + (unsigned long long)s + 1, std::uint32_t(own));
        for (int c = 0; c < 3; ++c) physics::drift(x[c], v[c], 0.5 * a.dt);
      } else {
        for (int c = 0; c < 3; ++c) physics::drift(x[c], v[c], a.dt);
      }
      store_position<P>(a, b, own, x, q_own);
    }
    grid.sync();
    // 2. All positions into shared memory; the partial force slots zeroed.
    {
      const V4* pos = static_cast<const V4*>(a.pbuf) + b * np;
      for (int j = tid; j < np; j += kThreads) {
        s_pos[j] = load_cg(pos + j);
        if constexpr (T::kLo) s_lo[j] = load_cg(static_cast<const float4*>(a.pbuf_lo) + b * np + j);
      }
      for (int k = tid; k < kWarps * tb * 3; k += kThreads) s_part[k] = 0.0;
    }
    __syncthreads();
    // 3. The pair sum of the owned atoms: unit u = (target t, source tile J), t = u / nJ.
    {
      const int units = mine * nJ;
      const int u_begin = int((long long)units * warp / kWarps);
      const int u_end = int((long long)units * (warp + 1) / kWarps);
      int t = -1, tt = u_begin / nJ, J = u_begin - tt * nJ;
      // The target's mask cursor: the next row entry (J, bits) at or after the current tile.
      int cur = 0, cend = 0, next_j = 0x7fffffff;
      std::uint32_t next_bits = 0;
      F xi[3] = {0, 0, 0}, xil[3] = {0, 0, 0};
      physics::LjcAtom<F> ai;
      // Per-lane sums in F (one pair per unit, <= nJ of them, as the tile kernel sums its 32
      // rotation steps), converted once per target and reduced across the warp in A.
      F acc[3] = {0, 0, 0};
      auto flush = [&]() {
        if (t < 0) return;
#pragma unroll
        for (int c = 0; c < 3; ++c) {
          const A sum = warp_sum(A(acc[c]));
          if (lane == 0) s_part[(warp * tb + t) * 3 + c] = double(sum);
          acc[c] = 0;
        }
      };
      for (int u = u_begin; u < u_end; ++u) {
        if (tt != t) {
          flush();
          t = tt;
          const int i = i0 + t;
          const V4 p = s_pos[i];
          xi[0] = p.x, xi[1] = p.y, xi[2] = p.z;
          if constexpr (T::kLo) {
            const float4 l = s_lo[i];
            xil[0] = l.x, xil[1] = l.y, xil[2] = l.z;
          }
          ai = {p.w, s_par[i].x, s_par[i].y};
          cur = a.row_start[i], cend = a.row_start[i + 1];
          next_j = 0x7fffffff;
          for (; cur < cend; ++cur) {
            const int2 e = row_masks[cur];
            if (e.x >= J) {
              next_j = e.x, next_bits = std::uint32_t(e.y);
              break;
            }
          }
        }
        std::uint32_t m = 0;
        if (next_j == J) {
          m = next_bits;
          next_j = 0x7fffffff;
          if (++cur < cend) {
            const int2 e = row_masks[cur];
            next_j = e.x, next_bits = std::uint32_t(e.y);
          }
        }
        const bool masked = m != 0u || (J + 1) * 32 > n;  // warp-uniform
        const int j = J * 32 + lane;
        const V4 pj = s_pos[j];
        const V2 sj = s_par[j];
        F d[3] = {xi[0] - F(pj.x), xi[1] - F(pj.y), xi[2] - F(pj.z)};
        if constexpr (T::kLo) {
          const float4 l = s_lo[j];
          d[0] += xil[0] - l.x, d[1] += xil[1] - l.y, d[2] += xil[2] - l.z;
        }
        const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        const physics::LjcAtom<F> aj{pj.w, sj.x, sj.y};
        physics::LjcTerms<F> term;
        if (masked) {
          const F keep = (j >= n || ((m >> lane) & 1u)) ? F(0) : F(1);
          term = physics::ljc_pair_scaled<D, F>(r2, ai, aj, keep, keep, sig);
        } else {
          term = physics::ljc_pair<D, F>(r2, ai.q * aj.q, physics::lorentz_berthelot(ai, aj), sig);
        }
#pragma unroll
        for (int c = 0; c < 3; ++c) acc[c] += term.force_over_r * d[c];
        if (++J == nJ) J = 0, ++tt;
      }
      flush();
    }
    __syncthreads();
    // 4. The owned atom's forces: warps' partials in order, its bonds and 1-4 pairs; half kick.
    if (owner) {
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int w = 0; w < kWarps; ++w) sum += s_part[(w * tb + tid) * 3 + c];
        f[c] = sum;
      }
      const double* xb = a.xbuf + b * 3 * n;
      for (int k = a.bond_start[own]; k < a.bond_start[own + 1]; ++k) {
        const int j = a.bond_j[k];
        const double r0 = a.bond_rk[2 * k], kb = a.bond_rk[2 * k + 1];
        double d[3];
        for (int c = 0; c < 3; ++c) d[c] = x[c] - __ldcg(xb + c * n + j);
        const double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const double fr = r > 0 ? -kb * (r - r0) / r : 0.0;
        for (int c = 0; c < 3; ++c) f[c] += fr * d[c];
      }
      const physics::LjcAtom<F> ao{F(q_own), hs_own, se_own};
      for (int k = a.p14_start[own]; k < a.p14_start[own + 1]; ++k) {
        const int j = a.p14_j[k];
        F d[3];
        for (int c = 0; c < 3; ++c) d[c] = F(x[c] - __ldcg(xb + c * n + j));
        const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        const V4 pj = par[j];
        const auto term =
            physics::ljc_pair_scaled<D, F>(r2, ao, physics::LjcAtom<F>{pj.x, pj.y, pj.z},
                                           F(a.scale14_lj), F(a.scale14_coulomb), sig);
        for (int c = 0; c < 3; ++c) f[c] += double(term.force_over_r * d[c]);
      }
      for (int c = 0; c < 3; ++c) physics::kick(v[c], f[c], h);
    }
  }
  if (owner) {
    for (int c = 0; c < 3; ++c) {
      a.x[c * n + own] = x[c], a.v[c * n + own] = v[c], a.f[c * n + own] = f[c];
    }
  }
  if (blockIdx.x == 0 && tid == 0) *a.step = step0 + (unsigned long long)a.steps;
}

template <Precision P, DielectricKind D>
PersistentPlan plan_for(int n) {
  PersistentPlan plan;
  int device = 0, sms = 1, coop = 0, optin = 0;
  PW_CUDA(cudaGetDevice(&device));
  PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  PW_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device));
  PW_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (!coop) {
    plan.why = "the device cannot launch cooperative kernels";
    return plan;
  }
  if (n < 1) {
    plan.why = "no atoms";
    return plan;
  }
  const int tb = (n + sms - 1) / sms;
  if (tb > kThreads) {
    plan.why = "more than " + std::to_string(kThreads) + " atoms per SM";
    return plan;
  }
  plan.targets_per_block = tb;
  plan.blocks = (n + tb - 1) / tb;
  plan.threads = kThreads;
  plan.smem = smem_bytes<P>(n, tb);
  if (plan.smem > std::size_t(optin)) {
    plan.why = "the system needs " + std::to_string(plan.smem) +
               " bytes of shared memory per block (the device has " + std::to_string(optin) + ")";
    return plan;
  }
  PW_CUDA(cudaFuncSetAttribute(persistent_kernel<P, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               int(plan.smem)));
  int per_sm = 0;
  PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, persistent_kernel<P, D>, kThreads,
                                                        plan.smem));
  if (per_sm * sms < plan.blocks) {
    plan.why = "the cooperative grid of " + std::to_string(plan.blocks) + " blocks does not fit";
    return plan;
  }
  plan.ok = true;
  return plan;
}

template <Precision P>
PersistentPlan plan_p(physics::DielectricKind d, int n) {
  switch (d) {
    case DielectricKind::linear:
      return plan_for<P, DielectricKind::linear>(n);
    case DielectricKind::sigmoidal:
      return plan_for<P, DielectricKind::sigmoidal>(n);
    case DielectricKind::constant:
      break;
  }
  return plan_for<P, DielectricKind::constant>(n);
}

template <Precision P, DielectricKind D>
void launch_for(const PersistentArgs& a) {
  PersistentArgs args = a;
  void* params[] = {&args};
  PW_CUDA(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(persistent_kernel<P, D>),
                                      dim3(unsigned(a.plan.blocks)), dim3(unsigned(a.plan.threads)),
                                      params, a.plan.smem, static_cast<cudaStream_t>(a.stream)));
  PW_CUDA_LAUNCH("ljc persistent_kernel");
}

template <Precision P>
void launch_p(const PersistentArgs& a) {
  switch (a.dielectric) {
    case DielectricKind::linear:
      return launch_for<P, DielectricKind::linear>(a);
    case DielectricKind::sigmoidal:
      return launch_for<P, DielectricKind::sigmoidal>(a);
    case DielectricKind::constant:
      break;
  }
  launch_for<P, DielectricKind::constant>(a);
}

}  // namespace

PersistentPlan plan_persistent(Precision p, physics::DielectricKind d, int n) {
  switch (p) {
    case Precision::single:
      return plan_p<Precision::single>(d, n);
    case Precision::mixed:
      return plan_p<Precision::mixed>(d, n);
    case Precision::double_:
      break;
  }
  return plan_p<Precision::double_>(d, n);
}

void launch_persistent(const PersistentArgs& a) {
  if (a.steps <= 0) return;
  switch (a.precision) {
    case Precision::single:
      return launch_p<Precision::single>(a);
    case Precision::mixed:
      return launch_p<Precision::mixed>(a);
    case Precision::double_:
      break;
  }
  launch_p<Precision::double_>(a);
}

}  // namespace pairwise::ljc::cuda
