// Neighbor lists equal, as sets, the brute-force list of pairs within rc + skin (minimum image):
// random gas, fcc solid, dense liquid, a nearly empty box, atoms exactly on cell boundaries, boxes
// of 3 and of many cells per side; for the engine-level cell/Verlet lists (half and full), every
// md engine (after steps, so rebuilds and reorders are exercised), and a list that overflows its
// capacity (regrown, never truncated).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backend_params.hpp"
#include "engine/cell_list.hpp"
#include "md/engine.hpp"
#include "md_systems.hpp"

namespace {

using namespace pairwise;
using Pairs = std::vector<std::pair<int, int>>;

struct Geometry {
  const char* name;
  md::System system;
};

std::vector<Geometry> geometries() {
  std::vector<Geometry> g;
  g.push_back({"random gas", test::random_gas(400, 12.0, 3)});
  g.push_back({"fcc solid", md::make_lattice("fcc", 0.8442, {5, 5, 5})});
  // Jitter 0.35 at nearest-neighbour distance 1.14: some atoms nearly overlap (lists only).
  g.push_back({"dense liquid", test::jittered_lattice("fcc", 0.95, 5, 0.35, 9)});
  // No closer than 1.12 - 2·√3·0.05 ≈ 0.95 σ, at T = 2: moves far enough in 40 steps to rebuild.
  g.push_back({"warm liquid", test::jittered_lattice("fcc", 0.8442, 5, 0.05, 11, 2.0)});
  g.push_back({"nearly empty", test::random_gas(3, 9.0, 4)});
  {
    // On cell boundaries: coordinates at multiples of the cell width (box 3 × 2.8 → 3 cells).
    md::System s = test::random_gas(0, 8.4, 1);
    std::vector<double> at = {0.0, 2.8, 5.6, 1.4, 4.2, 7.0};
    for (double x : at)
      for (double y : at)
        for (double z : {0.0, 2.8, 5.6}) {
          s.atoms.id.push_back(std::uint32_t(s.atoms.id.size() + 1));
          s.atoms.type.push_back(1);
          s.atoms.x.push_back(x), s.atoms.y.push_back(y), s.atoms.z.push_back(z);
          s.atoms.vx.push_back(0), s.atoms.vy.push_back(0), s.atoms.vz.push_back(0);
          s.atoms.ix.push_back(0), s.atoms.iy.push_back(0), s.atoms.iz.push_back(0);
        }
    g.push_back({"cell boundaries, 3 cells per side", s});
  }
  g.push_back({"many cells per side", test::random_gas(3000, 40.0, 5)});
  return g;
}

Pairs brute(const md::System& s, double r) {
  return engine::brute_force_pairs(s.atoms.size(), s.atoms.x.data(), s.atoms.y.data(),
                                   s.atoms.z.data(),
                                   {s.box.length(0), s.box.length(1), s.box.length(2)}, r);
}

TEST(NeighborList, EngineListsEqualBruteForce) {
  const double r_list = 2.8;
  for (const auto& [name, s] : geometries()) {
    const Pairs expected = brute(s, r_list);
    const std::array<double, 3> len{s.box.length(0), s.box.length(1), s.box.length(2)};
    const auto grid = engine::make_cell_grid(s.box.lo, len, r_list);
    engine::CellList cells;
    engine::build_cell_list(grid, s.atoms.size(), s.atoms.x.data(), s.atoms.y.data(),
                            s.atoms.z.data(), cells);
    for (bool half : {true, false}) {
      engine::NeighborList list;
      list.capacity = 2;  // forces regrowth for all but the emptiest geometries
      engine::build_neighbor_list(grid, cells, s.atoms.size(), s.atoms.x.data(), s.atoms.y.data(),
                                  s.atoms.z.data(), r_list, half, list);
      EXPECT_EQ(engine::list_pairs(list), expected) << name << (half ? " half" : " full");
      if (!expected.empty() && std::string(name) != "nearly empty") {
        EXPECT_GT(list.regrows, 0);
      }
    }
    // The half-stencil list with periodic shift codes (grids of >= 3 cells per side).
    engine::NeighborList shifted;
    shifted.capacity = 2;
    const bool built =
        engine::build_half_list_shifted(grid, cells, s.atoms.size(), s.atoms.x.data(),
                                        s.atoms.y.data(), s.atoms.z.data(), r_list, shifted);
    EXPECT_EQ(built, grid.n[0] >= 3 && grid.n[1] >= 3 && grid.n[2] >= 3) << name;
    if (built) {
      EXPECT_EQ(engine::list_pairs(shifted), expected) << name << " shifted";
    }
    // Radius 2 on half-width cells.
    const auto half_grid = engine::make_cell_grid(s.box.lo, len, 0.5 * r_list);
    engine::CellList half_cells;
    engine::build_cell_list(half_grid, s.atoms.size(), s.atoms.x.data(), s.atoms.y.data(),
                            s.atoms.z.data(), half_cells);
    engine::NeighborList wide;
    if (engine::build_half_list_shifted(half_grid, half_cells, s.atoms.size(), s.atoms.x.data(),
                                        s.atoms.y.data(), s.atoms.z.data(), r_list, wide, 2)) {
      EXPECT_EQ(engine::list_pairs(wide), expected) << name << " shifted, radius 2";
    } else {
      EXPECT_LT(std::min({half_grid.n[0], half_grid.n[1], half_grid.n[2]}), 5) << name;
    }
  }
}

TEST(NeighborList, CellGridCounts) {
  const auto g3 = engine::make_cell_grid({0, 0, 0}, {8.4, 8.5, 30}, 2.8);
  EXPECT_EQ(g3.n[0], 3);
  EXPECT_EQ(g3.n[1], 3);
  EXPECT_EQ(g3.n[2], 10);
  // Morton ranks are a permutation.
  auto r = g3.rank;
  std::sort(r.begin(), r.end());
  for (std::size_t k = 0; k < r.size(); ++k) ASSERT_EQ(r[k], int(k));
  // Positions fold in periodically; one that is not finite (a blow-up) goes to cell 0 instead of
  // an undefined NaN-to-int conversion (clang's UBSan aborts this test without the guard).
  EXPECT_EQ(g3.coord(0, -0.1), 2);
  EXPECT_EQ(g3.coord(0, 8.4 + 0.1), 0);
  EXPECT_EQ(g3.coord(2, std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_EQ(g3.coord(1, std::numeric_limits<double>::infinity()), 0);
  EXPECT_EQ(g3.coord(1, -std::numeric_limits<double>::infinity()), 0);
  // 2 cells per side: the 27-stencil collapses to 8 distinct cells.
  const auto g2 = engine::make_cell_grid({0, 0, 0}, {6, 6, 6}, 2.8);
  const auto st = engine::cell_stencils(g2);
  EXPECT_EQ(std::count_if(st.begin(), st.begin() + 27, [](int c) { return c >= 0; }), 8);
}

TEST(NeighborList, TwoLargestDisplacements) {
  std::vector<double> x0 = {0, 1, 2, 3}, y0(4, 0), z0(4, 0);
  std::vector<double> x = {0.1, 1, 2.5, 9.8}, y = y0, z = z0;  // atom 3 wraps: 3 → 9.8 = −0.2
  const auto [d1, d2] = engine::two_largest_displacements(
      4, x.data(), y.data(), z.data(), x0.data(), y0.data(), z0.data(), {7.0, 7.0, 7.0});
  EXPECT_NEAR(d1, 0.5, 1e-12);
  EXPECT_NEAR(d2, 0.2, 1e-12);
}

class NeighborListBackends : public test::BackendTest {};

TEST_P(NeighborListBackends, EngineNeighborPairsEqualBruteForceAfterSteps) {
  for (const auto& [name, s0] : geometries()) {
    md::System s = s0;
    if (s.atoms.size() > 1000 && GetParam().backend == BackendKind::reference) continue;
    md::EngineOptions o;
    o.precision = precision();
    o.skin = 0.3;
    o.sort_every = 7;
    o.neighbor_capacity = 4;
    o.dynamics.dt = 0.002;
    s.ff.cutoff = 2.5;
    auto engine = md::make_md_engine(GetParam().backend, o);
    engine->set_state(s);
    const Pairs initial = engine->neighbor_pairs();
    md::wrap_into_box(s);
    const Pairs expected = brute(s, 2.8);
    if (precision() != Precision::single) {
      EXPECT_EQ(initial, expected) << name;
    } else {
      // FP32 positions: a pair may differ only at r = r_list within rounding.
      Pairs diff;
      std::set_symmetric_difference(initial.begin(), initial.end(), expected.begin(),
                                    expected.end(), std::back_inserter(diff));
      const auto& a = s.atoms;
      for (const auto& [i, j] : diff) {
        const double dx = engine::minimum_image(a.x[i] - a.x[j], s.box.length(0));
        const double dy = engine::minimum_image(a.y[i] - a.y[j], s.box.length(1));
        const double dz = engine::minimum_image(a.z[i] - a.z[j], s.box.length(2));
        EXPECT_NEAR(std::sqrt(dx * dx + dy * dy + dz * dz), 2.8, 1e-5) << name;
      }
    }
    // The reference lists by brute force at every call: nothing to check after steps.
    if (GetParam().backend == BackendKind::reference) continue;
    // Only the warm liquid is integrated: the random gases and the "dense liquid" overlap and blow
    // up (speeds of 1e17-1e18 after 40 steps, NaN positions in FP32, which UBSan caught in the
    // cell index), "nearly empty" has no pair within rc, and the perfect "fcc solid" and the
    // "cell boundaries" grid have no velocities and never move: the check below would pass on
    // nothing for them.
    if (std::string(name) != "warm liquid") continue;
    const long long builds_before = engine->stats().rebuilds;
    engine->advance(1, 40);
    ASSERT_EQ(engine->first_bad_atom(50.0), 0u) << name << ": not finite or faster than 50 σ/τ";
    EXPECT_GT(engine->stats().rebuilds, builds_before) << name << ": no rebuild in 40 steps";
    md::System now = s;
    engine->get_state(now);
    // The list is the one built at the last rebuild; it must contain every pair within rc now and
    // equal the brute-force list at the positions of its build: check the first (superset) here.
    const Pairs listed = engine->neighbor_pairs(), within = brute(now, 2.5);
    ASSERT_GT(within.size(), 1000u) << name;
    for (const auto& p : within)
      EXPECT_TRUE(std::binary_search(listed.begin(), listed.end(), p))
          << name << ": pair " << p.first << " " << p.second << " missing after steps";
  }
}

// The cuda engine's default paths, the screened list build (shifted grids) and the force loop with
// 16-byte index loads (+ the approximate reciprocal in single, + mixed's fixed-point
// positions), against their overrides PAIRWISE_MD_SCREEN=0, PAIRWISE_MD_VEC=0,
// PAIRWISE_MD_FAST_RCP=0 and PAIRWISE_MD_FIXED=0: the same neighbor pairs
// (single: up to rounding at r = r_list), forces equal within the rounding of the pair terms.
TEST_P(NeighborListBackends, CudaPathOverridesGiveTheSameListsAndForces) {
  if (GetParam().backend != BackendKind::cuda) GTEST_SKIP() << "cuda paths only";
  const char* vars[] = {"PAIRWISE_MD_SCREEN", "PAIRWISE_MD_VEC", "PAIRWISE_MD_FAST_RCP",
                        "PAIRWISE_MD_FIXED"};
  for (const auto& [name, s0] : geometries()) {
    md::System s = s0;
    s.ff.cutoff = 2.5;
    struct Out {
      Pairs pairs;
      std::vector<double> fx, fy, fz;
    };
    auto run = [&](bool overrides) {
      for (const char* v : vars) overrides ? setenv(v, "0", 1) : unsetenv(v);
      md::EngineOptions o;
      o.precision = precision();
      o.skin = 0.3;
      o.sort_every = 0;
      auto engine = md::make_md_engine(BackendKind::cuda, o);
      engine->set_state(s);
      for (const char* v : vars) unsetenv(v);
      Out out;
      out.pairs = engine->neighbor_pairs();
      engine->forces(out.fx, out.fy, out.fz);
      return out;
    };
    const Out a = run(false), b = run(true);
    Pairs diff;
    std::set_symmetric_difference(a.pairs.begin(), a.pairs.end(), b.pairs.begin(), b.pairs.end(),
                                  std::back_inserter(diff));
    md::System w = s;
    md::wrap_into_box(w);
    for (const auto& [i, j] : diff) {
      ASSERT_EQ(precision(), Precision::single) << name << ": pair " << i << " " << j;
      const auto& at = w.atoms;
      const double dx = engine::minimum_image(at.x[i] - at.x[j], w.box.length(0));
      const double dy = engine::minimum_image(at.y[i] - at.y[j], w.box.length(1));
      const double dz = engine::minimum_image(at.z[i] - at.z[j], w.box.length(2));
      EXPECT_NEAR(std::sqrt(dx * dx + dy * dy + dz * dz), 2.8, 1e-5) << name;
    }
    EXPECT_LE(diff.size(), 2u) << name;
    double scale = 1;
    for (std::size_t i = 0; i < a.fx.size(); ++i)
      scale = std::max({scale, std::abs(b.fx[i]), std::abs(b.fy[i]), std::abs(b.fz[i])});
    const double tol = (precision() == Precision::double_ ? 1e-12 : 2e-5) * scale;
    ASSERT_EQ(a.fx.size(), b.fx.size());
    for (std::size_t i = 0; i < a.fx.size(); ++i) {
      ASSERT_NEAR(a.fx[i], b.fx[i], tol) << name << ", atom " << i;
      ASSERT_NEAR(a.fy[i], b.fy[i], tol) << name << ", atom " << i;
      ASSERT_NEAR(a.fz[i], b.fz[i], tol) << name << ", atom " << i;
    }
  }
}

// Mixed's coarse cell kernels (the default: the cells and the build coordinates from the 32-bit
// copy, the 50-bit position only near a cell boundary) against PAIRWISE_MD_COARSE_CELLS=0 (every
// atom decoded): the same cells, so the same lists in the same order and, after 40 steps with
// rebuilds and reorders inside the graphs, bit for bit the same trajectory.
TEST_P(NeighborListBackends, CudaMixedCoarseCellsGiveTheSameTrajectory) {
  if (GetParam().backend != BackendKind::cuda || precision() != Precision::mixed)
    GTEST_SKIP() << "cuda mixed only";
  for (const auto& [name, s0] : geometries()) {
    // (The warm liquid moves and rebuilds; the dense one, used here before session 29, blew up.)
    if (std::string(name) != "fcc solid" && std::string(name) != "warm liquid") continue;
    md::System s = s0;
    s.ff.cutoff = 2.5;
    auto run = [&](bool decode_all) {
      if (decode_all) setenv("PAIRWISE_MD_COARSE_CELLS", "0", 1);
      md::EngineOptions o;
      o.precision = precision();
      o.skin = 0.3;
      o.sort_every = 7;
      o.dynamics.dt = 0.005;
      auto engine = md::make_md_engine(BackendKind::cuda, o);
      unsetenv("PAIRWISE_MD_COARSE_CELLS");
      engine->set_state(s);
      engine->advance(1, 40);
      md::System out = s;
      engine->get_state(out);
      return std::make_pair(out, engine->neighbor_pairs());
    };
    const auto [a, la] = run(false);
    const auto [b, lb] = run(true);
    EXPECT_EQ(la, lb) << name;
    for (std::size_t i = 0; i < a.atoms.size(); ++i) {
      ASSERT_EQ(a.atoms.x[i], b.atoms.x[i]) << name << ", atom " << i;
      ASSERT_EQ(a.atoms.y[i], b.atoms.y[i]) << name << ", atom " << i;
      ASSERT_EQ(a.atoms.z[i], b.atoms.z[i]) << name << ", atom " << i;
      ASSERT_EQ(a.atoms.vx[i], b.atoms.vx[i]) << name << ", atom " << i;
    }
  }
}

// An imploding simple-cubic gas: the neighbor counts grow past the capacity set at the start, so
// a rebuild during advance() overflows. The engine must grow the list and redo the steps (cuda:
// restore the snapshot and rerun), so the trajectory equals, bit for bit, that of an engine whose
// capacity never overflowed.
TEST_P(NeighborListBackends, OverflowDuringStepsRerunsToTheSameTrajectory) {
  if (GetParam().backend == BackendKind::reference) GTEST_SKIP() << "no lists";
  md::System s = md::make_lattice("sc", 0.125, {10, 10, 10});  // spacing 2, box 20
  const double c = 0.5 * (s.box.lo[0] + s.box.hi[0]);
  for (std::size_t i = 0; i < s.atoms.size(); ++i) {
    s.atoms.vx[i] = -(s.atoms.x[i] - c), s.atoms.vy[i] = -(s.atoms.y[i] - c);
    s.atoms.vz[i] = -(s.atoms.z[i] - c);
  }
  s.ff.cutoff = 2.5;
  auto run = [&](int capacity, md::EngineStats& stats_before, md::EngineStats& stats_after) {
    md::EngineOptions o;
    o.precision = precision();
    o.skin = 0.3;
    o.sort_every = 0;
    o.neighbor_capacity = capacity;
    o.dynamics.dt = 0.002;
    auto engine = md::make_md_engine(GetParam().backend, o);
    engine->set_state(s);
    stats_before = engine->stats();
    engine->advance(1, 100);  // 20 % closer to the centre: 26 neighbors within r_list, was 6
    stats_after = engine->stats();
    md::System out = s;
    engine->get_state(out);
    return out;
  };
  md::EngineStats small0, small1, big0, big1;
  const md::System a = run(1, small0, small1);  // set_state grows it to 10: overflows later
  const md::System b = run(64, big0, big1);
  EXPECT_GT(small1.regrows, small0.regrows) << "no overflow during the steps";
  EXPECT_GT(small1.capacity, small0.capacity);
  EXPECT_EQ(big1.regrows, 0);
  ASSERT_EQ(a.atoms.size(), b.atoms.size());
  for (std::size_t i = 0; i < a.atoms.size(); ++i) {
    ASSERT_EQ(a.atoms.x[i], b.atoms.x[i]) << "atom " << i;
    ASSERT_EQ(a.atoms.y[i], b.atoms.y[i]) << "atom " << i;
    ASSERT_EQ(a.atoms.z[i], b.atoms.z[i]) << "atom " << i;
    ASSERT_EQ(a.atoms.vx[i], b.atoms.vx[i]) << "atom " << i;
  }
  // And the atoms did close in (the test exercised what it claims).
  EXPECT_LT(std::abs(a.atoms.x[0] - c), 0.9 * std::abs(s.atoms.x[0] - c));
}

// The cuda engine's speed switches that keep every operation (PAIRWISE_MD_AHEAD: the next step's
// first half kick in the force kernel; _EXACT_MODE 1, 2 or 3: how mixed's float build finds the
// band of r_list; _FLOAT_LISTS=0: mixed's double build): the same trajectory, bit for bit,
// after 37 steps (3 graphs of 10 and 7 single steps, rebuilds, a reorder), with each thermostat,
// with mixed's master positions off (_MASTER=0) and on (_MASTER=1, the float build only).
// _FIXED_MINB=16 takes mixed's large-system kernel.
TEST_P(NeighborListBackends, CudaSpeedSwitchesGiveTheSameTrajectoryBitForBit) {
  if (GetParam().backend != BackendKind::cuda) GTEST_SKIP() << "cuda paths only";
  const md::System s0 = test::jittered_lattice("fcc", 0.8442, 6, 0.1, 9, 1.5);  // 3 cells a side
  const char* vars[] = {"PAIRWISE_MD_AHEAD", "PAIRWISE_MD_EXACT_MODE", "PAIRWISE_MD_FLOAT_LISTS",
                        "PAIRWISE_MD_MASTER"};
  // Each group's first variant is the reference of the group.
  const std::vector<std::vector<std::vector<const char*>>> groups = {
      {{nullptr, nullptr, nullptr, "0"},
       {"0", nullptr, nullptr, "0"},
       {nullptr, "2", nullptr, "0"},
       {nullptr, "1", nullptr, "0"},
       {nullptr, nullptr, "0", "0"},
       {"0", "2", nullptr, "0"}},
      {{nullptr, nullptr, nullptr, "1"},
       {"0", nullptr, nullptr, "1"},
       {nullptr, "2", nullptr, "1"},
       {nullptr, "1", nullptr, "1"},
       {"0", "2", nullptr, "1"}}};
  // The environment's own values come back after each run (a whole suite may run under one).
  std::vector<std::string> saved(std::size(vars));
  std::vector<bool> had(std::size(vars));
  for (std::size_t k = 0; k < std::size(vars); ++k)
    if (const char* v = std::getenv(vars[k])) saved[k] = v, had[k] = true;
  for (auto thermostat :
       {engine::Thermostat::none, engine::Thermostat::langevin, engine::Thermostat::andersen}) {
    md::System s = s0;
    s.ff.cutoff = 2.5;
    auto run = [&](const std::vector<const char*>& values) {
      for (std::size_t k = 0; k < values.size(); ++k)
        values[k] ? setenv(vars[k], values[k], 1) : unsetenv(vars[k]);
      setenv("PAIRWISE_MD_FIXED_MINB", "16", 1);
      md::EngineOptions o;
      o.precision = precision();
      o.skin = 0.3;
      o.sort_every = 20;
      o.dynamics.thermostat = thermostat;
      o.dynamics.nu = 5;  // Andersen: ≈ 2.5 % of the atoms a step
      auto engine = md::make_md_engine(BackendKind::cuda, o);
      engine->set_state(s);
      engine->advance(1, 37);
      for (std::size_t k = 0; k < std::size(vars); ++k)
        had[k] ? setenv(vars[k], saved[k].c_str(), 1) : unsetenv(vars[k]);
      unsetenv("PAIRWISE_MD_FIXED_MINB");
      md::System out = s;
      engine->get_state(out);
      EXPECT_GT(engine->stats().rebuilds, 1);
      return out;
    };
    std::vector<md::System> references;
    for (const auto& variants : groups) {
      const md::System a = run(variants[0]);
      references.push_back(a);
      for (std::size_t v = 1; v < variants.size(); ++v) {
        const md::System b = run(variants[v]);
        for (std::size_t i = 0; i < a.atoms.size(); ++i) {
          ASSERT_EQ(a.atoms.x[i], b.atoms.x[i]) << "variant " << v << ", atom " << i;
          ASSERT_EQ(a.atoms.y[i], b.atoms.y[i]) << "variant " << v << ", atom " << i;
          ASSERT_EQ(a.atoms.z[i], b.atoms.z[i]) << "variant " << v << ", atom " << i;
          ASSERT_EQ(a.atoms.vx[i], b.atoms.vx[i]) << "variant " << v << ", atom " << i;
          ASSERT_EQ(a.atoms.vy[i], b.atoms.vy[i]) << "variant " << v << ", atom " << i;
          ASSERT_EQ(a.atoms.vz[i], b.atoms.vz[i]) << "variant " << v << ", atom " << i;
        }
      }
      // And the atoms moved (the steps ran).
      EXPECT_NE(a.atoms.x[0], s.atoms.x[0]);
    }
    // Mixed: the master positions are another trajectory (the switch took effect), a close one.
    if (precision() == Precision::mixed) {
      const auto& a = references[0].atoms;
      const auto& b = references[1].atoms;
      double largest = 0;
      for (std::size_t i = 0; i < a.size(); ++i)
        largest = std::max({largest, std::abs(a.x[i] - b.x[i]), std::abs(a.y[i] - b.y[i]),
                            std::abs(a.z[i] - b.z[i])});
      EXPECT_GT(largest, 0.0);
      EXPECT_LT(largest, 1e-6);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, NeighborListBackends,
                         testing::ValuesIn(test::compiled_backend_cases()),
                         test::backend_case_name);

}  // namespace
