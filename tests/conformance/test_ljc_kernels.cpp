// Every ljc backend and precision against the double reference, for each dielectric (issue 5,
// "Must hold"): per-atom forces (tests/tolerances.hpp error measure) and the energy terms,
// <= 1e-5 relative in single and mixed, <= 1e-12 in double.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "backend_params.hpp"
#include "ljc/run.hpp"
#include "ljc_sets.hpp"
#include "tolerances.hpp"

namespace pairwise::test {
namespace {

using physics::DielectricKind;

double ljc_tolerance(Precision p) {
  return p == Precision::double_ ? 1e-12 : 1e-5;
}

class LjcKernelTest : public BackendTest {
 protected:
  std::unique_ptr<ljc::LjcKernel> make(ljc::PairKernel pk = ljc::PairKernel::automatic) const {
    return ljc::make_ljc_kernel(GetParam().backend, {GetParam().precision, 0, pk});
  }
  void check(std::size_t n, ljc::PairKernel pk = ljc::PairKernel::automatic) {
    check_molecule(ljc_globule(n), pk);
  }
  void check_molecule(const ljc::Molecule& m, ljc::PairKernel pk) {
    const std::size_t n = m.size();
    for (DielectricKind d :
         {DielectricKind::constant, DielectricKind::linear, DielectricKind::sigmoidal}) {
      SCOPED_TRACE(std::string(ljc::to_string(d)) + " n=" + std::to_string(n));
      const auto nb = ljc_options(d);
      auto ref = ljc::make_ljc_kernel(BackendKind::reference, {Precision::double_});
      const ljc::LjcForces r = ljc_forces(*ref, m, nb);
      auto k = make(pk);
      const ljc::LjcForces f = ljc_forces(*k, m, nb);
      const double tol = ljc_tolerance(precision());
      EXPECT_LE(max_relative_error({&f.fx, &f.fy, &f.fz}, {&r.fx, &r.fy, &r.fz}), tol);
      // Energies: relative to the sum of the magnitudes of the LJ and Coulomb terms.
      const double scale = std::fabs(r.lj) + std::fabs(r.coulomb) + std::fabs(r.bond);
      EXPECT_LE(std::fabs(f.lj - r.lj) / scale, tol) << f.lj << " vs " << r.lj;
      EXPECT_LE(std::fabs(f.coulomb - r.coulomb) / scale, tol) << f.coulomb << " vs " << r.coulomb;
      EXPECT_LE(std::fabs(f.energy() - r.energy()) / scale, tol);
      EXPECT_NE(r.lj, 0.0);
      EXPECT_NE(r.coulomb, 0.0);
    }
  }
};

TEST_P(LjcKernelTest, MatchesReferenceSmall) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  check(67);
}
TEST_P(LjcKernelTest, MatchesReferenceTiles) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  check(1000);
}
TEST_P(LjcKernelTest, MatchesReferenceNewton3) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  if (GetParam().backend != BackendKind::cuda) GTEST_SKIP() << "a CUDA kernel option";
  check(1000, ljc::PairKernel::newton3);
  check(67, ljc::PairKernel::newton3);
}
// N >= 8192 selects the wide Newton-3 tiles (4 targets per lane in FP32, 2 in FP64) and the
// engine's planner picks j-splits differently: the sizes the benchmarks run. GPU only (the
// reference takes ~1 s per dielectric here).
TEST_P(LjcKernelTest, MatchesReferenceWideTiles) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  if (GetParam().backend != BackendKind::cuda) GTEST_SKIP() << "GPU only (a slow reference)";
  check(8200, ljc::PairKernel::newton3);
  check(8200, ljc::PairKernel::one_sided);
}

// The globule gives every atom the same σ and ε, which the CUDA tile kernels detect (they then
// take the pair's LJ parameters from constants); atoms with their own σ and ε run the general
// path that mixes them per pair.
TEST_P(LjcKernelTest, MatchesReferencePerAtomLj) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  check_molecule(ljc_globule_per_atom_lj(1000), ljc::PairKernel::automatic);
  if (GetParam().backend != BackendKind::cuda) return;
  check_molecule(ljc_globule_per_atom_lj(8200), ljc::PairKernel::newton3);
}

// σ and ε by atom type (2 and 8 types, as molecules whose LJ parameters come by atom type: the
// CUDA tile kernels mix them per atom; docs/ljc.md, tiles5, on why no per-type-pair table).
TEST_P(LjcKernelTest, MatchesReferenceLjTypes) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (int types : {2, 8}) {
    SCOPED_TRACE("types=" + std::to_string(types));
    check_molecule(ljc_globule_lj_types(1000, types), ljc::PairKernel::automatic);
  }
  if (GetParam().backend != BackendKind::cuda) return;
  check_molecule(ljc_globule_lj_types(8200, 7), ljc::PairKernel::newton3);
}

TEST_P(LjcKernelTest, MatchesReferenceOneSided) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  if (GetParam().backend != BackendKind::cuda) GTEST_SKIP() << "a CUDA kernel option";
  check(1000, ljc::PairKernel::one_sided);
  check(67, ljc::PairKernel::one_sided);
}

