#include "engine/cell_list.hpp"

#include <omp.h>
#include <algorithm>
#include <cmath>

namespace pairwise::engine {

int CellGrid::coord(int d, double x) const {
  double f = (x - lo[d]) / length[d];
  f -= std::floor(f);
  // A position that is not finite (a blow-up, which the run's bad-atom test reports) gives NaN
  // here; converting NaN to int is undefined, so such an atom goes to cell 0.
  if (std::isnan(f)) f = 0.0;
  int c = int(f * n[d]);
  return c >= n[d] ? n[d] - 1 : (c < 0 ? 0 : c);
}

int CellGrid::cell_of(double x, double y, double z) const {
  return rank[std::size_t(coord(0, x) + n[0] * (coord(1, y) + n[1] * coord(2, z)))];
}

std::vector<int> morton_ranks(std::array<int, 3> n) {
  auto spread = [](std::uint64_t v) {
    std::uint64_t r = 0;
    for (int b = 0; b < 21; ++b) r |= ((v >> b) & 1u) << (3 * b);
    return r;
  };
  const std::size_t total = std::size_t(n[0]) * n[1] * n[2];
  std::vector<std::pair<std::uint64_t, int>> keys(total);
  for (int cz = 0; cz < n[2]; ++cz)
    for (int cy = 0; cy < n[1]; ++cy)
      for (int cx = 0; cx < n[0]; ++cx) {
        const int c = cx + n[0] * (cy + n[1] * cz);
        keys[c] = {spread(cx) | (spread(cy) << 1) | (spread(cz) << 2), c};
      }
  std::sort(keys.begin(), keys.end());
  std::vector<int> rank(total);
  for (std::size_t r = 0; r < total; ++r) rank[keys[r].second] = int(r);
  return rank;
}

CellGrid make_cell_grid(std::array<double, 3> lo, std::array<double, 3> length, double min_cell) {
  CellGrid g;
  g.lo = lo;
  g.length = length;
  for (int d = 0; d < 3; ++d) {
    g.n[d] = std::max(1, int(std::floor(length[d] / min_cell)));
    g.n[d] = std::min(g.n[d], 1 << 10);
    g.inv_cell[d] = g.n[d] / length[d];
  }
  g.rank = morton_ranks(g.n);
  return g;
}

void build_cell_list(const CellGrid& grid, std::size_t n, const double* x, const double* y,
                     const double* z, CellList& cells) {
  const int total = grid.total();
  cells.cell.resize(n);
  cells.start.assign(std::size_t(total) + 1, 0);
  cells.order.resize(n);
  const std::ptrdiff_t sn = std::ptrdiff_t(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < sn; ++i) cells.cell[i] = grid.cell_of(x[i], y[i], z[i]);
  for (std::size_t i = 0; i < n; ++i) ++cells.start[std::size_t(cells.cell[i]) + 1];
  for (int c = 0; c < total; ++c) cells.start[c + 1] += cells.start[c];
  std::vector<int> fill(cells.start.begin(), cells.start.end() - 1);
  for (std::size_t i = 0; i < n; ++i) cells.order[std::size_t(fill[cells.cell[i]]++)] = int(i);
}

std::vector<int> cell_stencils(const CellGrid& grid) {
  const int total = grid.total();
  std::vector<int> st(std::size_t(total) * 27, -1);
  for (int cz = 0; cz < grid.n[2]; ++cz)
    for (int cy = 0; cy < grid.n[1]; ++cy)
      for (int cx = 0; cx < grid.n[0]; ++cx) {
        const int c = grid.rank[std::size_t(cx + grid.n[0] * (cy + grid.n[1] * cz))];
        int k = 0;
        int* out = &st[std::size_t(c) * 27];
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nx = (cx + dx + grid.n[0]) % grid.n[0];
              const int ny = (cy + dy + grid.n[1]) % grid.n[1];
              const int nz = (cz + dz + grid.n[2]) % grid.n[2];
              const int nc = grid.rank[std::size_t(nx + grid.n[0] * (ny + grid.n[1] * nz))];
              if (std::find(out, out + k, nc) == out + k) out[k++] = nc;
            }
      }
  return st;
}

