// The kernels of the md cuda domain engine (cuda_domain_engine.cu, which describes the step):
// the integrator halves, the rebuild test's displacement top-2, migration records, ghost
// selection and packing, the cell list and full neighbour list over the domain and its ghost
// shell, forces and thermo sums. Positions are not wrapped between rebuilds (a local atom may
// drift out of its domain and the box until the next migration), so no kernel takes a minimum
// image: ghosts carry their periodic shift. Included by cuda_domain_engine.cu only.
#pragma once

#include <cstdint>

#include "md/cuda_md_common.cuh"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

constexpr int kDomainBlock = 128;

// An atom crossing to another rank at a rebuild (the force is recomputed before it is used).
template <class R4>
struct MoveRecord {
  R4 pos, vel;  // pos.w: type index, vel.w: 1 / mass
  int4 image;
  unsigned id;
  int slot;  // set_state index
};

// The domain's geometry for the kernels, in double as the cpu domain engine's tests.
struct DomainP {
  double box_lo[3], box_hi[3], length[3];
  int n[3], coord[3];
};

// The cell grid over the domain plus its ghost shell (cells at least r_list wide).
struct ShellCellsP {
  double origin[3], width[3];
  int n[3];
};

template <class R4>
__device__ __forceinline__ double coordinate(const R4& p, int d) {
  return d == 0 ? double(p.x) : d == 1 ? double(p.y) : double(p.z);
}

// Half kick with the forces of the last step, then the drift (none, Andersen) or BAOAB's half
// drift, O step, half drift (Langevin), with the random stream keyed by atom id and `step`.
template <class R, int Thermostat>
__global__ void domain_kick_drift(int n, typename Vec4<R>::type* __restrict__ pos,
                                  typename Vec4<R>::type* __restrict__ vel,
                                  const typename Vec4<R>::type* __restrict__ force,
                                  const unsigned* __restrict__ id, DynP dyn,
                                  unsigned long long step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto p = pos[i], v = vel[i];
  const auto f = force[i];
  const R h = R(0.5 * dyn.dt * double(v.w));
  physics::kick(v.x, f.x, h), physics::kick(v.y, f.y, h), physics::kick(v.z, f.z, h);
  if (Thermostat == 1) {
    const R hd = R(0.5 * dyn.dt);
    physics::drift(p.x, v.x, hd), physics::drift(p.y, v.y, hd), physics::drift(p.z, v.z, hd);
    physics::langevin_o_step(v.x, v.y, v.z, double(v.w), dyn.kT, {dyn.c1, dyn.c2}, dyn.seed, step,
                             id[i]);
    physics::drift(p.x, v.x, hd), physics::drift(p.y, v.y, hd), physics::drift(p.z, v.z, hd);
  } else {
    const R dt = R(dyn.dt);
    physics::drift(p.x, v.x, dt), physics::drift(p.y, v.y, dt), physics::drift(p.z, v.z, dt);
  }
  pos[i] = p, vel[i] = v;
}

__device__ __forceinline__ void merge_top2(double& a1, double& a2, double b1, double b2) {
  if (b1 > a1) {
    a2 = fmax(a1, b2);
    a1 = b1;
  } else {
    a2 = fmax(a2, b1);
  }
}

// The block's two largest |r − r_build|² (a NaN counts as huge: the run then rebuilds and the
// driver reports the atom).
template <class R4>
__global__ void __launch_bounds__(kDomainBlock)
    displacement_top2(int n, const R4* __restrict__ pos, const R4* __restrict__ x0,
                      double2* __restrict__ block_top2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d2 = 0;
  if (i < n) {
    const R4 p = pos[i], q = x0[i];
    const double dx = double(p.x) - double(q.x), dy = double(p.y) - double(q.y),
                 dz = double(p.z) - double(q.z);
    d2 = dx * dx + dy * dy + dz * dz;
    if (!(d2 == d2)) d2 = 1e300;
  }
  double a1 = d2, a2 = 0;
  for (int o = 16; o > 0; o >>= 1)
    merge_top2(a1, a2, __shfl_down_sync(0xffffffffu, a1, o), __shfl_down_sync(0xffffffffu, a2, o));
  __shared__ double s1[kDomainBlock / 32], s2[kDomainBlock / 32];
  if ((threadIdx.x & 31) == 0) s1[threadIdx.x >> 5] = a1, s2[threadIdx.x >> 5] = a2;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kDomainBlock / 32; ++w) merge_top2(s1[0], s2[0], s1[w], s2[w]);
    block_top2[blockIdx.x] = make_double2(s1[0], s2[0]);
  }
}

