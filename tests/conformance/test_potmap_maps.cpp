// Potential maps of every backend against the double reference (issue 3, "Must hold"): Table 2
// errors of direct and cutoff maps; cutoff maps equal to direct sums with the same s(r) (atoms on
// bin faces, outside the lattice, dense clusters); one point charge against k q s(r)/r.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "backend_params.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"
#include "potmap/map.hpp"
#include "potmap/run_config.hpp"

namespace pairwise::test {
namespace {

// Backend cases: every compiled backend and precision, and compensated single precision.
struct MapCase {
  BackendKind backend;
  Precision precision;
  bool kahan;
};

std::vector<MapCase> compiled_map_cases() {
  std::vector<MapCase> cases = {{BackendKind::reference, Precision::double_, false},
                                {BackendKind::cpu, Precision::single, false},
                                {BackendKind::cpu, Precision::single, true},
                                {BackendKind::cpu, Precision::mixed, false},
                                {BackendKind::cpu, Precision::double_, false}};
  if (cuda_compiled()) {
    cases.push_back({BackendKind::cuda, Precision::single, false});
    cases.push_back({BackendKind::cuda, Precision::single, true});
    cases.push_back({BackendKind::cuda, Precision::mixed, false});
    cases.push_back({BackendKind::cuda, Precision::double_, false});
  }
  return cases;
}

// "CpuSingle", "CpuSingleKahan", "CudaDouble", ...
std::string map_case_name(const testing::TestParamInfo<MapCase>& info) {
  auto cap = [](std::string_view s) {
    std::string o(s);
    o[0] = char(std::toupper(static_cast<unsigned char>(o[0])));
    return o;
  };
  return cap(to_string(info.param.backend)) + cap(to_string(info.param.precision)) +
         (info.param.kahan ? "Kahan" : "");
}

class MapBackendTest : public testing::TestWithParam<MapCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend != BackendKind::cuda) return;
    std::string why;
    if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  }
  potmap::MapOptions options(double cutoff, double exclusion = 0) const {
    potmap::MapOptions o;
    o.precision = GetParam().precision;
    o.kahan = GetParam().kahan;
    o.cutoff = cutoff;
    o.exclusion = exclusion;
    return o;
  }
  potmap::MapResult compute(const potmap::Atoms& a, const potmap::Lattice& l,
                            const potmap::MapOptions& o) const {
    return potmap::compute_map(GetParam().backend, a, l, o);
  }
  bool is_double() const { return GetParam().precision == Precision::double_; }
};

// Random charges in [-1, 1] uniform in a box [lo, hi)³.
potmap::Atoms random_atoms(std::size_t n, double lo, double hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi), c(-1, 1);
  potmap::Atoms a;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = u(rng), y = u(rng), z = u(rng);
    a.push_back(x, y, z, c(rng));
  }
  return a;
}

using potmap::Atoms;
using potmap::Lattice;

// Single precision must not be worse than the paper's Table 2 figure (0.87 %).
constexpr double kPaperSingleRelative = 0.0087;

// A 20 Å TIP3P water box and a 0.5 Å lattice around it (2 Å padding): 648 atoms, 49³ points.
struct WaterCase {
  Atoms atoms = potmap::water_box(20.0, 3);
  Lattice lattice = potmap::lattice_around(atoms, 0.5, 2.0);
};

const WaterCase& water() {
  static const WaterCase w;
  return w;
}

const std::vector<double>& water_reference(double cutoff) {
  static std::vector<double> direct, cut;
  auto& r = cutoff > 0 ? cut : direct;
  if (r.empty()) {
    potmap::MapOptions o;
    o.cutoff = cutoff;
    o.exclusion = 1.0;
    r = potmap::reference_map(water().atoms, water().lattice, o).values;
  }
  return r;
}

class PotmapMaps : public MapBackendTest {};

TEST_P(PotmapMaps, DirectAndCutoffMatchReferenceAsTable2) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (const double cutoff : {0.0, 8.0}) {
    const auto o = options(cutoff, 1.0);
    const auto r = compute(water().atoms, water().lattice, o);
    const auto e = potmap::map_errors(r.values, water_reference(cutoff));
    std::printf("[ %s ] %s: max relative %.3g, max absolute %.3g e/A over %zu points\n",
                map_case_name({GetParam(), 0}).c_str(), cutoff > 0 ? "cutoff 8" : "direct",
                e.max_relative, e.max_absolute, e.points);
    EXPECT_GT(e.points, water().lattice.size() / 2);
    if (is_double()) {
      EXPECT_LT(e.max_relative, 1e-10);
    } else {
      EXPECT_LT(e.max_relative, kPaperSingleRelative);
      EXPECT_LT(e.max_absolute, 1e-4);
    }
  }
}

