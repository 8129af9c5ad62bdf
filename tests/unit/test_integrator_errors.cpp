// Integrators stop with a clear error when the state stops being finite, naming the particle.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "nbody/gravity_kernel.hpp"
#include "nbody/initial_conditions.hpp"
#include "nbody/integrator.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {
namespace {

// The reference kernel, except that particle `bad` gets a NaN acceleration once `poison` is set:
// what an overflow in a close encounter would produce.
class PoisonedKernel final : public GravityKernel {
 public:
  explicit PoisonedKernel(int bad)
      : inner_(make_gravity_kernel(BackendKind::reference, {Precision::double_, 1e-4, 0})),
        bad_(bad) {}
  bool poison = false;

  std::string device_name() const override { return inner_->device_name(); }
  BackendKind backend() const override { return inner_->backend(); }
  Precision precision() const override { return inner_->precision(); }
  void set_particles(const Particles& p) override { inner_->set_particles(p); }
  void compute(ForceKind kind, Forces& out) override {
    inner_->compute(kind, out);
    if (poison) out.ax[bad_] = std::numeric_limits<double>::quiet_NaN();
  }
  void set_hermite_terms(const HermiteTerms& terms) override { inner_->set_hermite_terms(terms); }
  void predict_and_compute(double t, std::span<const int> active, Forces& out,
                           Particles& predicted) override {
    inner_->predict_and_compute(t, active, out, predicted);
    for (std::size_t k = 0; k < active.size(); ++k)
      if (poison && active[k] == bad_) out.ax[k] = std::numeric_limits<double>::quiet_NaN();
  }
  void commit(std::span<const int> active, const Particles& corrected,
              const HermiteTerms& terms) override {
    inner_->commit(active, corrected, terms);
  }
  double time_compute(ForceKind kind, int repeats) override {
    return inner_->time_compute(kind, repeats);
  }

 private:
  std::unique_ptr<GravityKernel> inner_;
  int bad_;
};

TEST(IntegratorErrors, NonFiniteStateNamesTheParticle) {
  for (IntegratorKind kind :
       {IntegratorKind::leapfrog, IntegratorKind::hermite, IntegratorKind::hermite_block}) {
    PoisonedKernel kernel(5);
    IntegratorOptions options;
    options.kind = kind;
    options.dt = 1.0 / 64;
    auto integrator = make_integrator(options, kernel, make_plummer(16, 3));
    integrator->advance_to(0.0625);  // healthy so far
    kernel.poison = true;
    try {
      integrator->advance_to(0.125);
      ADD_FAILURE() << to_string(kind) << ": no error for a NaN state";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("particle 5 at t = "), std::string::npos) << what;  // not 15
      EXPECT_NE(what.find("non-finite"), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace pairwise::nbody
