// The one-sided ljc pair kernel as an instantiation of the shared all-pairs engine
// (engine/all_pairs.cuh): LjcPolicy supplies the pair (physics::ljc_pair_scaled) and the
// exclusions; the engine supplies j-tiles in shared memory, several targets per thread, the
// j-split planner and the deterministic in-launch split reduction.
//
// Exclusions (1-2, 1-3, explicit), 1-4 pairs (added back scaled by the bonded kernel) and the atom
// itself are skipped through compact per-tile masks: for every target i, the rows of the 32 × 32
// tiles (i, J) that hold any such pair, as (J, 32-bit mask) entries sorted by J
// (row_start[i] .. row_start[i+1]). Sources reach a thread in increasing j, so each target walks
// its few entries once with a cursor kept in its accumulator; no per-pair lookup in global memory.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "core/cuda_check.cuh"
#include "engine/all_pairs.cuh"
#include "ljc/cuda_ljc.cuh"
#include "pairwise/physics/ljc.hpp"

namespace pairwise::ljc::cuda {
namespace {

using physics::DielectricKind;

struct alignas(32) D4 {
  double x, y, z, w;
};

template <Precision P>
struct OneSidedTraits {
  using F = float;
  using V4 = float4;
  static constexpr bool kLo = P == Precision::mixed;
  static constexpr bool kFixed = true;
  static constexpr int kI = 4;
};
template <>
struct OneSidedTraits<Precision::double_> {
  using F = double;
  using V4 = D4;
  static constexpr bool kLo = false;
  static constexpr bool kFixed = false;
  static constexpr int kI = 2;
};

template <bool kFixed>
__device__ __forceinline__ void add_to(void* base, long long index, double v) {
  if constexpr (kFixed) {
    atomicAdd(reinterpret_cast<unsigned long long*>(base) + index,
              static_cast<unsigned long long>(__double2ll_rn(v * kFixedScale)));
  } else {
    atomicAdd(static_cast<double*>(base) + index, v);
  }
}

template <class V4>
__device__ __forceinline__ int index_of(const V4& par) {
  if constexpr (sizeof(V4) == 16) {
    return __float_as_int(par.w);
  } else {
    return int(par.w);
  }
}

template <Precision P, DielectricKind D>
struct LjcPolicy {
  using T = OneSidedTraits<P>;
  using F = typename T::F;
  using V4 = typename T::V4;
  using Args = OneSidedArgs;
  using Partial = std::conditional_t<P == Precision::single, float, double>;
  static constexpr int kComponents = 5;  // fx, fy, fz, U_lj, U_coulomb

  struct Source {
    V4 p;    // x, y, z, 0
    V4 par;  // q, σ/2, sqrt ε, index
    float4 lo;
  };
  struct Target {
    F x, y, z;
    float xl, yl, zl;
    physics::LjcAtom<F> atom;
    const int2* masks;
    int count;
  };
  struct Accum {
    F f[5];
    double total[T::kLo ? 5 : 1];
    int next, block;  // mask cursor: entries read, J of the current one
    unsigned bits;
  };
  struct Ctx {
    physics::SigmoidalTerms<F> sig;
  };

  static __device__ __forceinline__ Ctx context(const Args& a) {
    return {{F(a.sig[0]), F(a.sig[1]), F(a.sig[2]), F(a.sig[3])}};
  }
  static __device__ __forceinline__ Target load_target(const Args& a, int k) {
    Target t;
    const V4 p = static_cast<const V4*>(a.pos)[k];
    const V4 q = static_cast<const V4*>(a.par)[k];
    t.x = p.x, t.y = p.y, t.z = p.z;
    if constexpr (T::kLo) {
      const float4 l = static_cast<const float4*>(a.pos_lo)[k];
      t.xl = l.x, t.yl = l.y, t.zl = l.z;
    }
    t.atom = {q.x, q.y, q.z};
    t.masks = static_cast<const int2*>(a.row_masks) + a.row_start[k];
    t.count = a.row_start[k + 1] - a.row_start[k];
    return t;
  }
  static __device__ __forceinline__ Source load_source(const Args& a, int j) {
    Source s;
    s.p = static_cast<const V4*>(a.pos)[j];
    s.par = static_cast<const V4*>(a.par)[j];
    if constexpr (T::kLo) s.lo = static_cast<const float4*>(a.pos_lo)[j];
    return s;
  }
  // Zero charge and ε far away, index past every mask entry: adds exactly 0.
  static __device__ __forceinline__ Source pad_source(const Args&) {
    Source s;
    s.p.x = s.p.y = s.p.z = F(1e18), s.p.w = F(0);
    s.par.x = s.par.y = s.par.z = F(0);
    if constexpr (sizeof(V4) == 16) {
      s.par.w = __int_as_float(INT_MAX - 64);
    } else {
      s.par.w = double(INT_MAX - 64);
    }
    s.lo = make_float4(0.f, 0.f, 0.f, 0.f);
    return s;
  }