// The maps of one backend with and without compensation, against the reference: compensated
// (or double-accumulated) sums are better than plain FP32 sums on a direct map of many atoms.
class PotmapCompensated : public MapBackendTest {};

TEST_P(PotmapCompensated, BetterThanPlainSingle) {
  const Atoms atoms = potmap::water_box(30.0, 5);  // 3,000 atoms
  Lattice l;
  l.origin = {5, 5, 5};
  l.spacing = 0.7;
  l.counts = {24, 24, 24};
  auto o = options(0.0, 1.0);
  potmap::MapOptions ref_o = o;
  const auto ref = potmap::reference_map(atoms, l, ref_o).values;
  const auto kahan = potmap::map_errors(compute(atoms, l, o).values, ref);
  o.kahan = false;
  const auto plain = potmap::map_errors(compute(atoms, l, o).values, ref);
  std::printf("direct, %zu atoms: plain single %.3g rel %.3g abs; compensated %.3g rel %.3g abs\n",
              atoms.size(), plain.max_relative, plain.max_absolute, kahan.max_relative,
              kahan.max_absolute);
  EXPECT_LT(kahan.max_absolute, plain.max_absolute);
  EXPECT_LE(kahan.max_relative, plain.max_relative);
}

// Cutoff maps (binned on the cuda backend, clipped on the cpu) equal the direct sum of q s(r)/r
// over every atom (the reference), up to rounding: atoms on bin faces and lattice points (the
// multiples of 0.5 and 4 Å from the origin), outside the lattice and past its corners, and a
// cluster of 300 atoms within 0.8 Å, far denser than a bin holds.
TEST_P(PotmapMaps, CutoffEqualsDirectWithSameSwitching) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  Lattice l;
  l.origin = {-1.0, -2.0, 0.5};
  l.spacing = 0.5;
  l.counts = {40, 33, 37};
  Atoms a;
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 5; ++j) {
      a.push_back(l.origin[0] + 4.0 * i, l.origin[1] + 4.0 * j, l.origin[2] + 8.0,
                  (i + j) % 2 ? 0.5 : -0.7);
    }
  }
  const Atoms outside = random_atoms(120, -8, 28, 11);  // some beyond every face and corner
  for (std::size_t i = 0; i < outside.size(); ++i)
    a.push_back(outside.x[i], outside.y[i], outside.z[i], outside.q[i]);
  const Atoms cluster = random_atoms(300, 6.1, 6.9, 12);
  for (std::size_t i = 0; i < cluster.size(); ++i)
    a.push_back(cluster.x[i], cluster.y[i], cluster.z[i] + 3.0, 0.1 * cluster.q[i]);
  a.push_back(l.coord(0, 39), l.coord(1, 32), l.coord(2, 36), 1.0);  // the last lattice point
  a.push_back(l.coord(0, 0) - 5.0, l.coord(1, 0) - 5.0, l.coord(2, 0) - 5.0, -1.0);

  for (const double cutoff : {4.0, 6.5}) {
    auto o = options(cutoff);
    potmap::MapOptions ro = o;
    const auto ref = potmap::reference_map(a, l, ro).values;
    const auto got = compute(a, l, o).values;
    // Rounding only: bound by the precision times the sum of |terms| at each point, each term
    // weighted by max(1, L/r): coordinates of magnitude L ~ 20 Å are rounded to the precision,
    // which moves 1/r by (L u)/r relative (a lattice point 0.01 Å from an atom of the cluster).
    double worst = 0;
    const auto sw_abs = [&](std::size_t idx) {
      const std::size_t nz = l.counts[2], ny = l.counts[1];
      const std::size_t i = idx / (ny * nz), j = (idx / nz) % ny, k = idx % nz;
      double s = 0;
      for (std::size_t m = 0; m < a.size(); ++m) {
        const double dx = l.coord(0, i) - a.x[m], dy = l.coord(1, j) - a.y[m],
                     dz = l.coord(2, k) - a.z[m];
        const double r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutoff * cutoff && r2 > 0) {
          const double t = 1 - r2 / (cutoff * cutoff);
          // + |q| t / r: near rc, (1 - r²/rc²) has an absolute rounding of ~u, so the term's error
          // is ~2 t u |q|/r, large against the term t² |q|/r itself.
          s += std::abs(a.q[m]) / std::sqrt(r2) * (t * t * std::max(1.0, 20.0 / std::sqrt(r2)) + t);
        }
      }
      return s;
    };
    std::size_t nonzero = 0;
    for (std::size_t p = 0; p < ref.size(); p += 7) {  // every 7th point: |terms| are costly
      const double scale = sw_abs(p);
      if (scale == 0) {
        EXPECT_EQ(got[p], 0.0) << "point " << p << " has no atom within rc";
        continue;
      }
      ++nonzero;
      worst = std::max(worst, std::abs(got[p] - ref[p]) / scale);
    }
    EXPECT_GT(nonzero, 100u);
    EXPECT_LT(worst, is_double() ? 1e-14 : 1e-6) << "cutoff " << cutoff;
  }
}

