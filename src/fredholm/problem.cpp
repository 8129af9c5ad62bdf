#include "fredholm/problem.hpp"

#include <cmath>
#include <numbers>

#include "core/config.hpp"
#include "pairwise/error.hpp"
#include "pairwise/quadrature.hpp"

namespace pairwise::fredholm {
namespace {

constexpr double kPi = std::numbers::pi;

const std::string kKernelNames[] = {"exp_ts", "power34", "gaussian", "square_well", "helmholtz"};
const std::string kRhsNames[] = {"one", "exp_ts_smooth", "nr_fred2", "riccati_j", "plane_wave"};

std::string join(std::span<const std::string> names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i)
    s += (i ? (i + 1 == names.size() ? " or " : ", ") : "") + names[i];
  return s;
}

// G(x) = ∫_0^1 s e^{ixs} ds = (e^{ix}(1 - ix) - 1) / x², and E(x) = ∫_0^1 e^{ixs} ds =
// (e^{ix} - 1) / (ix); their series below |x| = 0.1 (the closed forms cancel there).
std::complex<double> g_of(double x) {
  const std::complex<double> i(0, 1);
  if (std::abs(x) < 0.1) {
    std::complex<double> sum = 0, ix_n = 1;  // (ix)^n / n!, n from 0
    for (int n = 0; n < 12; ++n) {
      sum += ix_n / double(n + 2);
      ix_n *= i * x / double(n + 1);
    }
    return sum;  // Σ (ix)^n / (n! (n + 2))
  }
  return (std::exp(i * x) * (1.0 - i * x) - 1.0) / (x * x);
}
std::complex<double> e_of(double x) {
  const std::complex<double> i(0, 1);
  if (std::abs(x) < 0.1) {
    std::complex<double> sum = 0, ix_n = 1;
    for (int n = 0; n < 12; ++n) {
      sum += ix_n / double(n + 1);
      ix_n *= i * x / double(n + 1);
    }
    return sum;  // Σ (ix)^n / (n + 1)!
  }
  return (std::exp(i * x) - 1.0) / (i * x);
}

// ∫ over the box of e^{ik|t-s|}/|t-s| ds (dim 3) or over the rectangle (dim 2): the domain is cut
// into the 2^dim sub-boxes with a corner at t, each sub-box into pyramids (triangles) with apex
// t (Duffy's transformation), where the 1/r singularity cancels against the Jacobian and the
// radial integral is G or E in closed form; the remaining 2-D (1-D) integral is smooth (GL).
std::complex<double> helmholtz_row_integral(const Spec& spec, const Point& t) {
  static const quadrature::Rule rule = quadrature::gauss_legendre(32, 0.0, 1.0);
  const double k = spec.params.k;
  const double tc[3] = {t.x, t.y, t.z};
  std::complex<double> total = 0;
  const int dim = spec.dim;
  for (int corner = 0; corner < (1 << dim); ++corner) {
    double ext[3] = {0, 0, 0};  // the sub-box's edge lengths
    for (int d = 0; d < dim; ++d)
      ext[d] = (corner >> d & 1) ? spec.upper[d] - tc[d] : tc[d] - spec.lower[d];
    if (dim == 2) {
      for (int apex = 0; apex < 2; ++apex) {  // triangle whose far edge is x_apex = ext[apex]
        const double a = ext[apex], b = ext[1 - apex];
        if (a <= 0 || b <= 0) continue;
        std::complex<double> sum = 0;
        for (std::size_t q = 0; q < rule.x.size(); ++q) {
          const double r = std::sqrt(a * a + b * b * rule.x[q] * rule.x[q]);
          sum += rule.w[q] * e_of(k * r) / r;
        }
        total += a * b * sum;
      }
    } else {
      for (int apex = 0; apex < 3; ++apex) {  // pyramid whose base is the face x_apex = ext[apex]
        const double a = ext[apex], b = ext[(apex + 1) % 3], c = ext[(apex + 2) % 3];
        if (a <= 0 || b <= 0 || c <= 0) continue;
        std::complex<double> sum = 0;
        for (std::size_t p = 0; p < rule.x.size(); ++p)
          for (std::size_t q = 0; q < rule.x.size(); ++q) {
            const double v = rule.x[p], w = rule.x[q];
            const double r = std::sqrt(a * a + b * b * v * v + c * c * w * w);
            sum += rule.w[p] * rule.w[q] * g_of(k * r) / r;
          }
        total += a * b * c * sum;
      }
    }
  }
  return total;
}

// ∫_0^R G_l(r, r') U dr': two 48-point rules, split at r where the kernel has its kink.
double square_well_row_integral(const Spec& spec, const Point& t) {
  static const quadrature::Rule rule = quadrature::gauss_legendre(48, 0.0, 1.0);
  const ph::SquareWell kernel{spec.params.k, spec.params.u0, spec.params.l};
  double sum = 0;
  const double pieces[2][2] = {{spec.lower[0], t.x}, {t.x, spec.upper[0]}};
  for (const auto& piece : pieces) {
    const double len = piece[1] - piece[0];
    for (std::size_t q = 0; q < rule.x.size(); ++q) {
      const Point s{piece[0] + len * rule.x[q], 0, 0};
      sum += len * rule.w[q] * kernel(t, s);
    }
  }
  return sum;
}

// Riccati–Bessel functions and derivatives from the standard library's spherical Bessel
// functions (independent of the kernels' own closed forms).
double rj(int l, double x) {
  return x * std::sph_bessel(unsigned(l), x);
}
double rn(int l, double x) {
  return x * std::sph_neumann(unsigned(l), x);
}
double rj_prime(int l, double x) {
  return l == 0 ? std::cos(x) : rj(l - 1, x) - l * rj(l, x) / x;
}
double rn_prime(int l, double x) {
  return l == 0 ? std::sin(x) : rn(l - 1, x) - l * rn(l, x) / x;
}

}  // namespace

