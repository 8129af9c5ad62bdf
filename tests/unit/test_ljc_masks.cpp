// The per-tile exclusion masks of the CUDA kernels (built on the host): exactly the excluded and
// 1-4 pairs, each atom with itself and the padding are skipped, in both modes and tile sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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

// Mixed's near/far tiles (ljc/cuda_tile_args.hpp): the spatial order is a permutation whose
// tiles are smaller boxes than the input order's, and the masks built in it skip exactly the
// excluded and 1-4 pairs of the atoms in those slots.
TEST(LjcTileMasks, SpatialOrderMakesCompactTilesAndKeepsTheSkips) {
  ljc::Molecule m = ljc_globule(1000, 5);
  const auto lists = ljc::derive_pair_lists(m);
  const int n = static_cast<int>(m.size());
  std::set<std::pair<int, int>> skip(lists.excluded.begin(), lists.excluded.end());
  skip.insert(lists.scaled14.begin(), lists.scaled14.end());
  for (int kI : {1, 4}) {
    const int block = 32 * kI;
    const auto order = ljc::spatial_tile_order(n, m.x.data(), m.y.data(), m.z.data(), block);
    std::vector<int> seen(n, 0);
    for (int a : order) ASSERT_TRUE(a >= 0 && a < n && seen[a]++ == 0);
    std::vector<int> identity(n);
    for (int i = 0; i < n; ++i) identity[i] = i;
    double h2_spatial = 0, h2_input = 0;
    for (const auto& b : ljc::tile_boxes(n, m.x.data(), m.y.data(), m.z.data(), order, block))
      h2_spatial += b.h2;
    for (const auto& b : ljc::tile_boxes(n, m.x.data(), m.y.data(), m.z.data(), identity, block))
      h2_input += b.h2;
    EXPECT_LT(h2_spatial, 0.5 * h2_input) << "kI " << kI;
    const auto masks = ljc::build_tile_masks(n, ljc::lists_in_order(lists, order), kI, true);
    for (int s = 0; s < n; ++s) {
      for (int t = 0; t < n; ++t) {
        const int i = order[s], j = order[t];
        const bool want = i == j || skip.count({std::min(i, j), std::max(i, j)}) > 0;
        ASSERT_EQ(masks.skipped(s, t), want) << "slots " << s << " " << t << " kI " << kI;
      }
    }
  }
}

// The far test's bound (cuda_tile_args.hpp) on every pair of every far tile pair, with the
// kernel's arithmetic emulated here: d = fl(fl(x_j - c_J) - fl(x_i - c_J)) against the exact
// displacement, |err| <= 2u(1 + 1/kappa)|d| (u = 2^-24), for the benchmark's lattice (no bonds)
// near the origin and 10^4 Å away from it; and every far pair's distance >= kappa |h_J|.
TEST(LjcTileMasks, FarTilePairsKeepTheirDisplacementErrorBound) {
  ljc::GlobuleOptions o;
  o.n = 4096, o.spacing = 4.0, o.jitter = 0.3, o.bonds = false, o.moves = 0;
  const ljc::Molecule base = ljc::make_globule(o);
  const int n = static_cast<int>(base.size()), block = 128;
  const double u = std::ldexp(1.0, -24);
  for (double shift : {0.0, 1.0e4}) {
    ljc::Molecule m = base;
    for (int i = 0; i < n; ++i) m.x[i] += shift, m.y[i] -= 0.7 * shift, m.z[i] += 0.3 * shift;
    const auto order = ljc::spatial_tile_order(n, m.x.data(), m.y.data(), m.z.data(), block);
    const auto boxes = ljc::tile_boxes(n, m.x.data(), m.y.data(), m.z.data(), order, block);
    for (double kappa : {1.0, 2.0}) {
      long long far_pairs = 0;
      double worst = 0;  // max |err| / (u |d|)
      const int nb = int(boxes.size());
      for (int I = 0; I < nb; ++I) {
        for (int J = I + 1; J < nb; ++J) {
          if (!ljc::cuda::far_tile_pair(boxes[I], boxes[J], kappa)) continue;
          const double* c = boxes[J].c;
          for (int s = I * block; s < std::min(n, (I + 1) * block); ++s) {
            const int i = order[s];
            const double xi[3] = {m.x[i], m.y[i], m.z[i]};
            // The target as the kernel has it: double-single hi + lo.
            float t[3];
            for (int k = 0; k < 3; ++k) {
              const float hi = float(xi[k]), lo = float(xi[k] - double(hi));
              t[k] = float((double(hi) + double(lo)) - c[k]);
            }
            for (int r = J * block; r < std::min(n, (J + 1) * block); ++r) {
              const int j = order[r];
              const double xj[3] = {m.x[j], m.y[j], m.z[j]};
              double d2 = 0, e2 = 0;
              for (int k = 0; k < 3; ++k) {
                const float sj = float(xj[k] - c[k]);
                const float d = sj - t[k];
                const double exact = xj[k] - xi[k];
                d2 += exact * exact;
                e2 += (double(d) - exact) * (double(d) - exact);
              }
              ASSERT_GE(d2, kappa * kappa * boxes[J].h2);
              worst = std::max(worst, std::sqrt(e2 / d2) / u);
              ++far_pairs;
            }
          }
        }
      }
      std::printf("shift %g Å, kappa %g: %lld far pairs, worst |err|/(u|d|) = %.3f (bound %.3f)\n",
                  shift, kappa, far_pairs, worst, 2 * (1 + 1 / kappa));
      EXPECT_GT(far_pairs, (long long)n * n / 16);
      EXPECT_LE(worst, 2 * (1 + 1 / kappa) * (1 + 1e-6));
    }
  }
}

// The near fraction of the benchmark's system (../shared/BENCHMARKS.md: pairwise bench ljc) at
// N = 65,536 in 128-atom tiles, printed for docs/performance.md: most tile pairs are far.
TEST(LjcTileMasks, BenchmarkSystemIsMostlyFarTiles) {
  ljc::GlobuleOptions o;
  o.n = 65536, o.spacing = 4.0, o.jitter = 0.3, o.bonds = false, o.moves = 0;
  const ljc::Molecule m = ljc::make_globule(o);
  const int n = static_cast<int>(m.size()), block = 128;
  const auto order = ljc::spatial_tile_order(n, m.x.data(), m.y.data(), m.z.data(), block);
  const auto boxes = ljc::tile_boxes(n, m.x.data(), m.y.data(), m.z.data(), order, block);
  const auto masks = ljc::build_tile_masks(n, ljc::lists_in_order({}, order), 4, true);
  for (double kappa : {1.0, 1.5, 2.0, 4.0}) {
    const double f = ljc::near_tile_fraction(boxes, masks, kappa);
    std::printf("N = %d, kappa %g: near fraction %.4f of %lld tiles\n", n, kappa, f, masks.tiles());
    EXPECT_LT(f, kappa <= ljc::kNearFarKappa ? 0.1 : 0.5);  // measured 0.043 at kappa 1
  }
}

}  // namespace
}  // namespace pairwise::test