// One point charge: V = k q s(r)/r at every point (double backends to 1e-10 relative; FP32 to
// 1e-5).
TEST_P(PotmapMaps, PointChargeIsAnalytic) {
  Atoms a;
  const double q = 1.5, px = 3.3, py = -1.7, pz = 2.05;
  a.push_back(px, py, pz, q);
  Lattice l;
  l.origin = {-6, -10, -7};
  l.spacing = 0.5;
  l.counts = {38, 35, 36};
  for (const double cutoff : {0.0, 7.5}) {
    const auto r = compute(a, l, options(cutoff));
    double worst = 0;
    std::size_t checked = 0;
    for (std::size_t i = 0; i < l.counts[0]; ++i) {
      for (std::size_t j = 0; j < l.counts[1]; ++j) {
        for (std::size_t k = 0; k < l.counts[2]; ++k) {
          const double dx = l.coord(0, i) - px, dy = l.coord(1, j) - py, dz = l.coord(2, k) - pz;
          const double rr = std::sqrt(dx * dx + dy * dy + dz * dz);
          double s = 1;
          if (cutoff > 0) {
            const double t = rr < cutoff ? 1 - rr * rr / (cutoff * cutoff) : 0.0;
            s = t * t;
          }
          const double v = q * s / rr;
          const double got = r.values[(i * l.counts[1] + j) * l.counts[2] + k];
          if (v == 0) {
            EXPECT_EQ(got, 0.0);
            continue;
          }
          // Near the cutoff s(r) -> 0 and FP32 loses relative accuracy in (1 - r²/rc²): measure
          // those points against the value 1 Å inside the cutoff.
          const double scale =
              std::max(std::abs(v),
                       cutoff > 0 && rr > cutoff - 1
                           ? q * std::pow(1 - (cutoff - 1) * (cutoff - 1) / (cutoff * cutoff), 2) /
                                 (cutoff - 1)
                           : 0.0);
          worst = std::max(worst, std::abs(got - v) / scale);
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 1000u);
    EXPECT_LT(worst, is_double() ? 1e-10 : 1e-5) << "cutoff " << cutoff;
  }
}

// Exclusions: every point closer than r_ex to an atom is exactly 0, and no other point is.
TEST_P(PotmapMaps, ExclusionZeroesExactlyTheNearPoints) {
  const Atoms a = random_atoms(40, 0, 10, 21);
  Lattice l;
  l.origin = {-1, -1, -1};
  l.spacing = 0.4;
  l.counts = {31, 30, 32};
  const auto r = compute(a, l, options(0.0, 1.3));
  std::vector<std::size_t> all(l.size());
  for (std::size_t p = 0; p < all.size(); ++p) all[p] = p;
  potmap::MapOptions o;
  o.exclusion = 1.3;
  const auto ex = potmap::excluded_points(a, l, o, all);
  std::size_t zeroed = 0;
  for (std::size_t p = 0; p < all.size(); ++p) {
    if (ex[p]) {
      ++zeroed;
      ASSERT_EQ(r.values[p], 0.0) << "point " << p;
    } else {
      ASSERT_NE(r.values[p], 0.0) << "point " << p;
    }
  }
  EXPECT_GT(zeroed, 1000u);
}

INSTANTIATE_TEST_SUITE_P(Backends, PotmapMaps, testing::ValuesIn(compiled_map_cases()),
                         map_case_name);

// The compensated cases (single precision with Kahan sums) of every backend.
std::vector<MapCase> compensated_cases() {
  std::vector<MapCase> out;
  for (const auto& c : compiled_map_cases())
    if (c.kahan) out.push_back(c);
  return out;
}
INSTANTIATE_TEST_SUITE_P(Backends, PotmapCompensated, testing::ValuesIn(compensated_cases()),
                         map_case_name);

}  // namespace
}  // namespace pairwise::test