// One block: the two largest over the blocks' pairs into out[0].
__global__ void __launch_bounds__(kDomainBlock)
    merge_block_top2(int blocks, const double2* __restrict__ block_top2, double2* out) {
  double a1 = 0, a2 = 0;
  for (int b = threadIdx.x; b < blocks; b += blockDim.x)
    merge_top2(a1, a2, block_top2[b].x, block_top2[b].y);
  __shared__ double s1[kDomainBlock], s2[kDomainBlock];
  s1[threadIdx.x] = a1, s2[threadIdx.x] = a2;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int t = 1; t < kDomainBlock; ++t) merge_top2(a1, a2, s1[t], s2[t]);
    out[0] = make_double2(a1, a2);
  }
}

// Into the box [lo, hi) along every axis, counting crossings in the image flags (DomainGrid::wrap
// in double), and the atom's record for the migration.
template <class R4>
__global__ void wrap_and_pack(int n, const R4* __restrict__ pos, const R4* __restrict__ vel,
                              const int4* __restrict__ image, const unsigned* __restrict__ id,
                              const int* __restrict__ slot, DomainP g,
                              MoveRecord<R4>* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  MoveRecord<R4> r;
  r.pos = pos[i], r.vel = vel[i], r.image = image[i], r.id = id[i], r.slot = slot[i];
  double x[3] = {double(r.pos.x), double(r.pos.y), double(r.pos.z)};
  int* m[3] = {&r.image.x, &r.image.y, &r.image.z};
  for (int d = 0; d < 3; ++d) {
    const double k = floor((x[d] - g.box_lo[d]) / g.length[d]);
    if (k != 0 && k == k) x[d] -= k * g.length[d], *m[d] += int(k);
    if (x[d] >= g.box_hi[d]) x[d] = g.box_lo[d];  // -tiny + L rounded up to L
  }
  using R = decltype(r.pos.x);
  r.pos.x = R(x[0]), r.pos.y = R(x[1]), r.pos.z = R(x[2]);
  out[i] = r;
}

// Which way each record goes along d: stays, down (to coord − 1) or up (coord + 1); an atom owned
// by a domain further away sets *far to its id + 1 (a clear error on the host).
template <class R4>
__global__ void classify_moves(int n, const MoveRecord<R4>* __restrict__ rec, DomainP g, int d,
                               unsigned char* __restrict__ stay, unsigned char* __restrict__ down,
                               unsigned char* __restrict__ up, unsigned* far) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = coordinate(rec[i].pos, d);
  int c = int(floor((x - g.box_lo[d]) / g.length[d] * g.n[d]));
  c = c < 0 ? 0 : (c > g.n[d] - 1 ? g.n[d] - 1 : c);
  const int me = g.coord[d];
  const bool s = c == me, lo = !s && c == (me + g.n[d] - 1) % g.n[d],
             hi = !s && !lo && c == (me + 1) % g.n[d];
  stay[i] = s, down[i] = lo, up[i] = hi;
  if (!s && !lo && !hi) atomicMax(far, rec[i].id + 1u);
}

// The local arrays from the records, record order[i] into slot i.
template <class R4>
__global__ void unpack_records(int n, const MoveRecord<R4>* __restrict__ rec,
                               const int* __restrict__ order, R4* __restrict__ pos,
                               R4* __restrict__ vel, int4* __restrict__ image,
                               unsigned* __restrict__ id, int* __restrict__ slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const MoveRecord<R4> r = rec[order[i]];
  pos[i] = r.pos, vel[i] = r.vel, image[i] = r.image, id[i] = r.id, slot[i] = r.slot;
}

__global__ void fill_iota(int n, int* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// The atoms (local and earlier ghosts) within r_list of the low face (to the low neighbour) and
// of the high face (to the high one) along d.
template <class R4>
__global__ void ghost_flags(int n, const R4* __restrict__ pos, int d, double low_edge,
                            double high_edge, unsigned char* __restrict__ to_low,
                            unsigned char* __restrict__ to_high) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = coordinate(pos[i], d);
  to_low[i] = x < low_edge, to_high[i] = x >= high_edge;
}

// The positions (type in w) of the listed atoms shifted by `shift` along d, and their slots when
// slot_out is set (at a rebuild).
template <class R4, class R>
__global__ void pack_ghosts(int n, const int* __restrict__ list, const R4* pos, int d, R shift,
                            R4* out, const int* slot_in, int* slot_out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int j = list[k];
  R4 p = pos[j];
  if (d == 0) p.x += shift;
  if (d == 1) p.y += shift;
  if (d == 2) p.z += shift;
  out[k] = p;
  if (slot_out) slot_out[k] = slot_in[j];
}