  template <int kI>
  static __device__ __forceinline__ void interact(const Ctx& ctx, const Source& s,
                                                  const Target (&t)[kI], Accum (&acc)[kI]) {
    const int j = index_of(s.par);
    const int jb = j >> 5;
    const physics::LjcAtom<F> aj{s.par.x, s.par.y, s.par.z};
#pragma unroll
    for (int k = 0; k < kI; ++k) {
      Accum& c = acc[k];
      while (c.next == 0 || c.block < jb) {  // rare: the next masked tile of this target
        if (c.next >= t[k].count) {
          c.block = INT_MAX;
          c.next = c.next > 0 ? c.next : 1;
          break;
        }
        const int2 e = t[k].masks[c.next];
        c.block = e.x, c.bits = unsigned(e.y);
        ++c.next;
      }
      const bool skip = c.block == jb && ((c.bits >> (j & 31)) & 1u);
      const F keep = skip ? F(0) : F(1);
      F d[3] = {t[k].x - s.p.x, t[k].y - s.p.y, t[k].z - s.p.z};
      if constexpr (T::kLo) {
        d[0] += t[k].xl - s.lo.x, d[1] += t[k].yl - s.lo.y, d[2] += t[k].zl - s.lo.z;
      }
      const F r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
      const auto term = physics::ljc_pair_scaled<D, F>(r2, t[k].atom, aj, keep, keep, ctx.sig);
      c.f[0] += term.force_over_r * d[0];
      c.f[1] += term.force_over_r * d[1];
      c.f[2] += term.force_over_r * d[2];
      c.f[3] += term.lj;
      c.f[4] += term.coulomb;
    }
  }
  template <int kI>
  static __device__ __forceinline__ void end_tile(Accum (&acc)[kI]) {
    if constexpr (T::kLo) {
#pragma unroll
      for (int k = 0; k < kI; ++k)
#pragma unroll
        for (int c = 0; c < 5; ++c) acc[k].total[c] += double(acc[k].f[c]), acc[k].f[c] = 0;
    }
  }
  static __device__ __forceinline__ Partial partial(const Accum& a, int c) {
    if constexpr (T::kLo) {
      return a.total[c];
    } else {
      return Partial(a.f[c]);
    }
  }
  static __device__ __forceinline__ void finalize(const Args& a, int k, int c, double sum) {
    if (c < 3) {
      add_to<T::kFixed>(a.force, (long long)c * a.n_i + k, sum);
    } else if (a.energy) {
      if constexpr (T::kFixed) {
        add_to<true>(a.energy_acc, c - 3, 0.5 * sum);
      } else {  // target k's slot (cuda_tile_args.hpp): no FP64 atomics, bitwise reproducible
        static_cast<double*>(a.energy_acc)[(long long)kEnergySlotWidth * k + (c - 3)] = 0.5 * sum;
      }
    }
  }
  static __device__ __forceinline__ void after_finalize(const Args&, int, int) {}
};

template <Precision P, DielectricKind D>
void launch_p(const OneSidedArgs& a) {
  constexpr int kI = OneSidedTraits<P>::kI;
  engine::launch_all_pairs<LjcPolicy<P, D>, kI, 2>(a, static_cast<cudaStream_t>(a.stream),
                                                   "ljc one-sided all_pairs_kernel");
}

template <Precision P>
void launch_d(const OneSidedArgs& a) {
  switch (a.dielectric) {
    case DielectricKind::linear:
      return launch_p<P, DielectricKind::linear>(a);
    case DielectricKind::sigmoidal:
      return launch_p<P, DielectricKind::sigmoidal>(a);
    case DielectricKind::constant:
      break;
  }
  launch_p<P, DielectricKind::constant>(a);
}

template <Precision P>
int occupancy(DielectricKind d) {
  constexpr int kI = OneSidedTraits<P>::kI;
  switch (d) {
    case DielectricKind::linear:
      return engine::all_pairs_blocks_per_sm<LjcPolicy<P, DielectricKind::linear>, kI, 2>();
    case DielectricKind::sigmoidal:
      return engine::all_pairs_blocks_per_sm<LjcPolicy<P, DielectricKind::sigmoidal>, kI, 2>();
    case DielectricKind::constant:
      break;
  }
  return engine::all_pairs_blocks_per_sm<LjcPolicy<P, DielectricKind::constant>, kI, 2>();
}

}  // namespace

engine::AllPairsPlan plan_one_sided(Precision p, DielectricKind d, int n, int sms,
                                    std::size_t max_partial_bytes) {
  engine::AllPairsCostModel model;
  // Issue slots per interaction at kI = 4: the pair (~34 with Lorentz–Berthelot mixing), the mask
  // cursor test (~4), 2 (3 mixed) LDS.128 per source amortized over kI.
  model.per_pair = d == DielectricKind::sigmoidal ? 48.0 : 40.0;
  model.loads_per_source = p == Precision::mixed ? 3.0 : (p == Precision::double_ ? 4.0 : 2.0);
  model.components = 5;
  model.partial_bytes_per_target = 5 * (p == Precision::single ? 4 : 8);
  engine::AllPairsShape shape;
  shape.tile = p == Precision::double_ ? OneSidedTraits<Precision::double_>::kI
                                       : OneSidedTraits<Precision::single>::kI;
  shape.blocks_per_sm = p == Precision::single  ? occupancy<Precision::single>(d)
                        : p == Precision::mixed ? occupancy<Precision::mixed>(d)
                                                : occupancy<Precision::double_>(d);
  if (p == Precision::double_) shape.cost_factor = 2.0;  // FP64 at half the FP32 rate
  model.shapes.push_back(shape);
  return engine::plan_all_pairs(model, n, n, sms, max_partial_bytes);
}

std::size_t one_sided_partial_bytes(Precision p, const engine::AllPairsPlan& plan, int n) {
  return std::size_t(5) * (p == Precision::single ? 4 : 8) * plan.splits * std::size_t(n);
}

void launch_one_sided(const OneSidedArgs& a) {
  if (a.n_i == 0) return;
  switch (a.precision) {
    case Precision::single:
      return launch_d<Precision::single>(a);
    case Precision::mixed:
      return launch_d<Precision::mixed>(a);
    case Precision::double_:
      return launch_d<Precision::double_>(a);
  }
}

}  // namespace pairwise::ljc::cuda
