// A formula pair potential (pair_potential.hpp) as an engine::RadialPair.
#pragma once

#include <memory>

#include "engine/formula/pair_potential.hpp"
#include "engine/radial_pair.hpp"

namespace pairwise::formula {

class FormulaPair final : public engine::RadialPair {
 public:
  explicit FormulaPair(const PairPotentialSpec& spec)
      : potential_(compile_pair_potential(spec)), text_(spec.energy) {
    cutoff_ = spec.cutoff;
  }
  void reference(double r2, double& energy, double& force_over_r) const override {
    potential_.reference(r2, energy, force_over_r);
  }
  void batch(const double* r2, int m, double* energy, double* force_over_r,
             std::vector<double>& scratch) const override {
    double* out[] = {energy, force_over_r};
    potential_.program.run(&r2, m, out, scratch);
  }
  void batch(const float* r2, int m, float* energy, float* force_over_r,
             std::vector<float>& scratch) const override {
    float* out[] = {energy, force_over_r};
    potential_.program.run(&r2, m, out, scratch);
  }
  std::string describe() const override { return "formula " + text_; }
  const PairPotential& potential() const { return potential_; }

 private:
  PairPotential potential_;
  std::string text_;
};

}  // namespace pairwise::formula