template <class R4>
__device__ __forceinline__ int shell_cell(const R4& p, const ShellCellsP& c, int d) {
  const int k = int((coordinate(p, d) - c.origin[d]) / c.width[d]);
  return k < 0 ? 0 : (k >= c.n[d] ? c.n[d] - 1 : k);
}

// The shell-grid cell of each record (the local atoms are stored in cell order).
template <class R4>
__global__ void record_cell_keys(int n, const MoveRecord<R4>* __restrict__ rec, ShellCellsP c,
                                 int* __restrict__ key, int* __restrict__ index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = rec[i].pos;
  key[i] = shell_cell(p, c, 0) + c.n[0] * (shell_cell(p, c, 1) + c.n[1] * shell_cell(p, c, 2));
  index[i] = i;
}

template <class R4>
__global__ void gather_positions(int n, const int* __restrict__ order, const R4* __restrict__ pos,
                                 R4* __restrict__ out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) out[k] = pos[order[k]];
}

template <class R4>
__global__ void shell_cell_keys(int n, const R4* __restrict__ pos, ShellCellsP c,
                                int* __restrict__ key, int* __restrict__ index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = pos[i];
  key[i] = shell_cell(p, c, 0) + c.n[0] * (shell_cell(p, c, 1) + c.n[1] * shell_cell(p, c, 2));
  index[i] = i;
}

// start[c] = the first entry of cell c in the sorted keys (start[cells] = n).
__global__ void shell_cell_starts(int cells, int n, const int* __restrict__ sorted_key,
                                  int* __restrict__ start) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c > cells) return;
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (sorted_key[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  start[c] = lo;
}

// The full neighbour list of each local atom (every other local atom and every ghost within
// r_list), a thread per atom scanning its 27 cells in z, y, x order and each cell in index
// order (deterministic), the candidates' positions read in cell order (cell_pos[e] is atom
// order[e]'s). A count above the capacity raises *overflow to it.
template <class R4>
__global__ void domain_list(int n, const R4* __restrict__ pos, const R4* __restrict__ cell_pos,
                            const int* __restrict__ order, const int* __restrict__ start,
                            ShellCellsP c, double r_list2, int capacity, int* __restrict__ nbr,
                            int* __restrict__ nbr_count, int* overflow) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = pos[i];
  const double xi = double(p.x), yi = double(p.y), zi = double(p.z);
  const int cx = shell_cell(p, c, 0), cy = shell_cell(p, c, 1), cz = shell_cell(p, c, 2);
  int count = 0;
  int* row = nbr + std::size_t(i) * capacity;
  for (int z = max(0, cz - 1); z <= min(c.n[2] - 1, cz + 1); ++z)
    for (int y = max(0, cy - 1); y <= min(c.n[1] - 1, cy + 1); ++y)
      for (int x = max(0, cx - 1); x <= min(c.n[0] - 1, cx + 1); ++x) {
        const int cell = x + c.n[0] * (y + c.n[1] * z);
        for (int e = start[cell]; e < start[cell + 1]; ++e) {
          const int j = order[e];
          if (j == i) continue;
          const R4 q = cell_pos[e];
          const double dx = xi - double(q.x), dy = yi - double(q.y), dz = zi - double(q.z);
          if (dx * dx + dy * dy + dz * dz < r_list2) {
            if (count < capacity) row[count] = j;
            ++count;
          }
        }
      }
  nbr_count[i] = count;
  if (count > capacity) atomicMax(overflow, count);
}

