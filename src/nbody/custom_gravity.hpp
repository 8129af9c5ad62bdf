// A custom softened gravity kernel from a formula (issue 13, docs/formulas.md):
//
//   [system]
//   potential = "-1/sqrt(r^2 + eps^2)"     # φ(r): pair potential per unit masses (G = 1)
//
// eps is the configured softening length ([system] eps). The pair (i, j) contributes
//   φ_i += m_j φ(r),   a_i += m_j G(r²) d,   jerk_i += m_j (G dv + 2 G′(r²) (d·dv) d)
// with d = x_j − x_i, dv = v_j − v_i, G = φ′(r)/r (so φ = −1/r gives Newton's m d/r³), and G′ the
// derivative in r², both derived symbolically from φ (the jerk term GAJ needs). Reference (graph
// walk, double) and cpu (the compiled program over batches of sources) backends; cuda runs φ, G, G′
// as a formula::RadialProgram inside the Newton-3 kernel, compiled with NVRTC (cuda_formula.cuh).
#pragma once

#include <memory>
#include <string>

#include "engine/formula/expression.hpp"
#include "engine/formula/program.hpp"
#include "engine/formula/radial_program.hpp"

namespace pairwise::nbody {

class CustomGravity {
 public:
  // Throws pairwise::Error "<what> at column C in <label>, <where>".
  CustomGravity(const std::string& potential, double eps, const std::string& label,
                const std::string& where);
  // φ, G, G′ at r² (the double reference, by the graph walk).
  void reference(double r2, double& phi, double& g, double& dg) const;
  const formula::Program& program() const { return program_; }  // input r²; outputs φ, G, G′
  const std::string& text() const { return text_; }
  // φ, G, G′ as functions of r² in product normal form (GPU code).
  formula::RadialProgram radial() const;

 private:
  formula::Graph graph_;
  formula::NodeId phi_ = -1, g_ = -1, dg_ = -1;
  formula::Program program_;
  std::string text_;
};

}  // namespace pairwise::nbody
