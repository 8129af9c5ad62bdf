// The md cuda engine's neighbor-list build: the cell list by counting sort (cell_count,
// cell_scan, cell_scatter, cell_sort) and the full Verlet lists (build_list, build_list_screened).
// Included by cuda_md.cu only; the whole step is described there.
#pragma once

#include <type_traits>

#include "md/cuda_md_common.cuh"
#include "md/cuda_md_integrate.cuh"

namespace pairwise::md {
namespace {

template <class R>
__device__ __forceinline__ int cell_of(const typename Vec4<R>::type& p, const GridP& g,
                                       const int* rank) {
  int c[3];
  const double x[3] = {double(p.x), double(p.y), double(p.z)};
#pragma unroll
  for (int d = 0; d < 3; ++d) {
    int k = int((x[d] - g.lo[d]) * g.inv_cell[d]);
    c[d] = k < 0 ? 0 : (k >= g.n[d] ? g.n[d] - 1 : k);
  }
  return rank[c[0] + g.n[0] * (c[1] + g.n[1] * c[2])];
}

template <class R>
__global__ void cell_count(int n, const typename Vec4<R>::type* __restrict__ pos, GridP g,
                           const int* __restrict__ rank, int* __restrict__ cell,
                           int* __restrict__ slot, int* __restrict__ count, Flags* flags) {
  if (!flags->rebuild) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) flags->next_cell = 0;  // for the dynamic build
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int c = cell_of<R>(pos[i], g, rank);
    cell[i] = c;
    slot[i] = atomicAdd(&count[c], 1);
  }
}

// Where the kernels of a rebuild read mixed's master positions (MasterP) instead of the doubles
// (inside the graphs the doubles are not kept: master_position decodes x = lo + U·q).
struct MasterView {
  const int4* fixed = nullptr;  // null: read the doubles
  const unsigned long long* resid = nullptr;
  MasterP m{};
  // Coarse: the cell kernels read the 32-bit copy u alone (16 bytes an atom instead of 24), the
  // position U ≈ u·2^18 (within 2^17 quanta), and the residual only where that is not enough:
  // u = 0 (U may be just below 2^50: the far side of the box) and, in cell_count, positions
  // within 2^18 quanta of a cell boundary (the cells are then exactly the decoded positions').
  bool coarse = false;
};

// The position x ≈ lo + u·2^18·q of the 32-bit copy alone (|error| ≤ 2^17·q + one rounding).
__device__ __forceinline__ Double4 coarse_position(const int4& u, const MasterP& m) {
  Double4 p;
  p.x = fma(double(unsigned(u.x)) * double(1 << kResidBits), m.quantum[0], m.lo[0]);
  p.y = fma(double(unsigned(u.y)) * double(1 << kResidBits), m.quantum[1], m.lo[1]);
  p.z = fma(double(unsigned(u.z)) * double(1 << kResidBits), m.quantum[2], m.lo[2]);
  p.w = double(u.w);
  return p;
}

// cell_of of the decoded master position, from the copy u where that decides it (Coarse).
__device__ __forceinline__ int master_cell(const MasterView& mv, int i, const GridP& g,
                                           const int* rank) {
  if (mv.coarse) {
    const int4 u = mv.fixed[i];
    const Double4 p = coarse_position(u, mv.m);
    const double x[3] = {p.x, p.y, p.z};
    bool sure = (u.x != 0) & (u.y != 0) & (u.z != 0);
    int c[3];
#pragma unroll
    for (int d = 0; d < 3; ++d) {
      const double f = (x[d] - g.lo[d]) * g.inv_cell[d];
      // 2^18 quanta in cell units: twice the copy's error, far above the roundings.
      const double tol = double(1 << (kResidBits + 1)) * mv.m.quantum[d] * g.inv_cell[d];
      sure &= fabs(f - rint(f)) > tol;
      const int k = int(f);
      c[d] = k < 0 ? 0 : (k >= g.n[d] ? g.n[d] - 1 : k);
    }
    if (sure) return rank[c[0] + g.n[0] * (c[1] + g.n[1] * c[2])];
  }
  return cell_of<double>(master_position(mv.fixed[i], mv.resid[i], mv.m), g, rank);
}

