// Mixed precision's near/far tiles of the CUDA Newton-3 kernel (ljc/cuda_tile_args.hpp,
// docs/performance.md "ljc mixed: spatial order and near/far tiles") against the double-single
// tiles they replace (PAIRWISE_LJC_MIXED_TILES=double-single): errors against the double
// reference, forces (rms over atoms, |Δf|²/|f|² summed, and the per-atom maximum of
// tests/tolerances.hpp) and energies (LJ, Coulomb, relative to |E_LJ| + |E_C| + |E_bond|), must be
// within 2x of double-single's, for a bonded globule at the origin and one 10^4 Å away with
// per-atom σ and ε (where FP32 positions alone would lose ~3 digits). The conformance suite bounds
// both by the same 1e-5, which would not see a loss of position accuracy. GPU only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "backend_params.hpp"
#include "ljc/run.hpp"
#include "ljc/tile_masks.hpp"
#include "ljc_sets.hpp"
#include "tolerances.hpp"

namespace pairwise::test {
namespace {

#ifdef PAIRWISE_HAVE_CUDA
using physics::DielectricKind;

struct Errors {
  double force_rms = 0, force_max = 0, lj = 0, coulomb = 0;
};

Errors errors(const ljc::LjcForces& f, const ljc::LjcForces& r) {
  Errors e;
  double num = 0, den = 0;
  for (std::size_t i = 0; i < r.fx.size(); ++i) {
    const double d[3] = {f.fx[i] - r.fx[i], f.fy[i] - r.fy[i], f.fz[i] - r.fz[i]};
    num += d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    den += r.fx[i] * r.fx[i] + r.fy[i] * r.fy[i] + r.fz[i] * r.fz[i];
  }
  e.force_rms = std::sqrt(num / den);
  e.force_max = max_relative_error({&f.fx, &f.fy, &f.fz}, {&r.fx, &r.fy, &r.fz});
  const double scale = std::fabs(r.lj) + std::fabs(r.coulomb) + std::fabs(r.bond);
  e.lj = std::fabs(f.lj - r.lj) / scale;
  e.coulomb = std::fabs(f.coulomb - r.coulomb) / scale;
  return e;
}

// A cuda mixed kernel with PAIRWISE_LJC_MIXED_TILES = mode (read when it is made).
std::unique_ptr<ljc::LjcKernel> mixed_kernel(
    const char* mode, ljc::StepKernel step_kernel = ljc::StepKernel::automatic) {
  setenv("PAIRWISE_LJC_MIXED_TILES", mode, 1);
  auto k = ljc::make_ljc_kernel(BackendKind::cuda,
                                {Precision::mixed, 0, ljc::PairKernel::automatic, step_kernel});
  unsetenv("PAIRWISE_LJC_MIXED_TILES");
  return k;
}

ljc::LjcForces mixed_forces(const char* mode, const ljc::Molecule& m,
                            const ljc::NonbondedOptions& nb) {
  return ljc_forces(*mixed_kernel(mode), m, nb);
}

TEST(LjcMixedTilesCuda, NearFarErrorsWithinTwiceDoubleSingle) {
  std::string why;
  if (!cuda_compiled() || cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device";
  constexpr std::size_t kN = 16384;
  for (double shift : {0.0, 1.0e4}) {
    ljc::Molecule m = shift == 0 ? ljc_globule(kN) : ljc_globule_per_atom_lj(kN);
    for (std::size_t i = 0; i < kN; ++i)
      m.x[i] += shift, m.y[i] -= 0.7 * shift, m.z[i] += 0.3 * shift;
    // The fraction of tile pairs that run near (128-atom tiles, the default kappa).
    const int n = int(kN);
    const auto order = ljc::spatial_tile_order(n, m.x.data(), m.y.data(), m.z.data(), 128);
    const auto masks =
        ljc::build_tile_masks(n, ljc::lists_in_order(ljc::derive_pair_lists(m), order), 4, true);
    const double near =
        ljc::near_tile_fraction(ljc::tile_boxes(n, m.x.data(), m.y.data(), m.z.data(), order, 128),
                                masks, ljc::kNearFarKappa);
    for (DielectricKind d : {DielectricKind::constant, DielectricKind::sigmoidal}) {
      SCOPED_TRACE(std::string(ljc::to_string(d)) + " shift " + std::to_string(shift));
      const auto nb = ljc_options(d);
      auto ref = ljc::make_ljc_kernel(BackendKind::reference, {Precision::double_});
      const ljc::LjcForces r = ljc_forces(*ref, m, nb);
      const Errors ds = errors(mixed_forces("double-single", m, nb), r);
      const Errors nf = errors(mixed_forces("near-far", m, nb), r);
      std::printf(
          "%s shift %g Å (near fraction %.3f): force rms %.3g / %.3g, max %.3g / %.3g, "
          "E_LJ %.3g / %.3g, E_C %.3g / %.3g (double-single / near-far)\n",
          std::string(ljc::to_string(d)).c_str(), shift, near, ds.force_rms, nf.force_rms,
          ds.force_max, nf.force_max, ds.lj, nf.lj, ds.coulomb, nf.coulomb);
      EXPECT_LT(near, 0.6);  // measured 0.459 at kappa 2 (masked tiles included)
      EXPECT_LE(nf.force_rms, 2 * ds.force_rms);
      EXPECT_LE(nf.force_max, 2 * ds.force_max);
      // Energies: the sums' own rounding (fixed point, 2^-32 kcal/mol per term) as a floor.
      EXPECT_LE(nf.lj, std::max(2 * ds.lj, 1e-9));
      EXPECT_LE(nf.coulomb, std::max(2 * ds.coulomb, 1e-9));
      EXPECT_LE(nf.force_max, 1e-5);
    }
  }
}

// Below 16,384 atoms the default keeps the double-single tiles; PAIRWISE_LJC_MIXED_TILES=near-far
// takes the near/far tiles at any N: the narrow tiles (kI = 1: N = 67, 1,000) and a padded wide
// one (8,200), each dielectric, against the reference at the conformance tolerance (1e-5, as
// test_ljc_kernels.cpp), and 30 MD steps on the graph path (the positions packed by the near/far
// kernels, in the spatial order) against the double-single tiles' trajectory (1e-5 Å).
TEST(LjcMixedTilesCuda, ForcedNearFarMatchesAtSmallN) {
  std::string why;
  if (!cuda_compiled() || cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device";
  for (std::size_t n : {67, 1000, 8200}) {
    const ljc::Molecule m = ljc_globule(n);
    for (DielectricKind d :
         {DielectricKind::constant, DielectricKind::linear, DielectricKind::sigmoidal}) {
      SCOPED_TRACE(std::string(ljc::to_string(d)) + " n=" + std::to_string(n));
      const auto nb = ljc_options(d);
      auto ref = ljc::make_ljc_kernel(BackendKind::reference, {Precision::double_});
      const ljc::LjcForces r = ljc_forces(*ref, m, nb);
      const ljc::LjcForces f = mixed_forces("near-far", m, nb);
      EXPECT_LE(max_relative_error({&f.fx, &f.fy, &f.fz}, {&r.fx, &r.fy, &r.fz}), 1e-5);
      const double scale = std::fabs(r.lj) + std::fabs(r.coulomb) + std::fabs(r.bond);
      EXPECT_LE(std::fabs(f.lj - r.lj) / scale, 1e-5);
      EXPECT_LE(std::fabs(f.coulomb - r.coulomb) / scale, 1e-5);
      EXPECT_LE(std::fabs(f.energy() - r.energy()) / scale, 1e-5);
    }
  }
  ljc::Molecule m0 = ljc_globule(300, 21);
  ljc::thermal_velocities(m0, 300.0, 2);
  const auto nb = ljc_options(DielectricKind::sigmoidal);
  std::vector<double> inv_mass(m0.size());
  for (std::size_t i = 0; i < m0.size(); ++i) inv_mass[i] = ljc::kAccelFactor / m0.mass[i];
  engine::DynamicsOptions o;
  o.dt = 1.0;
  auto run = [&](const char* mode) {
    auto k = mixed_kernel(mode, ljc::StepKernel::graph);
    ljc::Molecule m = m0;
    k->set_system(m, nb);
    ljc::LjcForces f;
    k->compute(f);
    k->advance(m, inv_mass, o, 0, 7, f);
    k->advance(m, inv_mass, o, 7, 23, f);
    return m;
  };
  const ljc::Molecule a = run("near-far"), b = run("double-single");
  double worst = 0, moved = 0;
  for (std::size_t i = 0; i < m0.size(); ++i) {
    worst = std::max({worst, std::fabs(a.x[i] - b.x[i]), std::fabs(a.y[i] - b.y[i]),
                      std::fabs(a.z[i] - b.z[i])});
    moved = std::max(moved, std::fabs(b.x[i] - m0.x[i]));
  }
  EXPECT_LE(worst, 1e-5);  // Å after 30 fs
  EXPECT_GT(moved, 1e-3);
}
#else
TEST(LjcMixedTilesCuda, NotCompiled) {
  GTEST_SKIP() << "the cuda backend is not compiled into this build";
}
#endif

}  // namespace
}  // namespace pairwise::test
