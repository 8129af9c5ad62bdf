// Every compiled backend and precision against the reference backend (the double oracle): GA and
// GAJ on random sets, coincident particles with ε > 0, ε = 0, one particle, the block-step path
// (predict_and_compute / commit), and bitwise determinism. Bounds: tests/tolerances.hpp.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <vector>

#include "backend_params.hpp"
#include "nbody_sets.hpp"
#include "tolerances.hpp"

namespace pairwise::test {
namespace {

using nbody::ForceKind;
using nbody::Forces;
using nbody::HermiteTerms;
using nbody::Particles;

// N = 1 (no pairs), small N, N around the tile and warp sizes (32, 128, 256) and N a multiple of
// none.
constexpr std::size_t kSizes[] = {1,   2,   3,   7,   31,   32,   33,   127,
                                  128, 129, 255, 257, 1000, 1023, 2049, 3000};
constexpr double kEps2 = 0.05 * 0.05;  // Plummer ε = 0.05, about the mean spacing at N = 3000 / 3
constexpr double kMinSeparation = 0.02;  // ε = 0 sets; see SetOptions::min_separation

bool bitwise_equal(const std::vector<double>& a, const std::vector<double>& b) {
  // (memcmp of empty vectors' null data() is undefined behaviour: UBSan, debug preset.)
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool bitwise_equal(const Forces& a, const Forces& b) {
  return bitwise_equal(a.ax, b.ax) && bitwise_equal(a.ay, b.ay) && bitwise_equal(a.az, b.az) &&
         bitwise_equal(a.jx, b.jx) && bitwise_equal(a.jy, b.jy) && bitwise_equal(a.jz, b.jz) &&
         bitwise_equal(a.pot, b.pot);
}

Forces compute(nbody::GravityKernel& kernel, const Particles& p, ForceKind kind) {
  Forces f;
  kernel.set_particles(p);
  kernel.compute(kind, f);
  return f;
}

class GravityConformance : public BackendTest {
 protected:
  // Checks the sizes of `got` and its max relative errors against `want` (jerk when `jerk`).
  void expect_close(const Forces& got, const Forces& want, bool jerk) const {
    ASSERT_EQ(got.size(), want.size());
    if (jerk) {
      ASSERT_EQ(got.jx.size(), want.size());
    }
    const ForceErrors e = max_relative_errors(got, want);
    const double tol = force_tolerance(precision());
    EXPECT_LE(e.accel, tol) << "acceleration";
    EXPECT_LE(e.pot, tol) << "potential";
    if (jerk) {
      EXPECT_LE(e.jerk, tol) << "jerk";
    }
  }

  void expect_matches_reference(const Particles& p, double eps2, ForceKind kind) const {
    SCOPED_TRACE(testing::Message() << "N = " << p.size() << ", eps2 = " << eps2
                                    << (kind == ForceKind::accel ? ", GA" : ", GAJ"));
    auto kernel = make_kernel(eps2);
    auto reference = make_reference_kernel(eps2);
    expect_close(compute(*kernel, p, kind), compute(*reference, p, kind),
                 kind == ForceKind::accel_jerk);
  }
};

TEST_P(GravityConformance, AccelMatchesReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (std::size_t n : kSizes) {
    expect_matches_reference(random_particles(n, 100 + n, {Region::cube}), kEps2, ForceKind::accel);
  }
}

TEST_P(GravityConformance, AccelJerkMatchesReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (std::size_t n : kSizes) {
    expect_matches_reference(random_particles(n, 200 + n, {Region::ball}), kEps2,
                             ForceKind::accel_jerk);
  }
}

TEST_P(GravityConformance, CoincidentParticlesWithSofteningMatchReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (std::size_t n : kSizes) {
    const Particles p = random_particles(n, 300 + n, {Region::cube, /*coincident=*/true});
    expect_matches_reference(p, kEps2, ForceKind::accel);
    expect_matches_reference(p, kEps2, ForceKind::accel_jerk);
  }
}

TEST_P(GravityConformance, UnsoftenedMatchesReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (std::size_t n : kSizes) {
    const Particles p = random_particles(n, 400 + n, {Region::ball, false, kMinSeparation});
    expect_matches_reference(p, 0.0, ForceKind::accel);
    expect_matches_reference(p, 0.0, ForceKind::accel_jerk);
  }
}

// One particle feels nothing: a, jerk and φ exactly zero, softened or not.
TEST_P(GravityConformance, SingleParticleFeelsNothing) {
  const Particles p = random_particles(1, 7);
  for (double eps2 : {kEps2, 0.0}) {
    auto kernel = make_kernel(eps2);
    const Forces f = compute(*kernel, p, ForceKind::accel_jerk);
    ASSERT_EQ(f.size(), 1u);
    ASSERT_EQ(f.jx.size(), 1u);
    for (double v : {f.ax[0], f.ay[0], f.az[0], f.jx[0], f.jy[0], f.jz[0], f.pot[0]}) {
      EXPECT_EQ(v, 0.0) << "eps2 = " << eps2;
    }
  }
}

// Block steps: predict every particle from random Hermite terms and t_last, forces on a random
// active subset, commit corrected values, and predict again; each step against the reference.
TEST_P(GravityConformance, BlockStepPathMatchesReference) {
  PAIRWISE_SKIP_THE_REFERENCE_AGAINST_ITSELF();
  for (std::size_t n :
       {std::size_t{1}, std::size_t{7}, std::size_t{129}, std::size_t{1000}, std::size_t{2049}}) {
    SCOPED_TRACE(testing::Message() << "N = " << n);
    const Particles p = random_particles(n, 500 + n, {Region::ball, true});
    auto kernel = make_kernel(kEps2);
    auto reference = make_reference_kernel(kEps2);
    for (auto* k : {kernel.get(), reference.get()}) {
      k->set_particles(p);
      k->set_hermite_terms(random_hermite_terms(n, 1.0, 600 + n));
    }
    double t = 1.0 + 1.0 / 128;
    for (int step = 0; step < 2; ++step, t += 1.0 / 64) {
      SCOPED_TRACE(testing::Message() << "block step " << step << ", t = " << t);
      const std::vector<int> active = random_active(n, 0.3, 700 + n + step);
      Forces got, want;
      Particles got_p, want_p;
      kernel->predict_and_compute(t, active, got, got_p);
      reference->predict_and_compute(t, active, want, want_p);
      expect_close(got, want, true);
      const double pos =
          max_relative_error({&got_p.x, &got_p.y, &got_p.z}, {&want_p.x, &want_p.y, &want_p.z});
      const double vel = max_relative_error({&got_p.vx, &got_p.vy, &got_p.vz},
                                            {&want_p.vx, &want_p.vy, &want_p.vz});
      EXPECT_LE(pos, prediction_tolerance(precision())) << "predicted positions";
      EXPECT_LE(vel, prediction_tolerance(precision())) << "predicted velocities";
      // Commit the reference's predicted state, shifted, with new terms at t: the next prediction
      // starts from it on both backends.
      Particles corrected = want_p;
      for (std::size_t k = 0; k < active.size(); ++k)
        corrected.x[k] += 1e-3, corrected.vy[k] -= 1e-3;
      HermiteTerms terms = random_hermite_terms(active.size(), t, 800 + n + step);
      for (double& tk : terms.t) tk = t;
      kernel->commit(active, corrected, terms);
      reference->commit(active, corrected, terms);
    }
  }
}

// The same input gives bitwise identical results: twice on one kernel, on a fresh kernel, and with
// one OpenMP thread instead of the default (each target's sum must not depend on the thread count).
TEST_P(GravityConformance, SameInputGivesBitwiseIdenticalResults) {
  const Particles p = random_particles(1000, 900, {Region::ball, true});
  for (ForceKind kind : {ForceKind::accel, ForceKind::accel_jerk}) {
    auto kernel = make_kernel(kEps2);
    const Forces first = compute(*kernel, p, kind);
    EXPECT_TRUE(bitwise_equal(first, compute(*kernel, p, kind))) << "same kernel";
    EXPECT_TRUE(bitwise_equal(first, compute(*make_kernel(kEps2), p, kind))) << "fresh kernel";
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const Forces one_thread = compute(*make_kernel(kEps2), p, kind);
    omp_set_num_threads(threads);
    EXPECT_TRUE(bitwise_equal(first, one_thread)) << "one OpenMP thread";
  }
  // The block-step path, twice from the same state.
  const std::vector<int> active = random_active(p.size(), 0.1, 901);
  Forces f[2];
  Particles q[2];
  for (int r = 0; r < 2; ++r) {
    auto kernel = make_kernel(kEps2);
    kernel->set_particles(p);
    kernel->set_hermite_terms(random_hermite_terms(p.size(), 0.0, 902));
    kernel->predict_and_compute(1.0 / 32, active, f[r], q[r]);
  }
  EXPECT_TRUE(bitwise_equal(f[0], f[1])) << "block step forces";
  EXPECT_TRUE(bitwise_equal(q[0].x, q[1].x) && bitwise_equal(q[0].vz, q[1].vz))
      << "block step prediction";
}

INSTANTIATE_TEST_SUITE_P(Backends, GravityConformance, testing::ValuesIn(compiled_backend_cases()),
                         backend_case_name);

}  // namespace
}  // namespace pairwise::test