// cell_count for mixed's master positions.
__global__ void cell_count_master(int n, MasterView mv, GridP g, const int* __restrict__ rank,
                                  int* __restrict__ cell, int* __restrict__ slot,
                                  int* __restrict__ count, Flags* flags) {
  if (!flags->rebuild) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) flags->next_cell = 0;  // for the dynamic build
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int c = master_cell(mv, i, g, rank);
    cell[i] = c;
    slot[i] = atomicAdd(&count[c], 1);
  }
}

constexpr int kScanTile = 1024 * 16;  // cells per tile of cell_scan

// Exclusive scan of the cell counts, one block of 1,024 threads per tile of 16,384 cells (each
// thread 16 consecutive cells, 16-byte loads and stores). Each block first sums the counts of all
// the tiles before its own (coalesced 16-byte loads, a block reduction), so the blocks need no
// ordering between them (2,048,000 atoms: 5 blocks at once instead of one block scanning the
// tiles in turn; ≈ 25 µs less per rebuild, H200).
__global__ void __launch_bounds__(1024) cell_scan(int cells, int n, const int* __restrict__ count,
                                                  int* __restrict__ start, const Flags* flags) {
  if (!flags->rebuild) return;
  constexpr int kPer = 16;
  __shared__ int warp_sums[32];
  __shared__ int tile_end;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  const int base = blockIdx.x * kScanTile;
  int carry = 0;
  {
    int sum = 0;
    const int4* c4 = reinterpret_cast<const int4*>(count);
    for (int q = t; q < base / 4; q += 1024) {
      const int4 v = c4[q];
      sum += v.x + v.y + v.z + v.w;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) warp_sums[w] = sum;
    __syncthreads();
    if (w == 0) {
      int x = warp_sums[lane];
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
      if (lane == 0) tile_end = x;
    }
    __syncthreads();
    carry = tile_end;
    __syncthreads();  // warp_sums is reused below
  }
  {
    const int c0 = base + kPer * t;
    const bool whole = c0 + kPer <= cells;  // 16-byte loads and stores (c0: a multiple of 16)
    int v[kPer], s = 0;
    if (whole) {
#pragma unroll
      for (int u = 0; u < kPer; u += 4) {
        const int4 q = *reinterpret_cast<const int4*>(count + c0 + u);
        v[u] = q.x, v[u + 1] = q.y, v[u + 2] = q.z, v[u + 3] = q.w;
      }
    } else {
#pragma unroll
      for (int u = 0; u < kPer; ++u) v[u] = c0 + u < cells ? count[c0 + u] : 0;
    }
#pragma unroll
    for (int u = 0; u < kPer; ++u) s += v[u];
    int x = s;  // inclusive warp scan
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const int y = __shfl_up_sync(0xffffffffu, x, o);
      if (lane >= o) x += y;
    }
    if (lane == 31) warp_sums[w] = x;
    __syncthreads();
    if (w == 0) {
      const int ws = warp_sums[lane];
      int y = ws;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const int z = __shfl_up_sync(0xffffffffu, y, o);
        if (lane >= o) y += z;
      }
      warp_sums[lane] = y - ws;  // exclusive
    }
    __syncthreads();
    int run = carry + warp_sums[w] + x - s;
#pragma unroll
    for (int u = 0; u < kPer; ++u) {
      const int r = run;
      run += v[u];
      v[u] = r;  // exclusive prefix
    }
    if (whole) {
#pragma unroll
      for (int u = 0; u < kPer; u += 4)
        *reinterpret_cast<int4*>(start + c0 + u) = make_int4(v[u], v[u + 1], v[u + 2], v[u + 3]);
    } else {
#pragma unroll
      for (int u = 0; u < kPer; ++u)
        if (c0 + u < cells) start[c0 + u] = v[u];
    }
  }
  if (t == 0 && blockIdx.x == 0) start[cells] = n;
}

__global__ void cell_scatter(int n, const int* __restrict__ cell, const int* __restrict__ slot,
                             const int* __restrict__ start, int* __restrict__ order,
                             const Flags* flags) {
  if (!flags->rebuild) return;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    order[start[cell[i]] + slot[i]] = i;
}

