// The md cuda engine's shared device pieces: launch constants, the LJ pair tables in constant
// memory, the position/box/grid/dynamics parameter structs, the step flags and the minimum image.
// The small device helpers both engines' kernels use (the rebuild test's top-2 merge, warp
// min/max, the atom index in a candidate's w slot, the staged list stores, the fixed-point
// displacement, the force kernels' 4-neighbor trip and group sum) live here too.
// Included by cuda_md.cu and cuda_domain_engine.cu (each translation unit has its own
// __constant__ tables, filled by its engine's set_state).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

constexpr int kMaxTypes = 16;
constexpr int kBlock = 128;
constexpr int kIntBlock = 512;  // integrate1: fewer blocks for its last-block reduction
constexpr int kGraphSteps = 10;

__constant__ physics::LjPairParams<float> c_params_f[kMaxTypes * kMaxTypes];
__constant__ physics::LjPairParams<double> c_params_d[kMaxTypes * kMaxTypes];

template <class P>
__device__ __forceinline__ const physics::LjPairParams<P>& pair_params(int k);
template <>
__device__ __forceinline__ const physics::LjPairParams<float>& pair_params<float>(int k) {
  return c_params_f[k];
}
template <>
__device__ __forceinline__ const physics::LjPairParams<double>& pair_params<double>(int k) {
  return c_params_d[k];
}

// The pair term of forces_kick and energy_terms: BuiltInPair, the LJ styles of the tables above
// (nvcc), or a CustomPair generated from formulas (md/cuda_custom_pair.cpp) and compiled with these
// headers at run time by NVRTC, with
//   static bool energy_force(int k, P r2, P& energy, P& force_over_r)   (k = ti · types + tj)
// false outside the pair's cutoff (its rc², like its parameters, folded into the generated code).
struct BuiltInPair {
  static constexpr bool custom = false;
};

template <class R>
struct Vec4;
template <>
struct Vec4<float> {
  using type = float4;
};
struct __align__(32) Double4 {  // (CUDA 13 deprecates double4 for double4_16a/_32a)
  double x, y, z, w;
};
template <>
struct Vec4<double> {
  using type = Double4;
};

template <class R>
struct BoxP {
  R lo[3], hi[3], L[3], half[3];
};

struct GridP {
  int n[3];
  double lo[3], inv_cell[3];
};

struct DynP {
  double dt, kT, c1, c2, andersen_p;
  unsigned long long seed;
  int thermostat;  // 0 none, 1 langevin, 2 andersen
};

struct Flags {
  unsigned int done;          // last-block ticket of integrate1
  int rebuild;                // this step rebuilds the lists
  int force_rebuild;          // the host asks for a rebuild at the next step
  int overflow;               // largest neighbor count seen above the capacity (0: none)
  unsigned long long step;    // index of the step being taken (random counters)
  unsigned long long builds;  // neighbor-list builds
  int bad;                    // first bad atom (set_state index), INT_MAX: none
  int next_cell;              // dynamic build: the next home cell to hand out (cell_count zeroes)
};

// Mixed precision's fixed-point positions (forces_kick's Fixed): each coordinate as an unsigned
// 32-bit fraction of the box, u = round((x - lo) · 2^32 / L) mod 2^32, the type in w. The two's
// complement difference int(u_i - u_j) is then the minimum image of x_i - x_j in units of the
// quantum L / 2^32, exactly (no branch), and one int-to-float conversion and the product with the
// quantum as a float pair (hi + lo: a float quantum alone would scale every displacement by the
// same rounding error, up to 6e-8, a systematic bias the LAMMPS reproduction shows in the
// pressure) give the float displacement: 16 bytes a neighbor instead of the 32 of a double one.
struct FixedP {
  double lo[3], to_fixed[3];           // 2^32 / L
  float quantum_hi[3], quantum_lo[3];  // L / 2^32 = hi + lo
};

__device__ __forceinline__ int fixed_coordinate(double x, double lo, double to_fixed) {
  return int(unsigned(static_cast<unsigned long long>(__double2ll_rn((x - lo) * to_fixed))));
}