// The backend's advance (cuda: the whole step on the device, CUDA graphs) against the host loop of
// the shared dynamics on the reference kernel: NVE and Langevin (the same Philox draws), 30 steps.
TEST_P(LjcKernelTest, AdvanceMatchesHostDynamics) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (bool langevin : {false, true}) {
    SCOPED_TRACE(langevin ? "langevin" : "nve");
    ljc::Molecule m = ljc_globule(300, 21);
    ljc::thermal_velocities(m, 300.0, 2);
    const auto nb = ljc_options(DielectricKind::sigmoidal);
    std::vector<double> inv_mass(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) inv_mass[i] = ljc::kAccelFactor / m.mass[i];
    engine::DynamicsOptions o;
    o.dt = 1.0;
    o.thermostat = langevin ? engine::Thermostat::langevin : engine::Thermostat::none;
    o.kT = ljc::kBoltzmannKcal * 300.0;
    o.gamma = 0.01;
    o.seed = 5;
    auto run = [&](ljc::LjcKernel& k) {
      ljc::Molecule s = m;
      k.set_system(s, nb);
      ljc::LjcForces f;
      k.compute(f);
      k.advance(s, inv_mass, o, 0, 7, f);  // a 7-step then a 23-step chunk (graph of 20 + 3)
      k.advance(s, inv_mass, o, 7, 23, f);
      return std::make_pair(s, f);
    };
    auto ref = ljc::make_ljc_kernel(BackendKind::reference, {Precision::double_});
    const auto [r, rf] = run(*ref);
    auto k = make();
    const auto [g, gf] = run(*k);
    const double tol = precision() == Precision::double_ ? 1e-10 : 1e-5;
    double worst = 0;
    for (std::size_t i = 0; i < m.size(); ++i) {
      worst = std::max({worst, std::fabs(g.x[i] - r.x[i]), std::fabs(g.y[i] - r.y[i]),
                        std::fabs(g.z[i] - r.z[i])});
    }
    EXPECT_LE(worst, tol);  // Å, after 30 fs
    EXPECT_LE(std::fabs(gf.energy() - rf.energy()) / std::fabs(rf.lj + rf.coulomb + rf.bond),
              100 * tol);
    double moved = 0;
    for (std::size_t i = 0; i < m.size(); ++i) moved = std::max(moved, std::fabs(r.x[i] - m.x[i]));
    EXPECT_GT(moved, 1e-3);
  }
}

// Determinism (DESIGN.md principle 7) of double precision's energies on the GPU: they are summed
// in per-writer slots added in a fixed order (ljc/cuda_tile_args.hpp), not with FP64 atomics
// whose order varies, so a second evaluation and a second kernel give bitwise equal energies;
// both pair kernels (Newton-3 tiles, one-sided) with the bonded kernel's blocks, at N = 8200
// (thousands of warps, 129 bonded blocks) and N = 67.
TEST_P(LjcKernelTest, DoubleEnergiesAreBitwiseReproducible) {
  if (GetParam().backend != BackendKind::cuda || precision() != Precision::double_)
    GTEST_SKIP() << "cuda double only";
  auto bits = [](const ljc::LjcForces& f) {
    return std::vector<std::uint64_t>{std::bit_cast<std::uint64_t>(f.lj),
                                      std::bit_cast<std::uint64_t>(f.coulomb),
                                      std::bit_cast<std::uint64_t>(f.bond)};
  };
  for (std::size_t n : {8200, 67}) {
    const ljc::Molecule m = ljc_globule(n);
    for (ljc::PairKernel pk : {ljc::PairKernel::newton3, ljc::PairKernel::one_sided}) {
      for (DielectricKind d : {DielectricKind::constant, DielectricKind::sigmoidal}) {
        SCOPED_TRACE(std::string(ljc::to_string(d)) + " n=" + std::to_string(n) +
                     (pk == ljc::PairKernel::newton3 ? " newton3" : " one-sided"));
        const auto nb = ljc_options(d);
        auto first = make(pk), second = make(pk);
        const ljc::LjcForces a = ljc_forces(*first, m, nb);
        EXPECT_NE(a.lj, 0.0);
        EXPECT_NE(a.coulomb, 0.0);
        for (int repeat = 0; repeat < 3; ++repeat) {
          ljc::LjcForces again;
          first->compute(again);
          EXPECT_EQ(bits(again), bits(a)) << "evaluation " << repeat + 2;
        }
        EXPECT_EQ(bits(ljc_forces(*second, m, nb)), bits(a)) << "second kernel";
      }
    }
  }
}

TEST_P(LjcKernelTest, SingleAtomHasNoForce) {
  const ljc::Molecule m = ljc_globule(1);
  auto k = make();
  const auto f = ljc_forces(*k, m, ljc_options(DielectricKind::constant));
  EXPECT_EQ(f.fx[0], 0.0);
  EXPECT_EQ(f.energy(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, LjcKernelTest, testing::ValuesIn(compiled_backend_cases()),
                         backend_case_name);

}  // namespace
}  // namespace pairwise::test
