// Host cell lists and Verlet (neighbor) lists for short-range pair interactions in a periodic
// orthorhombic box (DESIGN.md, engine). The CUDA versions in src/md/cuda_md.cu follow the same
// layout and rules, and tests compare both with brute_force_pairs.
//
//   CellGrid grid = make_cell_grid(lo, length, r_list);   // cells at least r_list wide
//   CellList cells; build_cell_list(grid, n, x, y, z, cells);  // counting sort by cell
//   NeighborList list; build_neighbor_list(grid, cells, n, x, y, z, r_list, half, list);
//
// Cells are numbered along a space-filling curve (Morton order of the cell coordinates), so
// atoms sorted by cell (`cells.order`) are also sorted along the curve: reordering storage by it
// keeps neighbors close in memory. Any number of cells per side works: the 27-cell stencil is
// deduplicated when a side has fewer than 3 cells. Minimum-image
// pairs are exact only when every box length is >= 2 r_list (validate() in md checks it).
//
// Neighbor lists have a capacity per atom; an atom with more neighbors sets `overflow`, the
// capacity grows to the largest count seen, and the list is rebuilt in the same call: never
// truncated (DESIGN.md principle 6).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pairwise::engine {

struct CellGrid {
  std::array<int, 3> n{1, 1, 1};  // cells per side
  std::array<double, 3> lo{}, length{},
      inv_cell{};  // box origin, box lengths, cells per unit length
  int total() const { return n[0] * n[1] * n[2]; }
  std::vector<int> rank;  // Morton rank of cell (cx + n0 (cy + n1 cz)): its number in the lists
  // Cell coordinate of a position (positions outside the box are folded in periodically).
  int coord(int d, double x) const;
  int cell_of(double x, double y, double z) const;  // the ranked cell number
};

CellGrid make_cell_grid(std::array<double, 3> lo, std::array<double, 3> length, double min_cell);

// The Morton ranks of an n0 × n1 × n2 grid: rank[cx + n0 (cy + n1 cz)] in 0..total-1.
std::vector<int> morton_ranks(std::array<int, 3> n);

struct CellList {
  std::vector<int> start;  // total + 1 offsets into `order`
  std::vector<int> order;  // atom indices sorted by cell (stable: by index within a cell)
  std::vector<int> cell;   // cell number of each atom
};

// Counting sort of atoms into cells (parallel count, prefix sum, stable scatter).
void build_cell_list(const CellGrid& grid, std::size_t n, const double* x, const double* y,
                     const double* z, CellList& cells);

// The distinct neighbor cells (including the cell itself) of every cell, deduplicated for grids
// with fewer than 3 cells per side: stencil[c * 27 + k], -1 padding.
std::vector<int> cell_stencils(const CellGrid& grid);

struct NeighborList {
  bool half = true;        // each pair once (j > i) or both ways
  bool shifted = false;    // entries are j * 32 + shift code (build_half_list_shifted)
  int capacity = 0;        // slots per atom
  std::vector<int> count;  // neighbors of atom i
  std::vector<int> index;  // index[i * capacity + k]
  int rebuilds = 0;        // times built
  int regrows = 0;         // times the capacity grew
};

// All pairs within r_list (minimum image). Grows the capacity and rebuilds on overflow.
void build_neighbor_list(const CellGrid& grid, const CellList& cells, std::size_t n,
                         const double* x, const double* y, const double* z, double r_list,
                         bool half, NeighborList& list);

// A half list from the half stencil of `radius` cells (radius 1: the own cell with j > i and the
// 13 cells ahead, cells >= r_list wide; radius 2: 62 cells ahead, cells >= r_list / 2 wide, 44 %
// fewer candidates), for grids with at least 2 radius + 1 cells per side, each entry packing j * 32
// + a periodic shift code s: the pair's displacement is r_i − (r_j + shift(s)), shift(s) = L · (s %
// 3 − 1, s / 3 % 3 − 1, s / 9 − 1), exact without a minimum image for as long as the positions are
// not re-wrapped (the cpu engine wraps only when it rebuilds). Positions must lie in the box.
// Returns false (and builds nothing) when a side has too few cells or cells too narrow for the
// radius.
bool build_half_list_shifted(const CellGrid& grid, const CellList& cells, std::size_t n,
                             const double* x, const double* y, const double* z, double r_list,
                             NeighborList& list, int radius = 1);
inline int shift_code(int sx, int sy, int sz) {
  return (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1);
}

// Minimum image of a displacement component for box length L (|d| <= 1.5 L assumed).
inline double minimum_image(double d, double L) {
  if (d > 0.5 * L) return d - L;
  if (d < -0.5 * L) return d + L;
  return d;
}

// Brute force: every pair (i < j) with minimum-image distance < r_list. The oracle of the tests.
std::vector<std::pair<int, int>> brute_force_pairs(std::size_t n, const double* x, const double* y,
                                                   const double* z, std::array<double, 3> length,
                                                   double r_list);
// The pairs (i < j) of a neighbor list, sorted.
std::vector<std::pair<int, int>> list_pairs(const NeighborList& list);

// Largest and second-largest displacement |r − r_build| (minimum image): Liu et al.'s rebuild
// test is d1 + d2 > skin.
std::pair<double, double> two_largest_displacements(std::size_t n, const double* x, const double* y,
                                                    const double* z, const double* x0,
                                                    const double* y0, const double* z0,
                                                    std::array<double, 3> length);

}  // namespace pairwise::engine