template <class R4>
__device__ __forceinline__ int4 fixed_of(const R4& p, const FixedP& f) {
  return make_int4(fixed_coordinate(double(p.x), f.lo[0], f.to_fixed[0]),
                   fixed_coordinate(double(p.y), f.lo[1], f.to_fixed[1]),
                   fixed_coordinate(double(p.z), f.lo[2], f.to_fixed[2]), int(p.w));
}

// The float displacement of two fixed-point coordinates (minimum image).
__device__ __forceinline__ float fixed_delta(int a, int b, float hi, float lo) {
  const float d = float(int(unsigned(a) - unsigned(b)));
  return fmaf(d, hi, d * lo);
}

// A half kick v += h·f per component, each an explicit FMA: integrate1 and forces_kick's Ahead
// (which applies the next step's first half kick right after this step's second) round alike, and
// the compiler cannot merge two kicks into one product (which changes the trajectory).
__device__ __forceinline__ float fma_rn(float a, float b, float c) {
  return __fmaf_rn(a, b, c);
}
__device__ __forceinline__ double fma_rn(double a, double b, double c) {
  return __fma_rn(a, b, c);
}
template <class V, class R, class F>
__device__ __forceinline__ void half_kick(V& v, R h, const F& f) {
  v.x = fma_rn(h, R(f.x), v.x), v.y = fma_rn(h, R(f.y), v.y), v.z = fma_rn(h, R(f.z), v.z);
}

template <class R>
__device__ __forceinline__ R min_image(R d, R L, R half) {
  d = d > half ? d - L : d;
  return d < -half ? d + L : d;
}

// The two largest values seen, a1 ≥ a2, merged with another such pair (b1 ≥ b2): the rebuild
// test's top-2 displacements.
__device__ __forceinline__ void merge_top2(double& a1, double& a2, double b1, double b2) {
  if (b1 > a1) {
    a2 = fmax(a1, b2);
    a1 = b1;
  } else {
    a2 = fmax(a2, b1);
  }
}

