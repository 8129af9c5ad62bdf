// nbody custom potentials (issue 13): φ(r) = −1/√(r² + ε²) as a formula gives the built-in
// Plummer-softened kernel (a, jerk, φ) on reference and cpu; for another kernel a = −∇φ and the
// symbolically derived jerk = da/dt by central differences (1e-6); errors name the column. The cuda
// split path with a formula (double precision, block steps): its NVRTC program compiles for sm_90
// (CPU), and on the GPU it matches the built-in (double, 1e-12) and the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "engine/formula/nvrtc_loader.hpp"
#include "nbody/cuda_formula_split.hpp"
#include "nbody/custom_gravity.hpp"
#include "nbody/gravity_kernel.hpp"
#include "nbody/integrator.hpp"
#include "nbody_sets.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/error.hpp"
#include "tolerances.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::nbody;

Forces compute(BackendKind b, Precision p, const Particles& ps, double eps,
               const std::string& potential) {
  KernelOptions o;
  o.precision = p;
  o.eps2 = eps * eps;
  if (!potential.empty())
    o.custom = std::make_shared<const CustomGravity>(potential, eps, "[t]", "t");
  auto k = make_gravity_kernel(b, o);
  k->set_particles(ps);
  Forces f;
  k->compute(ForceKind::accel_jerk, f);
  return f;
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    num = std::max(num, std::abs(a[i] - b[i])), den = std::max(den, std::abs(b[i]));
  return num / den;
}

TEST(NbodyCustom, PlummerFormulaMatchesBuiltIn) {
  const Particles ps = test::random_particles(300, 7);
  const double eps = 0.05;
  const Forces ref = compute(BackendKind::reference, Precision::double_, ps, eps, "");
  for (auto [b, p, tol] : {std::tuple{BackendKind::reference, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::double_, 1e-12},
                           {BackendKind::cpu, Precision::mixed, 2e-5}}) {
    const Forces f = compute(b, p, ps, eps, "-1/sqrt(r^2 + eps^2)");
    for (auto [x, y] : {std::pair{&f.ax, &ref.ax},
                        {&f.ay, &ref.ay},
                        {&f.az, &ref.az},
                        {&f.jx, &ref.jx},
                        {&f.jz, &ref.jz},
                        {&f.pot, &ref.pot}})
      EXPECT_LT(max_rel(*x, *y), tol) << to_string(b) << " " << to_string(p);
  }
}

TEST(NbodyCustom, AccelIsMinusGradientAndJerkIsDerivative) {
  const std::string phi = "-(1 + 0.3*exp(-r/lam))/sqrt(r^2 + eps^2); lam = 0.4";
  test::SetOptions so;
  so.min_separation = 0.05;  // keeps the third derivatives, and the differences' error, bounded
  const Particles ps = test::random_particles(64, 11, so);
  const double eps = 0.02;
  const Forces f = compute(BackendKind::reference, Precision::double_, ps, eps, phi);
  const double h = 1e-6;
  for (std::size_t k : {0u, 9u, 33u, 63u}) {
    // a_k = −∇_k φ_k: move particle k alone.
    for (int d = 0; d < 3; ++d) {
      Particles p = ps, m = ps;
      (d == 0 ? p.x : d == 1 ? p.y : p.z)[k] += h;
      (d == 0 ? m.x : d == 1 ? m.y : m.z)[k] -= h;
      const double fd = -(compute(BackendKind::reference, Precision::double_, p, eps, phi).pot[k] -
                          compute(BackendKind::reference, Precision::double_, m, eps, phi).pot[k]) /
                        (2 * h);
      const double a = (d == 0 ? f.ax : d == 1 ? f.ay : f.az)[k];
      EXPECT_NEAR(a, fd, 1e-6 * std::max(1.0, std::abs(a))) << "particle " << k << " dim " << d;
    }
  }
  // jerk = da/dt along the motion x ± h v.
  Particles p = ps, m = ps;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    p.x[i] += h * ps.vx[i], p.y[i] += h * ps.vy[i], p.z[i] += h * ps.vz[i];
    m.x[i] -= h * ps.vx[i], m.y[i] -= h * ps.vy[i], m.z[i] -= h * ps.vz[i];
  }
  const Forces fp = compute(BackendKind::reference, Precision::double_, p, eps, phi);
  const Forces fm = compute(BackendKind::reference, Precision::double_, m, eps, phi);
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const double fd[3] = {(fp.ax[k] - fm.ax[k]) / (2 * h), (fp.ay[k] - fm.ay[k]) / (2 * h),
                          (fp.az[k] - fm.az[k]) / (2 * h)};
    const double j[3] = {f.jx[k], f.jy[k], f.jz[k]};
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(j[d], fd[d], 1e-6 * std::max(1.0, std::abs(j[d])));
  }
  const Forces cpu = compute(BackendKind::cpu, Precision::double_, ps, eps, phi);
  EXPECT_LT(max_rel(cpu.jx, f.jx), 1e-12);
}

