#include "ljc/tile_masks.hpp"

#include <algorithm>
#include <map>

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

}  // namespace pairwise::ljc
