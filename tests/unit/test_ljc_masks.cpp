// The per-tile exclusion masks of the CUDA kernels (built on the host): exactly the excluded and
// 1-4 pairs, each atom with itself and the padding are skipped, in both modes and tile sizes.
#include <gtest/gtest.h>

#include <set>

#include "ljc/tile_masks.hpp"
#include "ljc_sets.hpp"

namespace pairwise::test {
namespace {

TEST(LjcTileMasks, SkipExactlyExcludedAnd14Pairs) {
  ljc::Molecule m = ljc_globule(150, 5);
  m.exclusions = {{3, 140}, {77, 12}};
  const auto lists = ljc::derive_pair_lists(m);
  std::set<std::pair<int, int>> skip(lists.excluded.begin(), lists.excluded.end());
  skip.insert(lists.scaled14.begin(), lists.scaled14.end());
  const int n = static_cast<int>(m.size());
  for (int kI : {1, 2}) {
    for (bool n3 : {false, true}) {
      const auto masks = ljc::build_tile_masks(n, lists, kI, n3);
      const int padded = masks.n_blocks * masks.block;
      EXPECT_GE(padded, n);
      long long bits = 0;
      for (auto w : masks.words) bits += __builtin_popcount(w);
      long long expected = 0;
      for (int i = 0; i < padded; ++i) {
        for (int j = 0; j < padded; ++j) {
          const bool want =
              i == j || i >= n || j >= n || skip.count({std::min(i, j), std::max(i, j)}) > 0;
          ASSERT_EQ(masks.skipped(i, j), want) << i << " " << j << " kI " << kI << " n3 " << n3;
          const bool counted =
              !n3 || i / masks.block < j / masks.block || (i / masks.block == j / masks.block);
          if (want && counted) ++expected;
        }
      }
      // Newton-3 tiles off the diagonal hold each pair in one orientation only.
      if (!n3) {
        EXPECT_EQ(bits, expected);
      }
      EXPECT_GT(bits, 0);
    }
  }
  const auto rows = ljc::build_row_masks(n, lists);
  for (int i = 0; i < n; ++i) {
    for (int e = rows.row_start[i] + 1; e < rows.row_start[i + 1]; ++e) {
      EXPECT_LT(rows.entries[2 * (e - 1)], rows.entries[2 * e]);  // sorted by J
    }
    for (int j = 0; j < n; ++j) {
      const bool want = i == j || skip.count({std::min(i, j), std::max(i, j)}) > 0;
      ASSERT_EQ(rows.skipped(i, j), want) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace pairwise::test