KernelKind parse_kernel(std::string_view text) {
  for (int i = 0; i < 5; ++i)
    if (text == kKernelNames[i]) return KernelKind(i);
  throw Error("unknown kernel '" + std::string(text) + "'" +
              config::suggestion_suffix(text, kKernelNames) + " (expected " + join(kKernelNames) +
              ")");
}
std::string_view to_string(KernelKind k) {
  return kKernelNames[int(k)];
}
bool is_complex(KernelKind k) {
  return k == KernelKind::helmholtz;
}
bool is_complex(const Spec& spec) {
  return spec.custom ? spec.custom->is_complex() : is_complex(spec.kernel);
}
bool uses_subtraction(KernelKind k) {
  return k == KernelKind::square_well || k == KernelKind::helmholtz;
}

RhsKind parse_rhs(std::string_view text) {
  for (int i = 0; i < 5; ++i)
    if (text == kRhsNames[i]) return RhsKind(i);
  throw Error("unknown right-hand side '" + std::string(text) + "'" +
              config::suggestion_suffix(text, kRhsNames) + " (expected " + join(kRhsNames) + ")");
}
std::string_view to_string(RhsKind r) {
  return kRhsNames[int(r)];
}

std::size_t Spec::total_nodes() const {
  std::size_t total = 1;
  for (int d = 0; d < dim; ++d) total *= std::size_t(n);
  return total;
}

std::optional<SpecIssue> check_nodes(const Spec& spec) {
  if (spec.n > 0) return std::nullopt;
  return SpecIssue{"n", "must be a positive number of nodes, got " + std::to_string(spec.n)};
}

std::optional<SpecIssue> check_domain(const Spec& spec) {
  static const char* const upper_keys[] = {"b", "b_y", "b_z"};
  for (int d = 0; d < spec.dim && d < 3; ++d)
    if (!(spec.lower[d] < spec.upper[d]))
      return SpecIssue{upper_keys[d],
                       "the domain needs a < b, got a = " + std::to_string(spec.lower[d]) +
                           ", b = " + std::to_string(spec.upper[d])};
  return std::nullopt;
}

void Spec::validate(const std::string& where) const {
  if (dim < 1 || dim > 3)
    throw Error("dimension must be 1, 2 or 3, got " + std::to_string(dim), where);
  if (n <= 0) throw Error("N must be positive, got " + std::to_string(n), where);
  if (double(total_nodes()) > 2.2e9 || n > 100000000)
    throw Error("too many nodes: " + std::to_string(n) + " per dimension", where);
  for (int d = 0; d < dim; ++d) {
    if (!(std::isfinite(lower[d]) && std::isfinite(upper[d])) || !(lower[d] < upper[d]))
      throw Error("the domain must have a < b in every dimension, got [" +
                      std::to_string(lower[d]) + ", " + std::to_string(upper[d]) + "]" +
                      (dim > 1 ? " in dimension " + std::to_string(d + 1) : std::string()),
                  where);
  }
  if (!std::isfinite(lambda)) throw Error("lambda must be finite", where);
  switch (kernel) {
    case KernelKind::power34:
      if (lower[0] < 0 && dim == 1)
        throw Error("kernel power34 needs t·s >= 0: use a domain with a >= 0", where);
      break;
    case KernelKind::gaussian:
      if (!(params.sigma2 > 0)) throw Error("gaussian kernel needs sigma > 0", where);
      break;
    case KernelKind::square_well:
      if (dim != 1) throw Error("kernel square_well is 1-D (radial)", where);
      if (lower[0] != 0) throw Error("kernel square_well needs the domain [0, R]", where);
      if (params.l < 0 || params.l > 3)
        throw Error("square_well supports l = 0..3, got " + std::to_string(params.l), where);
      if (!(params.k > 0)) throw Error("square_well needs k > 0", where);
      break;
    case KernelKind::helmholtz:
      if (dim == 1)
        throw Error(
            "kernel helmholtz (e^{ik|r-r'|}/|r-r'|) is not integrable in 1-D: use dim 2 or 3",
            where);
      if (!(params.k > 0)) throw Error("helmholtz needs k > 0", where);
      break;
    case KernelKind::exp_ts:
      break;
  }
  if (rhs == RhsKind::plane_wave && !is_complex(*this))
    throw Error("rhs plane_wave is complex: use it with a complex kernel (helmholtz)", where);
  if (rhs == RhsKind::nr_fred2 && lower[0] < 0) throw Error("rhs nr_fred2 needs t >= 0", where);
}