// The build coordinates of a position: the position itself, or (C float, R double: mixed's float
// lists) the float of its offset from the box's low corner, rounded once.
template <class C, class R>
__device__ __forceinline__ typename Vec4<C>::type build_coordinates(const typename Vec4<R>::type& p,
                                                                    const BoxP<R>& box) {
  if constexpr (std::is_same_v<C, R>) {
    return p;
  } else {
    typename Vec4<C>::type c;
    c.x = C(p.x - box.lo[0]), c.y = C(p.y - box.lo[1]), c.z = C(p.z - box.lo[2]);
    return c;
  }
}

// Sorts each cell's atoms by index (deterministic lists whatever the atomics did) and writes
// their build coordinates (build_coordinates) in cell order, the atom's index in w (cpos: the
// build reads candidates contiguously); zeroes the counts for the next build. A warp per cell: up
// to 32 atoms ranked by shuffles, larger cells by lane 0's insertion sort.
template <class R, class C = R>
__global__ void __launch_bounds__(kBlock)
    cell_sort(int cells, const int* __restrict__ start, int* __restrict__ order,
              int* __restrict__ count, const typename Vec4<R>::type* __restrict__ pos,
              typename Vec4<C>::type* __restrict__ cpos, BoxP<R> box, const Flags* flags,
              MasterView mv = {}) {
  if (!flags->rebuild) return;
  auto position = [&](int j) {  // the double position, or the master one decoded
    if constexpr (std::is_same_v<R, double>) {
      if (mv.fixed) {
        // Coarse: the build coordinates within 2^17 quanta (≪ the band's margin) of the decoded
        // ones; the lists are decided as before (exact band).
        if (mv.coarse) {
          const int4 u = mv.fixed[j];
          if ((u.x != 0) & (u.y != 0) & (u.z != 0)) return coarse_position(u, mv.m);
          return master_position(u, mv.resid[j], mv.m);
        }
        return master_position(mv.fixed[j], mv.resid[j], mv.m);
      }
    }
    return pos[j];
  };
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (kBlock / 32);
  for (int c = blockIdx.x * (kBlock / 32) + (threadIdx.x >> 5); c < cells; c += warps) {
    const int b = start[c], e = start[c + 1], cnt = e - b;
    if (cnt <= 32) {
      const int v = lane < cnt ? order[b + lane] : 0x7fffffff;
      int r = 0;
      for (int m = 0; m < cnt; ++m) r += __shfl_sync(0xffffffffu, v, m) < v;
      if (lane < cnt) {
        order[b + r] = v;
        auto p = build_coordinates<C, R>(position(v), box);
        p.w = index_as<C>(v);
        cpos[b + r] = p;
      }
    } else {
      if (lane == 0)
        for (int k = b + 1; k < e; ++k) {
          const int v = order[k];
          int q = k - 1;
          while (q >= b && order[q] > v) order[q + 1] = order[q], --q;
          order[q + 1] = v;
        }
      __syncwarp();
      for (int k = b + lane; k < e; k += 32) {
        const int j = order[k];
        auto p = build_coordinates<C, R>(position(j), box);
        p.w = index_as<C>(j);
        cpos[k] = p;
      }
    }
    if (lane == 0) count[c] = 0;  // ready for the next build
  }
}

// The end of atom i's list: the staged remainder, the count, the overflow maximum, x0 = r_build.
template <bool Staged, class R4>
__device__ __forceinline__ void finish_list(int i, int count, int (*group)[32], int lane,
                                            int capacity, std::size_t si,
                                            const R4* __restrict__ pos, R4* __restrict__ x0,
                                            int* __restrict__ nbr, int* __restrict__ nbr_count,
                                            Flags* flags) {
  x0[i] = pos[i];
  nbr_count[i] = count;
  if (count > capacity) atomicMax(&flags->overflow, count);
  if (Staged && count <= capacity)
    for (int r = 0; r < (count & 7); ++r)
      nbr[std::size_t(i) * si + (count & ~7) + r] = group[r][lane];
}

