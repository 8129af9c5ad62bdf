// A Fredholm kernel K(t, s) and right-hand side h(t) from formulas (issue 13, docs/formulas.md):
//
//   [equation]
//   kernel = "custom"
//   kernel_formula = "exp(-a*(t - s)^2); a = 2"    # 1-D: t, s; 2-D/3-D: tx ty tz, sx sy sz and
//                                                  # r = |t − s|
//   rhs_formula = "1"                              # optional h(t) (else rhs = ... as usual)
//
// Real kernels, smooth on the diagonal (no singularity subtraction). The formula is compiled to
// the register program (engine/formula) and evaluated pair by pair on the reference and cpu
// backends in double (the cpu backend's FP32 modes round the value); the cuda backend refuses it.
#pragma once

#include <memory>
#include <string>

#include "core/config.hpp"
#include "engine/formula/expression.hpp"
#include "engine/formula/program.hpp"
#include "pairwise/hd.hpp"
#include "pairwise/physics/fredholm.hpp"

namespace pairwise::fredholm {

struct Spec;

class CustomKernel {
 public:
  // Throws pairwise::Error "<what> at column C in <label>, <where>".
  CustomKernel(int dim, const std::string& kernel, const std::string& kernel_label,
               const std::string& kernel_where, const std::string& rhs = {},
               const std::string& rhs_label = {}, const std::string& rhs_where = {});
  double kernel(double tx, double ty, double tz, double sx, double sy, double sz) const {
    const double in[6] = {tx, ty, tz, sx, sy, sz};
    double out = 0;
    kernel_program_.run_one(in, &out);
    return out;
  }
  // The double reference: the same formula by the graph walk.
  double kernel_reference(const physics::fredholm::Point<double>& t,
                          const physics::fredholm::Point<double>& s) const;
  bool has_rhs() const { return has_rhs_; }
  double rhs(double tx, double ty, double tz) const {
    const double in[6] = {tx, ty, tz, 0, 0, 0};
    double out = 0;
    rhs_program_.run_one(in, &out);
    return out;
  }
  const std::string& text() const { return text_; }

 private:
  formula::Graph graph_;
  formula::NodeId kernel_node_ = -1, rhs_node_ = -1;
  formula::Program kernel_program_, rhs_program_;
  bool has_rhs_ = false;
  std::string text_;
};

// The kernel as the functor the backends are templated on (physics/fredholm.hpp's interface).
// Host only: make_matvec refuses custom kernels on cuda, so the device branch never runs.
struct FormulaKernel {
  static constexpr bool kComplex = false;
  const CustomKernel* k = nullptr;
  template <class T>
  PW_HD T operator()(const physics::fredholm::Point<T>& t,
                     const physics::fredholm::Point<T>& s) const {
#ifdef __CUDA_ARCH__
    return T(0);
#else
    return T(
        k->kernel(double(t.x), double(t.y), double(t.z), double(s.x), double(s.y), double(s.z)));
#endif
  }
};

// Reads `kernel = "custom"` with kernel_formula / rhs_formula from [equation]; returns false (and
// reads nothing) for the built-in kernels.
bool read_custom_kernel(const config::Section& equation, Spec& spec);

}  // namespace pairwise::fredholm
