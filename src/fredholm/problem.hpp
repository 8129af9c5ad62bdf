// A Fredholm equation of the second kind on an interval or a box, discretized by Nyström's method
// on Gauss–Legendre nodes (tensor products in 2-D and 3-D):
//   f(t) = h(t) + λ ∫_D K(t, s) f(s) ds   →   f_i = h_i + λ (Σ_j w_j K(t_i, s_j) f_j + d_i f_i).
// d_i is the singularity subtraction of kernels that are not smooth on the diagonal (square_well:
// a kink; helmholtz: 1/r): ∫ K(t_i, s) f(s) ds = ∫ K(t_i, s) (f(s) - f(t_i)) ds + f(t_i) c_i with
// c_i = ∫ K(t_i, s) ds computed accurately (split at t_i, or in polar coordinates around it), so
// d_i = c_i - Σ_j w_j K(t_i, s_j) (the pair j = i contributes 0 where K is singular there).
#pragma once

#include <array>
#include <complex>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fredholm/custom_kernel.hpp"
#include "pairwise/physics/fredholm.hpp"

namespace pairwise::fredholm {

namespace ph = physics::fredholm;
using Point = ph::Point<double>;

struct Spec;
enum class KernelKind { exp_ts, power34, gaussian, square_well, helmholtz };
KernelKind parse_kernel(std::string_view text);  // throws pairwise::Error with the known names
std::string_view to_string(KernelKind k);
bool is_complex(KernelKind k);
bool is_complex(const Spec& spec);  // the built-in kernel's or the custom one's
bool uses_subtraction(KernelKind k);

// Right-hand sides h(t):
//   one            1
//   exp_ts_smooth  e^t - (e^{t+1} - 1)/(t + 1)           (exact f = e^t for K = e^{ts}, λ = 1, [0,
//   1]) nr_fred2       √t - (π/2)^{9/4} t^{3/4} / (9/4)       (exact f = √t for K = (ts)^{3/4}, λ =
//   1,
//                                                          [0, π/2]: Numerical Recipes' xfred2)
//   riccati_j      ĵ_l(k t)                              (the free wave of the partial-wave
//   problem) plane_wave     e^{ik z}                              (incident wave of 3-D scattering)
enum class RhsKind { one, exp_ts_smooth, nr_fred2, riccati_j, plane_wave };
RhsKind parse_rhs(std::string_view text);
std::string_view to_string(RhsKind r);

struct Spec {
  int dim = 1;
  std::array<double, 3> lower{0, 0, 0}, upper{1, 1, 1};
  long long n = 16;  // nodes per dimension
  double lambda = 1.0;
  KernelKind kernel = KernelKind::exp_ts;
  ph::KernelParams params;
  RhsKind rhs = RhsKind::exp_ts_smooth;
  // kernel = "custom" (fredholm/custom_kernel.hpp): replaces `kernel` (and `rhs` if it has one).
  std::shared_ptr<const CustomKernel> custom = nullptr;

  // Throws pairwise::Error (what, where = `where`) for N <= 0, a = b, a kernel that does not fit
  // the dimension, bad parameters.
  void validate(const std::string& where = {}) const;
  std::size_t total_nodes() const;
};

struct Nodes {
  std::vector<Point> p;
  std::vector<double> w;
  std::size_t size() const { return w.size(); }
};
Nodes make_nodes(const Spec& spec);

// The checks of a problem's shape that the config reader ([domain], naming the key) and the API
// (pairwise::fredholm::solve) make before Spec::validate, with the messages both give: a node count
// n <= 0 (key "n"), a domain without a < b (key "b", "b_y" or "b_z"). std::nullopt when fine.
struct SpecIssue {
  std::string key, message;
};
std::optional<SpecIssue> check_nodes(const Spec& spec);
std::optional<SpecIssue> check_domain(const Spec& spec);

template <class S>
S rhs_value(const Spec& spec, const Point& t);
// The exact solution where the problem is one of the built-in tests (nr_fred2 with power34 or
// exp_ts_smooth with exp_ts, λ = 1, on their intervals), else nothing.
std::optional<std::function<double(const Point&)>> exact_solution(const Spec& spec);

// c(t) = ∫_D K(t, s) ds for kernels with singularity subtraction.
template <class S>
S row_integral(const Spec& spec, const Point& t);

// Calls f(kernel functor) with the library kernel of `spec` (ph::ExpTs, ph::Power34, ...).
template <class F>
decltype(auto) with_kernel(const Spec& spec, F&& f) {
  if (spec.custom) {
    if (spec.custom->is_complex()) return f(ComplexFormulaKernel{spec.custom.get()});
    return f(FormulaKernel{spec.custom.get()});
  }
  switch (spec.kernel) {
    case KernelKind::exp_ts:
      return f(ph::ExpTs{});
    case KernelKind::power34:
      return f(ph::Power34{});
    case KernelKind::gaussian:
      return f(ph::Gaussian{1.0 / spec.params.sigma2});
    case KernelKind::square_well:
      return f(ph::SquareWell{spec.params.k, spec.params.u0, spec.params.l});
    case KernelKind::helmholtz:
      break;
  }
  return f(ph::Helmholtz{spec.params.k});
}

template <class S>
inline constexpr bool kIsComplex = false;
template <>
inline constexpr bool kIsComplex<std::complex<double>> = true;

// The kernel's value as the solver's scalar type.
template <class S, class K>
S kernel_value(const K& kernel, const Point& t, const Point& s) {
  if constexpr (K::kComplex) {
    const auto v = kernel(t, s);
    if constexpr (kIsComplex<S>) {
      return S(v.re, v.im);
    } else {
      return S(v.re);
    }
  } else {
    return S(kernel(t, s));
  }
}

// Partial-wave scattering on a square well (kernel square_well): the phase shift from the
// solution at the nodes, tan δ_l = (K0²/k) Σ_j w_j ĵ_l(k r_j) u_j, and the analytic one from
// matching the interior solution ĵ_l(q r), q² = k² + K0², at r = R (spherical Bessel functions
// of the C++ standard library).
double phase_shift_numeric(const Spec& spec, const Nodes& nodes, const std::vector<double>& u);
double phase_shift_analytic(int l, double k, double u0, double radius);

}  // namespace pairwise::fredholm
