#include "ljc/tile_masks.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace pairwise::ljc {
namespace {

struct Builder {
  TileMasks& m;
  int words_per_tile;
  std::uint32_t* tile(int I, int J) {
    int& idx = m.index[(long long)I * m.n_blocks + J];
    if (idx < 0) {
      idx = static_cast<int>(m.words.size() / words_per_tile);
      m.words.resize(m.words.size() + words_per_tile, 0u);
    }
    return m.words.data() + (long long)idx * words_per_tile;
  }
  // Marks (target i, source j) as skipped in its tile.
  void set(int i, int j) {
    const int B = m.block, kI = m.i_per_lane;
    const int I = i / B, J = j / B;
    const int k = (i % B) / 32, lane = i % 32, u = (j % B) / 32, jl = j % 32;
    const int s = (jl - lane) & 31;
    tile(I, J)[(k * kI + u) * 32 + lane] |= 1u << s;
  }
  // A pair of the sum: in newton3 mode only the tile with J >= I holds it (both orders in a
  // diagonal tile, which runs one-sided).
  void skip_pair(int i, int j) {
    if (m.newton3) {
      if (i / m.block > j / m.block) std::swap(i, j);
      set(i, j);
      if (i / m.block == j / m.block) set(j, i);
    } else {
      set(i, j);
      set(j, i);
    }
  }
};

}  // namespace

bool TileMasks::skipped(int i, int j) const {
  const int B = block, kI = i_per_lane;
  int I = i / B, J = j / B;
  if (newton3 && I > J) {
    std::swap(i, j);
    std::swap(I, J);
  }
  const int idx = index[(long long)I * n_blocks + J];
  if (idx < 0) return false;
  const int k = (i % B) / 32, lane = i % 32, u = (j % B) / 32, jl = j % 32;
  const int s = (jl - lane) & 31;
  return (words[(long long)idx * kI * kI * 32 + (k * kI + u) * 32 + lane] >> s) & 1u;
}

TileMasks build_tile_masks(int n, const PairLists& lists, int i_per_lane, bool newton3) {
  TileMasks m;
  m.i_per_lane = i_per_lane;
  m.block = 32 * i_per_lane;
  m.n_blocks = (n + m.block - 1) / m.block;
  m.newton3 = newton3;
  m.index.assign((std::size_t)m.n_blocks * m.n_blocks, -1);
  Builder b{m, i_per_lane * i_per_lane * 32};
  for (int i = 0; i < n; ++i) b.set(i, i);
  for (auto [i, j] : lists.excluded) b.skip_pair(i, j);
  for (auto [i, j] : lists.scaled14) b.skip_pair(i, j);
  // Padding: every pair with an atom past n in the last block.
  const int padded = m.n_blocks * m.block;
  if (padded > n) {
    const int last = m.n_blocks - 1;
    for (int other = 0; other < m.n_blocks; ++other) {
      for (int p = n; p < padded; ++p) {
        for (int x = other * m.block; x < (other + 1) * m.block; ++x) {
          if (newton3 && other < last) {
            b.set(x, p);  // tile (other, last): the padding is a source
          } else {
            b.set(p, x);
            b.set(x, p);
          }
        }
      }
    }
  }
  return m;
}

bool RowMasks::skipped(int i, int j) const {
  for (int e = row_start[i]; e < row_start[i + 1]; ++e) {
    if (entries[2 * e] == j / 32) return (std::uint32_t(entries[2 * e + 1]) >> (j % 32)) & 1u;
  }
  return false;
}

RowMasks build_row_masks(int n, const PairLists& lists) {
  std::vector<std::map<int, std::uint32_t>> rows(n);
  auto set = [&](int i, int j) { rows[i][j / 32] |= 1u << (j % 32); };
  for (int i = 0; i < n; ++i) set(i, i);
  for (const auto* list : {&lists.excluded, &lists.scaled14}) {
    for (auto [i, j] : *list) set(i, j), set(j, i);
  }
  RowMasks m;
  m.row_start.assign(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    m.row_start[i + 1] = m.row_start[i] + int(rows[i].size());
    for (auto [block, bits] : rows[i]) {
      m.entries.push_back(block);
      m.entries.push_back(std::int32_t(bits));
    }
  }
  return m;
}

std::vector<int> spatial_tile_order(int n, const double* x, const double* y, const double* z,
                                    int block) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  const double* p[3] = {x, y, z};
  auto split = [&](auto&& self, int lo, int hi) -> void {
    const int tiles = (hi - lo + block - 1) / block;
    if (tiles <= 1) return;
    double mn[3], mx[3];
    for (int c = 0; c < 3; ++c) mn[c] = mx[c] = p[c][order[lo]];
    for (int k = lo + 1; k < hi; ++k) {
      for (int c = 0; c < 3; ++c) {
        mn[c] = std::min(mn[c], p[c][order[k]]);
        mx[c] = std::max(mx[c], p[c][order[k]]);
      }
    }
    int axis = 0;
    for (int c = 1; c < 3; ++c) {
      if (mx[c] - mn[c] > mx[axis] - mn[axis]) axis = c;
    }
    const double* q = p[axis];
    const int mid = lo + (tiles / 2) * block;
    std::nth_element(order.begin() + lo, order.begin() + mid, order.begin() + hi,
                     [q](int a, int b) { return q[a] < q[b] || (q[a] == q[b] && a < b); });
    self(self, lo, mid);
    self(self, mid, hi);
  };
  split(split, 0, n);
  return order;
}

PairLists lists_in_order(const PairLists& lists, const std::vector<int>& order) {
  std::vector<int> slot(order.size());
  for (std::size_t s = 0; s < order.size(); ++s) slot[order[s]] = int(s);
  PairLists out;
  for (auto [i, j] : lists.excluded) out.excluded.emplace_back(slot[i], slot[j]);
  for (auto [i, j] : lists.scaled14) out.scaled14.emplace_back(slot[i], slot[j]);
  return out;
}

std::vector<cuda::TileBox> tile_boxes(int n, const double* x, const double* y, const double* z,
                                      const std::vector<int>& order, int block) {
  const int n_blocks = (n + block - 1) / block;
  std::vector<cuda::TileBox> boxes(n_blocks);
  for (int b = 0; b < n_blocks; ++b) {
    double lo[3] = {1e300, 1e300, 1e300}, hi[3] = {-1e300, -1e300, -1e300};
    for (int s = b * block; s < std::min(n, (b + 1) * block); ++s) {
      const double v[3] = {x[order[s]], y[order[s]], z[order[s]]};
      for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], v[c]), hi[c] = std::max(hi[c], v[c]);
    }
    boxes[b] = cuda::make_tile_box(lo, hi);
  }
  return boxes;
}

double near_tile_fraction(const std::vector<cuda::TileBox>& boxes, const TileMasks& masks,
                          double kappa) {
  const int nb = masks.n_blocks;
  long long near = 0, all = 0;
  for (int I = 0; I < nb; ++I) {
    for (int J = I; J < nb; ++J) {
      ++all;
      if (masks.index[(long long)I * nb + J] >= 0 ||
          !cuda::far_tile_pair(boxes[I], boxes[J], kappa))
        ++near;
    }
  }
  return all > 0 ? double(near) / double(all) : 0.0;
}

}  // namespace pairwise::ljc