// Formula errors name the column.
TEST(NbodyCustom, Errors) {
  try {
    CustomGravity("-1/sqrt(r^2 + epss^2)", 0.01, "[system] potential", "p.toml:4");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown name 'epss' at column 15 in [system] potential, did you mean "
                 "'eps'?, p.toml:4");
  }
}

// The split path's program (nbody/cuda_formula_split.hpp): the all-pairs engine's kernel with the
// formula's policy, as NVRTC compiles it for sm_90 (no device needed; skipped without libnvrtc), in
// every precision (FP32 pairs kI = 4, FP64 kI = 2): GAJ softened (finite at r = 0: the self term
// removed), GA unsoftened (pairs at d = 0 skipped).
TEST(NbodyCustom, SplitProgramCompilesWithNvrtc) {
  for (const char* phi : {"-1/sqrt(r^2 + eps^2)", "-1/r"}) {
    const CustomGravity g(phi, 0.05, "[t]", "t");
    for (Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
      {  // GAJ for the softened formula, GA for -1/r (seconds each)
        const bool jerk = phi[3] == 's';
        cuda::FormulaSplitVariant v;
        v.precision = p;
        v.jerk = jerk;
        v.tile = cuda::formula_split_tile(p);
        formula::CudaProgram program = cuda::formula_split_program(g.radial(), v, 90);
        EXPECT_NE(program.source.find(std::string("kFiniteAtZero = ") +
                                      (phi[3] == 's' ? "true" : "false")),
                  std::string::npos)
            << program.source;
        if (const std::string why = formula::nvrtc_unavailable_reason(); !why.empty())
          GTEST_SKIP() << why;
        program.use_cache = false;
        SCOPED_TRACE(std::string(phi) + " " + std::string(to_string(p)) + (jerk ? " GAJ" : " GA"));
        const auto k = formula::compile_cuda_program(program);
        EXPECT_GT(k.cubin.size(), 1000u);
        ASSERT_EQ(k.lowered.size(), 1u);
        EXPECT_NE(k.lowered[0].find("all_pairs_kernel"), std::string::npos);
      }
    }
  }
}

// ---- On the GPU (skipped without a device) ----

bool no_gpu(std::string* why) {
  return !cuda_compiled() || cuda_devices(why).empty();
}

std::unique_ptr<GravityKernel> gpu_kernel(Precision p, double eps, const std::string& phi) {
  KernelOptions o;
  o.precision = p;
  o.eps2 = eps * eps;
  if (!phi.empty()) o.custom = std::make_shared<const CustomGravity>(phi, eps, "[t]", "t");
  return make_gravity_kernel(BackendKind::cuda, o);
}