Nodes make_nodes(const Spec& spec) {
  quadrature::Rule rules[3];
  for (int d = 0; d < spec.dim; ++d)
    rules[d] = quadrature::gauss_legendre(std::size_t(spec.n), spec.lower[d], spec.upper[d]);
  Nodes nodes;
  const std::size_t n = std::size_t(spec.n), total = spec.total_nodes();
  nodes.p.resize(total);
  nodes.w.resize(total);
  for (std::size_t idx = 0; idx < total; ++idx) {
    std::size_t rest = idx;  // x fastest
    double c[3] = {0, 0, 0}, w = 1;
    for (int d = 0; d < spec.dim; ++d) {
      const std::size_t k = rest % n;
      rest /= n;
      c[d] = rules[d].x[k];
      w *= rules[d].w[k];
    }
    nodes.p[idx] = Point{c[0], c[1], c[2]};
    nodes.w[idx] = w;
  }
  return nodes;
}

template <class S>
S rhs_value(const Spec& spec, const Point& t) {
  if (spec.custom && spec.custom->has_rhs()) {
    const std::complex<double> h = spec.custom->rhs(t.x, t.y, t.z);
    if constexpr (kIsComplex<S>) {
      return h;
    } else {
      return h.real();  // a real kernel has a real h (read_custom_kernel)
    }
  }
  const double x = t.x;
  switch (spec.rhs) {
    case RhsKind::one:
      return S(1.0);
    case RhsKind::exp_ts_smooth:
      return S(std::exp(x) - (std::exp(x + 1.0) - 1.0) / (x + 1.0));
    case RhsKind::nr_fred2:
      return S(std::sqrt(x) - std::pow(0.5 * kPi, 2.25) * std::pow(x, 0.75) / 2.25);
    case RhsKind::riccati_j:
      return S(rj(spec.params.l, spec.params.k * x));
    case RhsKind::plane_wave:
      break;
  }
  if constexpr (kIsComplex<S>) {
    const double z = spec.dim == 3 ? t.z : t.y;
    return std::exp(std::complex<double>(0, spec.params.k * z));
  } else {
    throw Error("rhs plane_wave needs a complex kernel");
  }
}
template double rhs_value<double>(const Spec&, const Point&);
template std::complex<double> rhs_value<std::complex<double>>(const Spec&, const Point&);

std::optional<std::function<double(const Point&)>> exact_solution(const Spec& spec) {
  if (spec.dim != 1 || spec.lambda != 1.0 || spec.custom) return std::nullopt;
  if (spec.kernel == KernelKind::power34 && spec.rhs == RhsKind::nr_fred2 && spec.lower[0] == 0 &&
      std::abs(spec.upper[0] - 0.5 * kPi) < 1e-15)
    return [](const Point& t) { return std::sqrt(t.x); };
  if (spec.kernel == KernelKind::exp_ts && spec.rhs == RhsKind::exp_ts_smooth &&
      spec.lower[0] == 0 && spec.upper[0] == 1)
    return [](const Point& t) { return std::exp(t.x); };
  return std::nullopt;
}

template <class S>
S row_integral(const Spec& spec, const Point& t) {
  if (spec.kernel == KernelKind::square_well) return S(square_well_row_integral(spec, t));
  if constexpr (kIsComplex<S>) {
    if (spec.kernel == KernelKind::helmholtz) return helmholtz_row_integral(spec, t);
  }
  throw Error("no row integral for kernel " + std::string(to_string(spec.kernel)));
}
template double row_integral<double>(const Spec&, const Point&);
template std::complex<double> row_integral<std::complex<double>>(const Spec&, const Point&);

double phase_shift_numeric(const Spec& spec, const Nodes& nodes, const std::vector<double>& u) {
  const double k = spec.params.k;
  double sum = 0;
  for (std::size_t j = 0; j < nodes.size(); ++j)
    sum += nodes.w[j] * rj(spec.params.l, k * nodes.p[j].x) * u[j];
  return std::atan(spec.params.u0 / k * sum);
}

double phase_shift_analytic(int l, double k, double u0, double radius) {
  const double q = std::sqrt(k * k + u0);
  const double log_derivative = q * rj_prime(l, q * radius) / rj(l, q * radius);
  const double kr = k * radius;
  const double tan_delta = (log_derivative * rj(l, kr) - k * rj_prime(l, kr)) /
                           (log_derivative * rn(l, kr) - k * rn_prime(l, kr));
  return std::atan(tan_delta);
}

}  // namespace pairwise::fredholm