void build_neighbor_list(const CellGrid& grid, const CellList& cells, std::size_t n,
                         const double* x, const double* y, const double* z, double r_list,
                         bool half, NeighborList& list) {
  const std::vector<int> stencil = cell_stencils(grid);
  const double r2 = r_list * r_list;
  const double Lx = grid.length[0], Ly = grid.length[1], Lz = grid.length[2];
  list.half = half;
  list.shifted = false;
  if (list.capacity <= 0) list.capacity = 64;
  list.count.assign(n, 0);
  const std::ptrdiff_t sn = std::ptrdiff_t(n);
  for (;;) {
    list.index.resize(n * std::size_t(list.capacity));
    int worst = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : worst)
    for (std::ptrdiff_t s = 0; s < sn; ++s) {
      const int i = cells.order[s];  // in cell order: neighbors found together stay in cache
      const int* st = &stencil[std::size_t(cells.cell[i]) * 27];
      int* out = &list.index[std::size_t(i) * list.capacity];
      int c = 0;
      const double xi = x[i], yi = y[i], zi = z[i];
      for (int k = 0; k < 27 && st[k] >= 0; ++k) {
        for (int q = cells.start[st[k]]; q < cells.start[st[k] + 1]; ++q) {
          const int j = cells.order[q];
          if (half ? j <= i : j == i) continue;
          const double dx = minimum_image(xi - x[j], Lx), dy = minimum_image(yi - y[j], Ly),
                       dz = minimum_image(zi - z[j], Lz);
          if (dx * dx + dy * dy + dz * dz < r2) {
            if (c < list.capacity) out[c] = j;
            ++c;
          }
        }
      }
      list.count[i] = c;
      worst = std::max(worst, c);
    }
    ++list.rebuilds;
    if (worst <= list.capacity) break;
    list.capacity = worst + worst / 8 + 1;  // overflow: regrow and rebuild now
    ++list.regrows;
  }
}

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PW_CLONES
#endif

// Squared distances from (xi, yi, zi) to m candidates shifted by (sx, sy, sz): d = (r_i − r_j) −
// shift, the same rounding as the minimum image of brute_force_pairs. Built for AVX2 and the
// baseline, picked at run time.
PW_CLONES void distance_block(const double* __restrict__ x, const double* __restrict__ y,
                              const double* __restrict__ z, int m, double xi, double yi, double zi,
                              double sx, double sy, double sz, double* __restrict__ d2) {
  for (int k = 0; k < m; ++k) {
    const double dx = (xi - x[k]) - sx, dy = (yi - y[k]) - sy, dz = (zi - z[k]) - sz;
    d2[k] = dx * dx + dy * dy + dz * dz;
  }
}

}  // namespace

bool build_half_list_shifted(const CellGrid& grid, const CellList& cells, std::size_t n,
                             const double* x, const double* y, const double* z, double r_list,
                             NeighborList& list, int radius) {
  for (int d = 0; d < 3; ++d)
    if (grid.n[d] < 2 * radius + 1 || grid.length[d] / grid.n[d] * radius < r_list * (1 - 1e-12))
      return false;
  if (n >= (std::size_t(1) << 26)) return false;  // j * 32 must fit an int
  // The half stencil: offsets (dx, dy, dz) lexicographically after (0, 0, 0), plus (0, 0, 0).
  struct Offset {
    int dx, dy, dz;
  };
  std::vector<Offset> half;
  for (int dz = -radius; dz <= radius; ++dz)
    for (int dy = -radius; dy <= radius; ++dy)
      for (int dx = -radius; dx <= radius; ++dx)
        if (dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0)))) half.push_back({dx, dy, dz});
  const double r2 = r_list * r_list;
  const std::array<double, 3> L = grid.length;
  // Inverse of the Morton ranks: cell number -> coordinates.
  std::vector<std::array<int, 3>> coords(std::size_t(grid.total()));
  for (int cz = 0; cz < grid.n[2]; ++cz)
    for (int cy = 0; cy < grid.n[1]; ++cy)
      for (int cx = 0; cx < grid.n[0]; ++cx)
        coords[std::size_t(grid.rank[std::size_t(cx + grid.n[0] * (cy + grid.n[1] * cz))])] = {
            cx, cy, cz};
  list.half = true;
  list.shifted = true;
  if (list.capacity <= 0) list.capacity = 64;
  list.count.assign(n, 0);
  const std::ptrdiff_t sn = std::ptrdiff_t(n);
  // Positions in cell order (structure of arrays): each cell's candidates are contiguous, and
  // their distances are computed in a vectorized loop (distance_block), then compacted.
  std::vector<double> cx(n), cy(n), cz(n);
  std::vector<int> cj(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t k = 0; k < sn; ++k) {
    const int j = cells.order[k];
    cx[k] = x[j], cy[k] = y[j], cz[k] = z[j], cj[k] = j;
  }
  std::size_t widest = 0;
  for (int c = 0; c < grid.total(); ++c)
    widest = std::max(widest, std::size_t(cells.start[c + 1] - cells.start[c]));
  for (;;) {
    list.index.resize(n * std::size_t(list.capacity));
    int worst = 0;
#pragma omp parallel reduction(max : worst)
    {
      std::vector<double> d2(widest);
      // The atom's entries, appended without a branch per candidate (every candidate is written,
      // the count advances only for a neighbor), then copied to the list up to its capacity.
      std::vector<int> kept(half.size() * widest);
#pragma omp for schedule(dynamic, 256)
      for (std::ptrdiff_t s = 0; s < sn; ++s) {
        const int i = cells.order[s];
        const auto& c = coords[std::size_t(cells.cell[i])];
        int* out = &list.index[std::size_t(i) * list.capacity];
        int* keep = kept.data();
        int count = 0;
        const double xi = x[i], yi = y[i], zi = z[i];
        for (const Offset& o : half) {
          int q[3] = {c[0] + o.dx, c[1] + o.dy, c[2] + o.dz};
          int sh[3];
          for (int d = 0; d < 3; ++d) {
            sh[d] = q[d] < 0 ? -1 : (q[d] >= grid.n[d] ? 1 : 0);
            q[d] -= sh[d] * grid.n[d];
          }
          const int nc = grid.rank[std::size_t(q[0] + grid.n[0] * (q[1] + grid.n[1] * q[2]))];
          const bool own = o.dx == 0 && o.dy == 0 && o.dz == 0;
          const double sx = sh[0] * L[0], sy = sh[1] * L[1], sz = sh[2] * L[2];
          const int code = shift_code(sh[0], sh[1], sh[2]);
          const int b = cells.start[nc], m = cells.start[nc + 1] - b;
          distance_block(cx.data() + b, cy.data() + b, cz.data() + b, m, xi, yi, zi, sx, sy, sz,
                         d2.data());
          const int* cjb = cj.data() + b;
          for (int k = 0; k < m; ++k) {
            const int j = cjb[k];
            keep[count] = j * 32 + code;
            count += int(d2[std::size_t(k)] < r2) & int(!own || j > i);
          }
        }
        std::copy_n(keep, std::min(count, list.capacity), out);
        list.count[i] = count;
        worst = std::max(worst, count);
      }
    }
    ++list.rebuilds;
    if (worst <= list.capacity) return true;
    list.capacity = worst + worst / 8 + 1;
    ++list.regrows;
  }
}