// Lane s < 27 of a warp building the lists of home cell c holds stencil cell s: its candidate
// range [qb, qe) and the periodic shift (sx, sy, sz) that moves it next to the home cell (Shifted
// grids, 3 or more cells a side; zero otherwise). All 27 are loaded at once; the stencil is
// −1-terminated when deduplicated, and `cells` (warp-uniform) counts the valid entries.
template <class R>
struct StencilLane {
  int qb = 0, qe = 0, cells = 0;
  R sx = 0, sy = 0, sz = 0;
};
template <class R, bool Shifted>
__device__ __forceinline__ StencilLane<R> load_stencil_lane(int c, int lane,
                                                            const int* __restrict__ start,
                                                            const int* __restrict__ stencil,
                                                            const int4* __restrict__ ccoord,
                                                            const BoxP<R>& box) {
  StencilLane<R> st;
  const int cs = lane < 27 ? stencil[27 * c + lane] : -1;
  if (cs >= 0) {
    st.qb = start[cs], st.qe = start[cs + 1];
    if (Shifted) {
      const int4 home = ccoord[c], q = ccoord[cs];
      const int ddx = q.x - home.x, ddy = q.y - home.y, ddz = q.z - home.z;
      st.sx = ddx > 1 ? box.L[0] : (ddx < -1 ? -box.L[0] : R(0));
      st.sy = ddy > 1 ? box.L[1] : (ddy < -1 ? -box.L[1] : R(0));
      st.sz = ddz > 1 ? box.L[2] : (ddz < -1 ? -box.L[2] : R(0));
    }
  }
  st.cells = __popc(__ballot_sync(0xffffffffu, cs >= 0));
  return st;
}

// The full Verlet list, a warp per cell: lane l owns the cell's atom l (32 at a time), the warp
// stages each stencil cell's positions in shared memory 32 at a time (one coalesced load) and
// every lane tests its atom against them in order, so each list is in stencil/cell order
// (deterministic). Shifted (3 or more cells on every side): a stencil cell lies wholly on one
// periodic image, so its shift (0 or ±L per axis, from the integer cell coordinates) is uniform
// and dx = (xi − xj) + shift is bit for bit the minimum image of every pair within r_list;
// otherwise (deduplicated stencils) each pair takes the minimum image.
//
// Staged (row-major lists, capacity a multiple of 8): each lane collects its atom's neighbors 8 at
// a time in its own column of a shared buffer and writes each full group as two 16-byte stores
// (one whole 32-byte sector) instead of one 4-byte store per neighbor scattered over 18 rows.
template <class R, bool Shifted, bool Staged>
__global__ void __launch_bounds__(kBlock)
    build_list(int cells, const typename Vec4<R>::type* __restrict__ pos,
               const typename Vec4<R>::type* __restrict__ cpos,
               typename Vec4<R>::type* __restrict__ x0, const int* __restrict__ start,
               const int* __restrict__ stencil, const int4* __restrict__ ccoord, BoxP<R> box,
               R r_list2, int capacity, std::size_t si, std::size_t sk, int* __restrict__ nbr,
               int* __restrict__ nbr_count, Flags* flags) {
  using R4 = typename Vec4<R>::type;
  constexpr unsigned kAll = 0xffffffffu;
  if (!flags->rebuild) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) flags->builds += 1;
  __shared__ R4 stage[kBlock / 32][32];
  __shared__ int group[kBlock / 32][8][32];  // [warp][slot][lane]: Staged only
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  R4* st_w = stage[wib];
  const int warps = gridDim.x * (kBlock / 32);
  for (int c = blockIdx.x * (kBlock / 32) + wib; c < cells; c += warps) {  // uniform per warp
    const int b = start[c], e = start[c + 1];
    const StencilLane<R> st = load_stencil_lane<R, Shifted>(c, lane, start, stencil, ccoord, box);
    const int qb = st.qb, qe = st.qe, nst = st.cells;
    const R sx = st.sx, sy = st.sy, sz = st.sz;
    for (int h0 = b; h0 < e; h0 += 32) {
      const int k = h0 + lane;
      const bool mine = k < e;
      R4 p{};
      int i = -1;
      if (mine) p = cpos[k], i = index_of(p.w);
      int count = 0;
      // Chunks of 32 candidates over the stencil cells in order; the next chunk is loaded while
      // the current one is tested.
      int s = 0, q0 = __shfl_sync(kAll, qb, 0), qend = __shfl_sync(kAll, qe, 0);
      while (q0 >= qend && ++s < nst)
        q0 = __shfl_sync(kAll, qb, s), qend = __shfl_sync(kAll, qe, s);
      R4 next{};
      if (s < nst && lane < qend - q0) next = cpos[q0 + lane];
      while (s < nst) {
        const int m = min(32, qend - q0);
        const R shx = __shfl_sync(kAll, sx, s), shy = __shfl_sync(kAll, sy, s),
                shz = __shfl_sync(kAll, sz, s);
        __syncwarp();
        if (lane < m) st_w[lane] = next;
        __syncwarp();
        q0 += 32;
        while (q0 >= qend && ++s < nst)
          q0 = __shfl_sync(kAll, qb, s), qend = __shfl_sync(kAll, qe, s);
        if (s < nst && lane < qend - q0) next = cpos[q0 + lane];
        if (!mine) continue;
#pragma unroll 4
        for (int u = 0; u < m; ++u) {
          const R4 q = st_w[u];
          R dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
          if (Shifted) {
            dx += shx, dy += shy, dz += shz;
          } else {
            dx = min_image(dx, box.L[0], box.half[0]);
            dy = min_image(dy, box.L[1], box.half[1]);
            dz = min_image(dz, box.L[2], box.half[2]);
          }
          const int j = index_of(q.w);
          if (dx * dx + dy * dy + dz * dz < r_list2 && j != i)
            append_neighbor<Staged>(j, i, count, group[wib], lane, capacity, si, sk, nbr);
        }
      }
      if (mine)
        finish_list<Staged>(i, count, group[wib], lane, capacity, si, pos, x0, nbr, nbr_count,
                            flags);
    }
  }
}