// The least and the largest of v over the warp (every lane gets it).
template <class R>
__device__ __forceinline__ R warp_min(R v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
template <class R>
__device__ __forceinline__ R warp_max(R v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// An atom index carried in the w slot of a position (bit pattern for float, exact for double).
template <class R>
__device__ __forceinline__ R index_as(int j);
template <>
__device__ __forceinline__ float index_as<float>(int j) {
  return __int_as_float(j);
}
template <>
__device__ __forceinline__ double index_as<double>(int j) {
  return double(j);
}
__device__ __forceinline__ int index_of(float w) {
  return __float_as_int(w);
}
__device__ __forceinline__ int index_of(double w) {
  return int(w);
}

// One neighbor j of atom i (the count-th): Staged collects 8 in the lane's column of `group` and
// writes each full group as two 16-byte stores (one whole 32-byte sector of the row-major list,
// rows `si` ints apart); otherwise one store at i·si + count·sk.
template <bool Staged>
__device__ __forceinline__ void append_neighbor(int j, int i, int& count, int (*group)[32],
                                                int lane, int capacity, std::size_t si,
                                                std::size_t sk, int* __restrict__ nbr) {
  if (Staged) {
    group[count & 7][lane] = j;
    ++count;
    if ((count & 7) == 0 && count <= capacity) {
      int4* dst = reinterpret_cast<int4*>(nbr + std::size_t(i) * si + (count - 8));
      dst[0] = make_int4(group[0][lane], group[1][lane], group[2][lane], group[3][lane]);
      dst[1] = make_int4(group[4][lane], group[5][lane], group[6][lane], group[7][lane]);
    }
  } else {
    if (count < capacity) nbr[std::size_t(i) * si + std::size_t(count) * sk] = j;
    ++count;
  }
}

// The float minimum-image displacement a − b of two fixed-point positions (FixedP).
template <class P>
__device__ __forceinline__ void fixed_displacement(const int4& a, const int4& b, const FixedP& f,
                                                   P& dx, P& dy, P& dz) {
  dx = fixed_delta(a.x, b.x, f.quantum_hi[0], f.quantum_lo[0]);
  dy = fixed_delta(a.y, b.y, f.quantum_hi[1], f.quantum_lo[1]);
  dz = fixed_delta(a.z, b.z, f.quantum_hi[2], f.quantum_lo[2]);
}

// one(u) for the buffered candidates u < m: fully unrolled for a whole batch of 32.
template <class OneFn>
__device__ __forceinline__ void for_each_candidate(int m, OneFn& one) {
  if (m == 32) {
#pragma unroll
    for (int u = 0; u < 32; ++u) one(u);
  } else {
#pragma unroll 4
    for (int u = 0; u < m; ++u) one(u);
  }
}

// The staged list builds' hit columns: a warp's shared [kHitSlots][32] ints, lane l's entries at
// col[32·s] (slot-major: every lane in its own bank). A column holds the < 8 neighbours carried
// over from the last batch plus the ≤ 32 hits of one batch of candidates.
constexpr int kHitSlots = 40;

// |x_i − q|² of a staged candidate q in R (both staged hit passes take it alike).
template <class R, class R4>
__device__ __forceinline__ R distance2(const R4& q, R xi, R yi, R zi) {
  const R dx = xi - q.x, dy = yi - q.y, dz = zi - q.z;
  return dx * dx + dy * dy + dz * dz;
}

// Tests the lane's atom (xi, yi, zi; index i) against the warp's m candidates bw[0, m) (r² <
// hit2, j ≠ i) and stages the hits in candidate order in its column from slot `staged`: the test
// and the append in one predicated pass, every lane doing the same instructions. (A loop over the
// hit bits instead ran each lane's own number of trips: 10 of 32 lanes active on average, the
// loop 57 % of the build's instructions at 8,192,000 atoms, ncu on the H200.) Banded (mixed's
// float tests, hit2 = (r_list + m)²): `far` is raised to the largest r² staged, so that the
// caller knows whether a hit lies in the band that the double test decides (restage_hits).
// Returns the column's new count.
template <bool Banded, class R, class R4>
__device__ __forceinline__ int stage_hits(int m, const R4* bw, R xi, R yi, R zi, R hit2, int i,
                                          int* col, int staged, R& far) {
  int* slot = col + 32 * staged;
  auto one = [&](int u) {
    const R4 q = bw[u];
    const int j = index_of(q.w);
    const R r2 = distance2(q, xi, yi, zi);
    if (r2 < hit2 && j != i) {
      *slot = j, slot += 32;
      if constexpr (Banded) far = max(far, r2);
    }
  };
  for_each_candidate(m, one);
  return int(slot - col) >> 5;
}

// The same batch staged again from slot `before` (a lane whose hits reached the band: ≈ 1
// candidate in 3,000 is in it), a hit at r² ≥ lo2 kept only if within(j) (the double build's
// decision), so the lists are exactly the double build's. Returns the column's new count.
template <class R, class R4, class Within>
__device__ __forceinline__ int restage_hits(int m, const R4* bw, R xi, R yi, R zi, R hit2, R lo2,
                                            int i, int* col, int before, Within&& within) {
  int* slot = col + 32 * before;
  for (int u = 0; u < m; ++u) {
    const R4 q = bw[u];
    const int j = index_of(q.w);
    const R r2 = distance2(q, xi, yi, zi);
    if (r2 < hit2 && j != i && (r2 < lo2 || within(j))) *slot = j, slot += 32;
  }
  return int(slot - col) >> 5;
}

// Writes the column's full groups of 8 (atom i's neighbours written + 8k …) to its row of the
// lists (two 16-byte stores a group: one whole 32-byte sector; rows `si` ints apart; a group
// beyond `capacity` is counted, not written), and moves the rest (< 8) to the column's front.
// `written` (a multiple of 8) counts the neighbours before the column. Returns the rest.
__device__ __forceinline__ int flush_hit_groups(int* col, int staged, int& written, int i,
                                                int capacity, std::size_t si,
                                                int* __restrict__ nbr) {
  const int full = staged & ~7;
  for (int g = 0; g < full; g += 8) {
    if (written + 8 <= capacity) {
      const int* c = col + 32 * g;
      int4* dst = reinterpret_cast<int4*>(nbr + std::size_t(i) * si + written);
      dst[0] = make_int4(c[0], c[32], c[64], c[96]);
      dst[1] = make_int4(c[128], c[160], c[192], c[224]);
    }
    written += 8;
  }
  const int rest = staged - full;
  for (int r = 0; r < rest; ++r) col[32 * r] = col[32 * (full + r)];
  return rest;
}

}  // namespace
}  // namespace pairwise::md