std::vector<std::pair<int, int>> brute_force_pairs(std::size_t n, const double* x, const double* y,
                                                   const double* z, std::array<double, 3> length,
                                                   double r_list) {
  std::vector<std::pair<int, int>> pairs;
  const double r2 = r_list * r_list;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const double dx = minimum_image(x[i] - x[j], length[0]);
      const double dy = minimum_image(y[i] - y[j], length[1]);
      const double dz = minimum_image(z[i] - z[j], length[2]);
      if (dx * dx + dy * dy + dz * dz < r2) pairs.emplace_back(int(i), int(j));
    }
  return pairs;
}

std::vector<std::pair<int, int>> list_pairs(const NeighborList& list) {
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t i = 0; i < list.count.size(); ++i)
    for (int k = 0; k < list.count[i]; ++k) {
      int j = list.index[i * list.capacity + k];
      if (list.shifted) j >>= 5;
      if (list.half || int(i) < j) pairs.emplace_back(std::min(int(i), j), std::max(int(i), j));
    }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

std::pair<double, double> two_largest_displacements(std::size_t n, const double* x, const double* y,
                                                    const double* z, const double* x0,
                                                    const double* y0, const double* z0,
                                                    std::array<double, 3> length) {
  double best1 = 0, best2 = 0;
#pragma omp parallel
  {
    double b1 = 0, b2 = 0;  // stage 1: per thread
#pragma omp for schedule(static) nowait
    for (std::ptrdiff_t i = 0; i < std::ptrdiff_t(n); ++i) {
      const double dx = minimum_image(x[i] - x0[i], length[0]);
      const double dy = minimum_image(y[i] - y0[i], length[1]);
      const double dz = minimum_image(z[i] - z0[i], length[2]);
      const double d2 = dx * dx + dy * dy + dz * dz;
      if (d2 > b1) {
        b2 = b1, b1 = d2;
      } else if (d2 > b2) {
        b2 = d2;
      }
    }
#pragma omp critical  // stage 2: merge the per-thread pairs
    {
      for (double d2 : {b1, b2}) {
        if (d2 > best1) {
          best2 = best1, best1 = d2;
        } else if (d2 > best2) {
          best2 = d2;
        }
      }
    }
  }
  return {std::sqrt(best1), std::sqrt(best2)};
}

}  // namespace pairwise::engine