// Double precision with a formula: the split path with the formula's policy (NVRTC), against the
// built-in double kernels (the same sums but for roundings of φ, G): GA, GAJ, block-step
// evaluations (active targets, predicted x, v) and short runs of every integrator, 1e-12.
TEST(NbodyCustomCuda, DoubleFormulaMatchesBuiltIn) {
  if (std::string why; no_gpu(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const double eps = 0.05, tol = test::force_tolerance(Precision::double_);
  const char* plummer = "-1/sqrt(r^2 + eps^2)";
  const Particles ps = test::random_particles(1500, 21, {test::Region::ball, true});
  for (ForceKind kind : {ForceKind::accel, ForceKind::accel_jerk}) {
    Forces f, b;
    auto kf = gpu_kernel(Precision::double_, eps, plummer);
    auto kb = gpu_kernel(Precision::double_, eps, "");
    kf->set_particles(ps);
    kb->set_particles(ps);
    kf->compute(kind, f);
    kb->compute(kind, b);
    const test::ForceErrors e = test::max_relative_errors(f, b);
    EXPECT_LE(e.accel, tol);
    EXPECT_LE(e.pot, tol);
    if (kind == ForceKind::accel_jerk) {
      EXPECT_LE(e.jerk, tol);
    }
  }
  {  // one block-step evaluation
    const HermiteTerms terms = test::random_hermite_terms(ps.size(), 0.25, 22);
    const std::vector<int> active = test::random_active(ps.size(), 0.1, 23);
    Forces f, b;
    Particles xf, xb;
    auto kf = gpu_kernel(Precision::double_, eps, plummer);
    auto kb = gpu_kernel(Precision::double_, eps, "");
    for (auto* k : {kf.get(), kb.get()}) {
      k->set_particles(ps);
      k->set_hermite_terms(terms);
    }
    kf->predict_and_compute(0.25, active, f, xf);
    kb->predict_and_compute(0.25, active, b, xb);
    const test::ForceErrors e = test::max_relative_errors(f, b);
    EXPECT_LE(e.accel, tol);
    EXPECT_LE(e.pot, tol);
    EXPECT_LE(e.jerk, tol);
    EXPECT_LE(test::max_relative_error({&xf.x, &xf.y, &xf.z}, {&xb.x, &xb.y, &xb.z}), tol);
    EXPECT_LE(test::max_relative_error({&xf.vx, &xf.vy, &xf.vz}, {&xb.vx, &xb.vy, &xb.vz}), tol);
  }
  const Particles small = test::random_particles(256, 24, {test::Region::ball});
  for (IntegratorKind ik :
       {IntegratorKind::leapfrog, IntegratorKind::hermite, IntegratorKind::hermite_block}) {
    SCOPED_TRACE(std::string(to_string(ik)));
    IntegratorOptions io;
    io.kind = ik;
    auto kf = gpu_kernel(Precision::double_, eps, plummer);
    auto kb = gpu_kernel(Precision::double_, eps, "");
    auto f = make_integrator(io, *kf, small);
    auto b = make_integrator(io, *kb, small);
    f->advance_to(1.0 / 16);
    b->advance_to(1.0 / 16);
    EXPECT_EQ(f->stats().particle_steps, b->stats().particle_steps);
    const Particles& sf = f->state();
    const Particles& sb = b->state();
    EXPECT_LE(test::max_relative_error({&sf.x, &sf.y, &sf.z}, {&sb.x, &sb.y, &sb.z}), tol);
    EXPECT_LE(test::max_relative_error({&sf.vx, &sf.vy, &sf.vz}, {&sb.vx, &sb.vy, &sb.vz}), tol);
  }
}

// A formula other than Plummer on the split path in every precision (block steps: the active
// targets alone; double: full evaluations too) against the double reference backend at the
// precision tolerances; an unsoftened formula (-1/r, ε = 0: pairs at d = 0 skipped) as well.
TEST(NbodyCustomCuda, SplitPathMatchesReferenceInEveryPrecision) {
  if (std::string why; no_gpu(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
  const char* screened = "-(1 + 0.3*exp(-r/lam))/sqrt(r^2 + eps^2); lam = 0.4";
  test::SetOptions so;
  so.region = test::Region::ball;
  so.min_separation = 0.02;  // ε = 0 for -1/r: see SetOptions::min_separation
  const Particles ps = test::random_particles(1200, 31, so);
  const HermiteTerms terms = test::random_hermite_terms(ps.size(), 0.25, 32);
  const std::vector<int> active = test::random_active(ps.size(), 0.2, 33);
  for (auto [phi, eps] : {std::pair{screened, 0.05}, std::pair{"-1/r", 0.0}}) {
    KernelOptions ro;
    ro.eps2 = eps * eps;
    ro.custom = std::make_shared<const CustomGravity>(phi, eps, "[t]", "t");
    auto ref = make_gravity_kernel(BackendKind::reference, ro);
    ref->set_particles(ps);
    ref->set_hermite_terms(terms);
    Forces want, want_full;
    Particles want_x;
    ref->predict_and_compute(0.25, active, want, want_x);
    ref->set_particles(ps);
    ref->compute(ForceKind::accel_jerk, want_full);
    for (Precision p : {Precision::single, Precision::mixed, Precision::double_}) {
      SCOPED_TRACE(std::string(phi) + " " + std::string(to_string(p)));
      const double tol = test::force_tolerance(p);
      auto k = gpu_kernel(p, eps, phi);
      k->set_particles(ps);
      k->set_hermite_terms(terms);
      Forces got;
      Particles got_x;
      k->predict_and_compute(0.25, active, got, got_x);
      test::ForceErrors e = test::max_relative_errors(got, want);
      EXPECT_LE(e.accel, tol);
      EXPECT_LE(e.pot, tol);
      EXPECT_LE(e.jerk, tol);
      EXPECT_LE(test::max_relative_error({&got_x.x, &got_x.y, &got_x.z},
                                         {&want_x.x, &want_x.y, &want_x.z}),
                test::prediction_tolerance(p));
      k->set_particles(ps);
      Forces full;
      k->compute(ForceKind::accel_jerk, full);
      e = test::max_relative_errors(full, want_full);
      EXPECT_LE(e.accel, tol);
      EXPECT_LE(e.pot, tol);
      EXPECT_LE(e.jerk, tol);
    }
  }
}

}  // namespace