// The build of shifted grids (3 or more cells on every side) with screened candidates: the same
// lists in the same order as build_list, with less work. Each candidate is loaded once by one
// lane, moved onto the home cell's periodic image (q − shift: the 32 lanes then test it without
// adding the shift) and kept only if it lies within r_list (plus a rounding margin) of the
// bounding box of the warp's home atoms: ≈ a quarter of the 27-cell stencil's candidates do not
// (the stencil's edge and corner cells). The kept ones are compacted (ballot) into a 64-entry
// shared buffer, and the warp tests them 32 at a time, so that every test pass is full instead
// of one per stencil-cell chunk of ≈ 18.
//
// Exact (mixed with fixed-point positions; R = float): the tests run in float on the float build
// coordinates of cell_sort (offsets from the box's low corner), single's arithmetic, with
// r_list2 = (r_list + m)² for a margin m far above their rounding (ExactBand); a hit at r² ≥
// (r_list − m)² (a few per thousand) is decided again in double from the master positions, as the
// double build decides it, so the lists are exactly the double build's, in the same order. x0 is
// then the fixed-point position (integrate1's displacement test reads 16 bytes instead of 32).
struct ExactBand {
  const Double4* pos = nullptr;  // master positions
  const int4* fixed = nullptr;   // fixed-point positions (FixedP), copied into x0
  int4* x0 = nullptr;
  float lo2 = 0;       // (r_list − m)²: float hits below it need no double test
  float mid2 = 0;      // Exact 3: ((r_list + m)² + (r_list − m)²) / 2, the band's middle
  float half2 = 0;     // Exact 3: ((r_list + m)² − (r_list − m)²) / 2, its half width
  double r_list2 = 0;  // the double build's test
  double L[3] = {}, half[3] = {};
  MasterView mv;  // mixed's master positions: decoded instead of pos
};

// The double build's test of the pair (i, j): minimum image of the master positions, r² < r_list².
__device__ __forceinline__ bool exact_within(const ExactBand& band, int i, int j) {
  const Double4 a =
      band.mv.fixed ? master_position(band.mv.fixed[i], band.mv.resid[i], band.mv.m) : band.pos[i];
  const Double4 b =
      band.mv.fixed ? master_position(band.mv.fixed[j], band.mv.resid[j], band.mv.m) : band.pos[j];
  const double dx = min_image(a.x - b.x, band.L[0], band.half[0]);
  const double dy = min_image(a.y - b.y, band.L[1], band.half[1]);
  const double dz = min_image(a.z - b.z, band.L[2], band.half[2]);
  return dx * dx + dy * dy + dz * dz < band.r_list2;
}