// The pair forces on each local atom over its full list (P arithmetic from displacements taken
// in R, sums in A), then, when `kick`, the second half kick (+ Andersen collisions at `step`).
// TPA threads share an atom, each taking every TPA-th neighbour, and combine by shuffles in a fixed
// order (deterministic; more resident warps to hide the neighbour gathers).
template <class R, class P, class A, bool SF, int TPA>
__global__ void __launch_bounds__(kDomainBlock)
    domain_forces(int n, const typename Vec4<R>::type* __restrict__ pos,
                  typename Vec4<R>::type* __restrict__ vel,
                  typename Vec4<R>::type* __restrict__ force, const int* __restrict__ nbr,
                  const int* __restrict__ nbr_count, int capacity, int types,
                  const unsigned* __restrict__ id, DynP dyn, unsigned long long step, bool kick) {
  static_assert(TPA >= 1 && TPA <= 32 && (TPA & (TPA - 1)) == 0, "TPA: a power of 2 up to 32");
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = t / TPA, sub = t % TPA;
  if (i >= n) return;  // whole groups leave together (TPA divides the block)
  const auto p = pos[i];
  const int ti = int(p.w);
  A fx = 0, fy = 0, fz = 0;
  const int count = nbr_count[i];
  const int* row = nbr + std::size_t(i) * capacity;
  for (int e = sub; e < count; e += TPA) {
    const auto q = pos[row[e]];
    const P dx = P(p.x - q.x), dy = P(p.y - q.y), dz = P(p.z - q.z);
    const P r2 = dx * dx + dy * dy + dz * dz;
    const physics::LjPairParams<P>& pp = pair_params<P>(ti * types + int(q.w));
    if (!(r2 < pp.rc2)) continue;
    const P fr = physics::lj_truncated<SF>(r2, pp).force_over_r2;
    fx += A(fr * dx), fy += A(fr * dy), fz += A(fr * dz);
  }
  if constexpr (TPA > 1) {
    const int lane = threadIdx.x & 31;
    const unsigned mask = (TPA == 32 ? 0xffffffffu : ((1u << TPA) - 1u)) << (lane & ~(TPA - 1));
    for (int o = TPA / 2; o > 0; o >>= 1) {
      fx += __shfl_xor_sync(mask, fx, o);
      fy += __shfl_xor_sync(mask, fy, o);
      fz += __shfl_xor_sync(mask, fz, o);
    }
    if (sub != 0) return;
  }
  typename Vec4<R>::type f;
  f.x = R(fx), f.y = R(fy), f.z = R(fz), f.w = 0;
  force[i] = f;
  if (!kick) return;
  auto v = vel[i];
  const R h = R(0.5 * dyn.dt * double(v.w));
  physics::kick(v.x, f.x, h), physics::kick(v.y, f.y, h), physics::kick(v.z, f.z, h);
  if (dyn.thermostat == 2)
    physics::andersen_collision(v.x, v.y, v.z, double(v.w), dyn.kT, dyn.andersen_p, dyn.seed, step,
                                id[i]);
  vel[i] = v;
}

// Per block: Σ ½ U and Σ ½ r·f over each local atom's pairs (every pair is seen from both of its
// atoms, here or on the rank holding the other: half each), and Σ ½ m v², into
// partial[3 b + {0, 1, 2}] (sum_partials' layout: potential, virial, kinetic).
template <class R, class P, bool SF>
__global__ void __launch_bounds__(kDomainBlock)
    domain_energy(int n, const typename Vec4<R>::type* __restrict__ pos,
                  const typename Vec4<R>::type* __restrict__ vel, const int* __restrict__ nbr,
                  const int* __restrict__ nbr_count, int capacity, int types,
                  double* __restrict__ partial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double t[3] = {0, 0, 0};
  if (i < n) {
    const auto p = pos[i];
    const int ti = int(p.w);
    const int count = nbr_count[i];
    const int* row = nbr + std::size_t(i) * capacity;
    for (int e = 0; e < count; ++e) {
      const auto q = pos[row[e]];
      const P dx = P(p.x - q.x), dy = P(p.y - q.y), dz = P(p.z - q.z);
      const P r2 = dx * dx + dy * dy + dz * dz;
      const physics::LjPairParams<P>& pp = pair_params<P>(ti * types + int(q.w));
      if (!(r2 < pp.rc2)) continue;
      const auto term = physics::lj_truncated<SF>(r2, pp);
      t[0] += 0.5 * double(term.energy), t[1] += 0.5 * double(term.force_over_r2 * r2);
    }
    const auto v = vel[i];
    t[2] = 0.5 * (double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z) / double(v.w);
  }
  __shared__ double s[3][kDomainBlock];
  for (int c = 0; c < 3; ++c) s[c][threadIdx.x] = t[c];
  __syncthreads();
  if (threadIdx.x < 3) {
    double r = 0;
    for (int k = 0; k < kDomainBlock; ++k) r += s[threadIdx.x][k];  // fixed order
    partial[3 * blockIdx.x + threadIdx.x] = r;
  }
}

// The smallest set_state slot among the local atoms whose position or velocity is not finite or
// whose speed exceeds the limit.
template <class R4>
__global__ void domain_find_bad(int n, const R4* __restrict__ pos, const R4* __restrict__ vel,
                                const int* __restrict__ slot, double max_speed2, int* bad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = pos[i], v = vel[i];
  const double v2 = double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z;
  const bool finite =
      isfinite(double(p.x)) && isfinite(double(p.y)) && isfinite(double(p.z)) && isfinite(v2);
  if (!finite || v2 > max_speed2) atomicMin(bad, slot[i]);
}

}  // namespace
}  // namespace pairwise::md
