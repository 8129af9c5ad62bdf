// A custom potential on the cuda backend (issue 13): the Newton-3 kernels with the formula's pair
// term, compiled at run time with NVRTC (nbody/cuda_formula.cuh). Against the double reference
// backend running the same formula, at the precision tolerances of tests/tolerances.hpp: Plummer as
// a formula (general and equal masses: the equal-mass kernels, pads at 1e25 where the formula
// vanishes), another softened kernel, GA and GAJ, single and mixed, partial and diagonal tiles, and
// block steps (active subsets, predicted x and v: the split path with the formula's policy, every
// precision); formula Plummer also against the built-in cuda kernels. Double precision (the split
// path for full evaluations too) against the reference at 1e-12.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "backend_params.hpp"
#include "nbody/custom_gravity.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody_sets.hpp"
#include "pairwise/error.hpp"
#include "tolerances.hpp"

namespace pairwise::test {
namespace {

using nbody::ForceKind;
using nbody::Forces;
using nbody::Particles;

constexpr double kEps = 0.05;
const char* const kPlummer = "-1/sqrt(r^2 + eps^2)";
const char* const kScreened = "-(1 + 0.3*exp(-r/lam))/sqrt(r^2 + eps^2); lam = 0.4";

std::unique_ptr<nbody::GravityKernel> kernel(BackendKind b, Precision p, const std::string& phi) {
  nbody::KernelOptions o;
  o.precision = p;
  o.eps2 = kEps * kEps;
  if (!phi.empty()) o.custom = std::make_shared<const nbody::CustomGravity>(phi, kEps, "[t]", "t");
  return nbody::make_gravity_kernel(b, o);
}

Forces compute(nbody::GravityKernel& k, const Particles& p, ForceKind kind) {
  Forces f;
  k.set_particles(p);
  k.compute(kind, f);
  return f;
}

Particles with_equal_masses(Particles p) {
  for (double& m : p.m) m = 1.0 / double(p.size());
  return p;
}

void expect_close(const Forces& got, const Forces& want, bool jerk, double tol) {
  ASSERT_EQ(got.size(), want.size());
  const ForceErrors e = max_relative_errors(got, want);
  EXPECT_LE(e.accel, tol) << "acceleration";
  EXPECT_LE(e.pot, tol) << "potential";
  if (jerk) EXPECT_LE(e.jerk, tol) << "jerk";
}

class GravityFormulaCuda : public testing::Test {
 public:
  void SetUp() override {
    std::string why;
    if (!cuda_compiled() || cuda_devices(&why).empty())
      GTEST_SKIP() << "no usable CUDA device: " << why;
  }
};

TEST_F(GravityFormulaCuda, MatchesReferenceAndBuiltIn) {
  for (const char* phi : {kPlummer, kScreened}) {
    for (const Precision p : {Precision::single, Precision::mixed}) {
      for (const bool equal : {false, true}) {
        for (const std::size_t n :
             {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{4097}}) {
          // No coincident pairs: the reference walks G = φ′/r, 0/0 at r = 0 (the GPU form cancels
          // r).
          Particles set = random_particles(n, 3100 + n, {Region::ball});
          if (equal) set = with_equal_masses(set);
          for (const ForceKind kind : {ForceKind::accel, ForceKind::accel_jerk}) {
            const bool jerk = kind == ForceKind::accel_jerk;
            SCOPED_TRACE(testing::Message()
                         << phi << ", " << to_string(p) << ", N = " << n
                         << (equal ? ", equal masses" : "") << (jerk ? ", GAJ" : ", GA"));
            const Forces got = compute(*kernel(BackendKind::cuda, p, phi), set, kind);
            const Forces want =
                compute(*kernel(BackendKind::reference, Precision::double_, phi), set, kind);
            expect_close(got, want, jerk, force_tolerance(p));
            if (phi == kPlummer) {  // the built-in kernels, same precision
              const Forces builtin = compute(*kernel(BackendKind::cuda, p, ""), set, kind);
              expect_close(got, builtin, jerk, force_tolerance(p));
            }
          }
        }
      }
    }
  }
}

// Block steps: every particle predicted on the device, forces on an active subset with their
// predicted x, v (the split path: the active targets alone).
TEST_F(GravityFormulaCuda, BlockStepsMatchReference) {
  const std::size_t n = 2000;
  const Particles set = random_particles(n, 3300, {Region::ball, true});
  const nbody::HermiteTerms terms = random_hermite_terms(n, 0.25, 3301);
  const std::vector<int> active = random_active(n, 0.1, 3302);
  for (const Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
    SCOPED_TRACE(to_string(p));
    Forces got, want;
    Particles got_x, want_x;
    auto k = kernel(BackendKind::cuda, p, kScreened);
    auto r = kernel(BackendKind::reference, Precision::double_, kScreened);
    for (auto* kk : {k.get(), r.get()}) {
      kk->set_particles(set);
      kk->set_hermite_terms(terms);
    }
    k->predict_and_compute(0.25, active, got, got_x);
    r->predict_and_compute(0.25, active, want, want_x);
    expect_close(got, want, true, force_tolerance(p));
    EXPECT_LE(max_relative_error({&got_x.x, &got_x.y, &got_x.z}, {&want_x.x, &want_x.y, &want_x.z}),
              prediction_tolerance(p));
    EXPECT_LE(
        max_relative_error({&got_x.vx, &got_x.vy, &got_x.vz}, {&want_x.vx, &want_x.vy, &want_x.vz}),
        prediction_tolerance(p));
  }
}

// Double precision: the split path with the formula's policy, partial tiles included.
TEST_F(GravityFormulaCuda, DoublePrecisionMatchesReferenceAndBuiltIn) {
  for (const char* phi : {kPlummer, kScreened}) {
    for (const std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}}) {
      const Particles set = random_particles(n, 3400 + n, {Region::ball});
      for (const ForceKind kind : {ForceKind::accel, ForceKind::accel_jerk}) {
        const bool jerk = kind == ForceKind::accel_jerk;
        SCOPED_TRACE(testing::Message() << phi << ", N = " << n << (jerk ? ", GAJ" : ", GA"));
        const Forces got = compute(*kernel(BackendKind::cuda, Precision::double_, phi), set, kind);
        const Forces want =
            compute(*kernel(BackendKind::reference, Precision::double_, phi), set, kind);
        expect_close(got, want, jerk, force_tolerance(Precision::double_));
        if (phi == kPlummer) {
          const Forces builtin =
              compute(*kernel(BackendKind::cuda, Precision::double_, ""), set, kind);
          expect_close(got, builtin, jerk, force_tolerance(Precision::double_));
        }
      }
    }
  }
}

}  // namespace
}  // namespace pairwise::test