template <class R, bool Staged, int MinB = 1, int Exact = 0>
__global__ void __launch_bounds__(kBlock, MinB)
    build_list_screened(int cells, const typename Vec4<R>::type* __restrict__ pos,
                        const typename Vec4<R>::type* __restrict__ cpos,
                        typename Vec4<R>::type* __restrict__ x0, const int* __restrict__ start,
                        const int* __restrict__ stencil, const int4* __restrict__ ccoord,
                        BoxP<R> box, R r_list2, R screen2, int capacity, std::size_t si,
                        std::size_t sk, int* __restrict__ nbr, int* __restrict__ nbr_count,
                        Flags* flags, ExactBand band) {
  static_assert(!Exact || std::is_same_v<R, float>, "the exact band refines float tests");
  using R4 = typename Vec4<R>::type;
  constexpr unsigned kAll = 0xffffffffu;
  if (!flags->rebuild) return;
  if (blockIdx.x == 0 && threadIdx.x == 0) flags->builds += 1;
  __shared__ R4 buf[kBlock / 32][64];
  __shared__ int group[kBlock / 32][Staged ? kHitSlots : 1][32];  // [warp][slot][lane]: Staged
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  R4* bw = buf[wib];
  const unsigned below = (1u << lane) - 1u;
  // One wave of resident blocks, each warp taking the next home cell from a counter: no tail of
  // a last, partly filled wave (the lists do not depend on which warp builds them).
  auto next_cell = [&]() {
    int c = 0;
    if (lane == 0) c = atomicAdd(&flags->next_cell, 1);
    return __shfl_sync(kAll, c, 0);
  };
  for (int c = next_cell(); c < cells; c = next_cell()) {  // uniform per warp
    const int b = start[c], e = start[c + 1];
    // 27 cells (shifted grids: no duplicates).
    const StencilLane<R> st = load_stencil_lane<R, true>(c, lane, start, stencil, ccoord, box);
    const int qb = st.qb, qe = st.qe, nst = st.cells;
    const R sx = st.sx, sy = st.sy, sz = st.sz;
    for (int h0 = b; h0 < e; h0 += 32) {
      const int k = h0 + lane;
      const bool mine = k < e;
      R4 p{};
      int i = -1;
      if (mine) p = cpos[k], i = index_of(p.w);
      constexpr R kBig = R(1e30);
      const R lx = warp_min(mine ? p.x : kBig), hx = warp_max(mine ? p.x : -kBig);
      const R ly = warp_min(mine ? p.y : kBig), hy = warp_max(mine ? p.y : -kBig);
      const R lz = warp_min(mine ? p.z : kBig), hz = warp_max(mine ? p.z : -kBig);
      int count = 0, fill = 0;
      int written = 0, staged = 0;  // Staged: count = written + staged (stage_hits)
      int* col = group[wib][0] + lane;
      // Tests the lane's atom against bw[0, m). Staged: tested and staged in one predicated pass
      // (stage_hits; Exact: the batch staged again with the double decisions where a hit reached
      // the band, restage_hits), the full groups of 8 written after it. Otherwise the distance
      // tests only set bits of a mask (no branch per candidate), then the lane appends its hits
      // in candidate order.
      // The unstaged build's Exact modes (PAIRWISE_MD_STAGED=0; PAIRWISE_MD_EXACT_MODE):
      // Exact 2: a second mask marks the hits of the band; Exact 1: each hit's r² is computed
      // again and compared with the band. Exact 3: each test takes t = r² − mid2 (the band's
      // middle folded into the FMAs), a hit is t < half2, and one FMNMX keeps the least |t| of
      // the batch (1 instruction a candidate instead of Exact 2's 2); only in a batch with some
      // |t| < half2 (a candidate in the band: ≈ 1 in 3,000) are the hits' t computed again.
      auto band_t = [&](R dx, R dy, R dz) {
        return fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, -band.mid2)));
      };
      auto test = [&](int m) {
        if constexpr (Staged) {
          const int before = staged;
          R far = 0;
          staged = stage_hits<Exact != 0>(m, bw, p.x, p.y, p.z, r_list2, i, col, staged, far);
          if (Exact != 0 && far >= R(band.lo2))
            staged = restage_hits(m, bw, p.x, p.y, p.z, r_list2, R(band.lo2), i, col, before,
                                  [&](int j) { return exact_within(band, i, j); });
          staged = flush_hit_groups(col, staged, written, i, capacity, si, nbr);
        } else {
          unsigned hits = 0, unsure = 0;
          R nearest = R(1e30);  // Exact 3: the least |r² − mid2| of the batch
          auto one = [&](int u) {
            const R4 q = bw[u];
            const R dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
            if constexpr (Exact == 3) {
              const R t = band_t(dx, dy, dz);
              hits |= t < band.half2 ? 1u << u : 0u;
              nearest = fminf(nearest, fabsf(t));
            } else {
              const R r2 = dx * dx + dy * dy + dz * dz;
              hits |= r2 < r_list2 ? 1u << u : 0u;
              if constexpr (Exact == 2) unsure |= r2 >= band.lo2 ? 1u << u : 0u;
            }
          };
          for_each_candidate(m, one);
          while (hits) {
            const int u = __ffs(hits) - 1;
            hits &= hits - 1;
            const R4 q = bw[u];
            const int j = index_of(q.w);
            if (j == i) continue;
            if constexpr (Exact == 1) {
              const R dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
              if (dx * dx + dy * dy + dz * dz >= band.lo2 && !exact_within(band, i, j)) continue;
            } else if constexpr (Exact == 2) {
              if ((unsure >> u & 1u) && !exact_within(band, i, j)) continue;
            } else if constexpr (Exact == 3) {
              if (nearest < band.half2 &&
                  fabsf(band_t(p.x - q.x, p.y - q.y, p.z - q.z)) < band.half2 &&
                  !exact_within(band, i, j))
                continue;
            }
            append_neighbor<false>(j, i, count, group[wib], lane, capacity, si, sk, nbr);
          }
        }
      };
      int s = 0, q0 = __shfl_sync(kAll, qb, 0), qend = __shfl_sync(kAll, qe, 0);
      while (q0 >= qend && ++s < nst)
        q0 = __shfl_sync(kAll, qb, s), qend = __shfl_sync(kAll, qe, s);
      R4 next{};
      if (s < nst && lane < qend - q0) next = cpos[q0 + lane];
      while (s < nst) {
        const bool have = lane < qend - q0;
        R4 q = next;
        q.x -= __shfl_sync(kAll, sx, s), q.y -= __shfl_sync(kAll, sy, s);
        q.z -= __shfl_sync(kAll, sz, s);
        q0 += 32;
        while (q0 >= qend && ++s < nst)
          q0 = __shfl_sync(kAll, qb, s), qend = __shfl_sync(kAll, qe, s);
        if (s < nst && lane < qend - q0) next = cpos[q0 + lane];
        const R ex = max(max(lx - q.x, q.x - hx), R(0));
        const R ey = max(max(ly - q.y, q.y - hy), R(0));
        const R ez = max(max(lz - q.z, q.z - hz), R(0));
        const bool keep = have && ex * ex + ey * ey + ez * ez < screen2;
        const unsigned km = __ballot_sync(kAll, keep);
        if (keep) bw[fill + __popc(km & below)] = q;
        fill += __popc(km);
        if (fill >= 32) {
          __syncwarp();
          if (mine) test(32);
          __syncwarp();
          if (lane < fill - 32) bw[lane] = bw[32 + lane];
          fill -= 32;
          __syncwarp();
        }
      }
      __syncwarp();
      if (mine && fill > 0) test(fill);
      __syncwarp();
      if (mine) {
        if constexpr (Staged) count = written + staged;
        if constexpr (Exact)
          finish_list<Staged>(i, count, group[wib], lane, capacity, si, band.fixed, band.x0, nbr,
                              nbr_count, flags);
        else
          finish_list<Staged>(i, count, group[wib], lane, capacity, si, pos, x0, nbr, nbr_count,
                              flags);
      }
    }
  }
}

}  // namespace
}  // namespace pairwise::md
