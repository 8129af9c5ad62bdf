// A Fredholm kernel K(t, s) and right-hand side h(t) from formulas (issue 13, docs/formulas.md):
//
//   [equation]
//   kernel = "custom"
//   kernel_formula = "exp(-a*(t - s)^2); a = 2"    # 1-D: t, s; 2-D/3-D: tx ty tz, sx sy sz and
//                                                  # r = |t − s|
//   rhs_formula = "1"                              # optional h(t) (else rhs = ... as usual)
//
// Complex kernels are two real formulas, the real and the imaginary part (the formula language is
// real; a complex kernel is what the built-in helmholtz is, and cos/sin of a phase is what a user
// writes for e^{iφ}):
//
//   kernel_formula_real = "select(r, cos(k*r)/r, 0); k = 2"
//   kernel_formula_imag = "select(r, sin(k*r)/r, 0); k = 2"
//   rhs_formula_real = "cos(2*tz)"                 # optional complex h(t) (either part may be
//   rhs_formula_imag = "sin(2*tz)"                 # left out: 0)
//
// Kernels smooth on the diagonal (no singularity subtraction). The formulas are compiled to the
// register program (engine/formula), which the cpu backend runs over batches of sources (FP32 in
// single and mixed, as its built-in kernels) and the reference backend pair by pair in double
// (kernel_reference() is the graph walk, for tests); the cuda backend compiles the formulas with
// NVRTC inside the all-pairs kernel (cuda_formula_matvec.hpp).
#pragma once

#include <array>
#include <complex>
#include <memory>
#include <string>

#include "core/config.hpp"
#include "engine/formula/expression.hpp"
#include "engine/formula/program.hpp"
#include "pairwise/hd.hpp"
#include "pairwise/physics/fredholm.hpp"

namespace pairwise::fredholm {

struct Spec;

// One formula of a custom kernel with where it came from (for errors); empty text: absent.
struct FormulaText {
  std::string text, label, where;
};

class CustomKernel {
 public:
  // A real kernel (kernel_imag empty) or a complex one; h(t) optional, complex only with a complex
  // kernel. Throws pairwise::Error "<what> at column C in <label>, <where>".
  CustomKernel(int dim, const FormulaText& kernel, const FormulaText& kernel_imag = {},
               const FormulaText& rhs = {}, const FormulaText& rhs_imag = {});
  // The pre-complex form: a real kernel and a real h(t).
  CustomKernel(int dim, const std::string& kernel, const std::string& kernel_label,
               const std::string& kernel_where, const std::string& rhs = {},
               const std::string& rhs_label = {}, const std::string& rhs_where = {})
      : CustomKernel(dim, FormulaText{kernel, kernel_label, kernel_where}, {},
                     FormulaText{rhs, rhs_label, rhs_where}) {}

  int dim() const { return dim_; }
  bool is_complex() const { return complex_; }
  // The real part (the kernel, for a real one).
  double kernel(double tx, double ty, double tz, double sx, double sy, double sz) const {
    const double in[6] = {tx, ty, tz, sx, sy, sz};
    double out[2] = {0, 0};
    kernel_program_.run_one(in, out);
    return out[0];
  }
  physics::fredholm::Complex<double> complex_kernel(double tx, double ty, double tz, double sx,
                                                    double sy, double sz) const {
    const double in[6] = {tx, ty, tz, sx, sy, sz};
    double out[2] = {0, 0};
    kernel_program_.run_one(in, out);
    return {out[0], out[1]};
  }
  // The double reference: the same formulas by the graph walk.
  double kernel_reference(const physics::fredholm::Point<double>& t,
                          const physics::fredholm::Point<double>& s) const;
  std::complex<double> complex_kernel_reference(const physics::fredholm::Point<double>& t,
                                                const physics::fredholm::Point<double>& s) const;
  // The compiled kernel: inputs t_x t_y t_z s_x s_y s_z, outputs K (or Re K, Im K).
  const formula::Program& program() const { return kernel_program_; }
  bool has_rhs() const { return has_rhs_; }
  std::complex<double> rhs(double tx, double ty, double tz) const {
    const double in[6] = {tx, ty, tz, 0, 0, 0};
    double out[2] = {0, 0};
    rhs_program_.run_one(in, out);
    return {out[0], out[1]};
  }
  const std::string& text() const { return text_; }
  // The four formulas as given: kernel (real part), imaginary part, rhs, rhs imaginary part ("":
  // absent).
  const std::array<std::string, 4>& formulas() const { return formulas_; }

  // For code generators (the cuda backend): the graph, with input slots 0..5 = t_x, t_y, t_z,
  // s_x, s_y, s_z, and the kernel's outputs (real part, and imaginary part when complex).
  const formula::Graph& graph() const { return graph_; }
  std::vector<formula::NodeId> kernel_outputs() const {
    if (complex_) return {kernel_node_, kernel_imag_node_};
    return {kernel_node_};
  }

 private:
  int dim_ = 1;
  bool complex_ = false;
  formula::Graph graph_;
  formula::NodeId kernel_node_ = -1, kernel_imag_node_ = -1;
  formula::Program kernel_program_, rhs_program_;
  bool has_rhs_ = false;
  std::string text_;
  std::array<std::string, 4> formulas_;
};

// The kernels as the functors the backends are templated on (physics/fredholm.hpp's interface).
// Host only: the cuda backend compiles the formulas with NVRTC instead, so the device branch never
// runs. The reference backend and the direct solver call them in double; the cpu backend runs the
// program itself (cpu.cpp), never the FP32 instantiation: Debian's GCC 12.2 at -O2/-O3 miscompiles
// its pattern (SLP vectorization of `float x = p.x, y = p.y, ...; f(x, y, z, x, y, z)` with f
// taking doubles passes the unrounded p.y, p.z for the second copies: |t − s| was 2e-9 instead of
// 0 on the diagonal).
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

struct ComplexFormulaKernel {
  static constexpr bool kComplex = true;
  const CustomKernel* k = nullptr;
  template <class T>
  PW_HD physics::fredholm::Complex<T> operator()(const physics::fredholm::Point<T>& t,
                                                 const physics::fredholm::Point<T>& s) const {
#ifdef __CUDA_ARCH__
    return {};
#else
    const auto v = k->complex_kernel(double(t.x), double(t.y), double(t.z), double(s.x),
                                     double(s.y), double(s.z));
    return {T(v.re), T(v.im)};
#endif
  }
};

// Reads `kernel = "custom"` with kernel_formula (or kernel_formula_real and kernel_formula_imag)
// and rhs_formula (or rhs_formula_real / rhs_formula_imag) from [equation]; returns false (and
// reads nothing) for the built-in kernels.
bool read_custom_kernel(const config::Section& equation, Spec& spec);

}  // namespace pairwise::fredholm
