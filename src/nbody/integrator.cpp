#include "nbody/integrator.hpp"

#include "nbody/integrators.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

IntegratorKind parse_integrator(std::string_view text) {
  if (text == "leapfrog") return IntegratorKind::leapfrog;
  if (text == "hermite") return IntegratorKind::hermite;
  if (text == "hermite_block") return IntegratorKind::hermite_block;
  throw Error("unknown integrator '" + std::string(text) +
              "' (expected leapfrog, hermite or hermite_block)");
}

std::string_view to_string(IntegratorKind k) {
  switch (k) {
    case IntegratorKind::leapfrog:
      return "leapfrog";
    case IntegratorKind::hermite:
      return "hermite";
    case IntegratorKind::hermite_block:
      return "hermite_block";
  }
  return "?";
}

std::unique_ptr<Integrator> make_integrator(const IntegratorOptions& options, GravityKernel& kernel,
                                            Particles initial) {
  switch (options.kind) {
    case IntegratorKind::leapfrog:
      if (!(options.dt > 0.0))
        throw Error("leapfrog needs dt > 0, got " + std::to_string(options.dt), "integrator.dt");
      return std::make_unique<LeapfrogIntegrator>(options.dt, kernel, std::move(initial));
    case IntegratorKind::hermite:
      if (!(options.eta > 0.0) && !(options.dt > 0.0))
        throw Error("hermite needs eta > 0 (adaptive) or dt > 0 with eta = 0 (fixed)",
                    "integrator.eta");
      return std::make_unique<HermiteIntegrator>(options, kernel, std::move(initial));
    case IntegratorKind::hermite_block:
      return std::make_unique<BlockHermiteIntegrator>(options, kernel, std::move(initial));
  }
  throw Error("unknown integrator");
}

}  // namespace pairwise::nbody
