// Solvers of the Nyström system (I - λA) f = h, A g = Σ_j w_j K(t_i, s_j) g_j + d_i g_i, given as
// the matrix-free product apply_a (the backend's kernel sum plus the diagonal):
//   fixed_point  f ← h + λ A f (Iitaka's iteration): converges when the spectral radius of λA is
//                below 1; stops with a clear error when the updates grow (divergence) or stall.
//   gmres        restarted GMRES(m) with modified Gram–Schmidt and Givens rotations, matrix-free.
//   direct       dense LU with partial pivoting of I - λA (assembled by the caller), small N.
// S is double or std::complex<double>.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <functional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "pairwise/error.hpp"

namespace pairwise::fredholm {

template <class S>
using ApplyFn = std::function<void(const std::vector<S>& x, std::vector<S>& y)>;

// Sums partial sums over the ranks that each hold a block of every vector (in place; the result
// the same on every rank). Empty: one process holds whole vectors. With it, the solvers' vectors
// (h, f and the Krylov basis) are each rank's rows only, apply_a maps rows to rows, and every dot
// product and norm is a local partial sum reduced across ranks (docs/distributed.md).
using SumFn = std::function<void(std::span<double>)>;

struct SolveOptions {
  double tolerance = 1e-13;  // relative: ‖update‖/‖f‖ (fixed point), ‖r‖/‖h‖ (GMRES)
  int max_iterations = 1000;
  int restart = 60;  // GMRES(m)
};

struct SolveReport {
  std::string method;
  int iterations = 0;
  int products = 0;     // applications of A
  double residual = 0;  // ‖h - (I - λA) f‖ / ‖h‖, recomputed at the end
  double rate = 0;      // fixed point: last ratio of successive update norms
  double seconds = 0;
};

// Complex conjugate that keeps real scalars real (conj_(double) is a std::complex).
inline double conj_(double x) {
  return x;
}
inline std::complex<double> conj_(const std::complex<double>& x) {
  return std::conj(x);
}

template <class S>
double norm2(const std::vector<S>& v, const SumFn& sum = {}) {
  double s = 0;
  for (const S& x : v) s += std::norm(x);
  if (sum) sum(std::span<double>(&s, 1));
  return std::sqrt(s);
}

// Σ conj(a_k) b_k over every rank's rows.
template <class S>
S dot(const std::vector<S>& a, const std::vector<S>& b, const SumFn& sum) {
  S d = 0;
  for (std::size_t k = 0; k < a.size(); ++k) d += conj_(a[k]) * b[k];
  if (sum) {
    if constexpr (std::is_same_v<S, double>) {
      sum(std::span<double>(&d, 1));
    } else {
      double parts[2] = {d.real(), d.imag()};
      sum(std::span<double>(parts, 2));
      d = S(parts[0], parts[1]);
    }
  }
  return d;
}

// ‖h - (f - λ A f)‖ / ‖h‖.
template <class S>
double relative_residual(const ApplyFn<S>& apply_a, double lambda, const std::vector<S>& h,
                         const std::vector<S>& f, const SumFn& sum = {}) {
  std::vector<S> af(f.size());
  apply_a(f, af);
  std::vector<S> r(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) r[i] = h[i] - (f[i] - lambda * af[i]);
  const double nh = norm2(h, sum);
  return norm2(r, sum) / (nh > 0 ? nh : 1.0);
}

template <class S>
SolveReport solve_fixed_point(const ApplyFn<S>& apply_a, double lambda, const std::vector<S>& h,
                              std::vector<S>& f, const SolveOptions& opt, const SumFn& sum = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  SolveReport rep;
  rep.method = "fixed_point";
  const std::size_t n = h.size();
  f = h;
  std::vector<S> af(n);
  double previous = 0, first = 0;
  int growing = 0;
  for (int it = 1; it <= opt.max_iterations; ++it) {
    apply_a(f, af);
    ++rep.products;
    double du2 = 0, f2 = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const S next = h[i] + lambda * af[i];
      du2 += std::norm(next - f[i]);
      f2 += std::norm(next);
      f[i] = next;
    }
    if (sum) {
      double parts[2] = {du2, f2};
      sum(std::span<double>(parts, 2));
      du2 = parts[0], f2 = parts[1];
    }
    const double du = std::sqrt(du2), fn = std::sqrt(f2);
    rep.iterations = it;
    if (it == 1) first = du;
    if (previous > 0) rep.rate = du / previous;
    growing = (previous > 0 && du >= previous) ? growing + 1 : 0;  // consecutive growths
    if (!std::isfinite(du) || !std::isfinite(fn) || (it > 1 && du > 1e6 * first) || growing >= 5) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%.3g", rep.rate);
      throw Error("the fixed-point iteration diverges: its update grows by a factor " +
                      std::string(rate) + " per iteration (iteration " + std::to_string(it) +
                      "), so |lambda|·‖K‖ >= 1 here; use method = \"gmres\" or \"direct\"",
                  "[solver] method = \"fixed_point\"");
    }
    previous = du;
    if (du <= opt.tolerance * fn) {
      rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      rep.residual = relative_residual(apply_a, lambda, h, f, sum);
      return rep;
    }
  }
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.3g", rep.rate);
  throw Error("the fixed-point iteration did not converge in " +
                  std::to_string(opt.max_iterations) + " iterations (update ratio " + rate +
                  " per iteration); raise [solver] max_iterations or use method = \"gmres\"",
              "[solver] method = \"fixed_point\"");
}

template <class S>
SolveReport solve_gmres(const ApplyFn<S>& apply_a, double lambda, const std::vector<S>& h,
                        std::vector<S>& f, const SolveOptions& opt, const SumFn& sum = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  SolveReport rep;
  rep.method = "gmres";
  const std::size_t n = h.size();  // this rank's rows
  double n_all = double(n);        // every rank's
  if (sum) sum(std::span<double>(&n_all, 1));
  const int m = std::max(1, std::min<int>(opt.restart, int(n_all)));
  const double h_norm = norm2(h, sum);
  const double hn = h_norm > 0 ? h_norm : 1.0;
  f = h;  // initial guess
  std::vector<std::vector<S>> v(m + 1, std::vector<S>(n));
  std::vector<std::vector<S>> hess(m + 1, std::vector<S>(m));
  std::vector<S> cs(m), sn(m), e(m + 1), af(n), w(n);
  auto apply_m = [&](const std::vector<S>& x, std::vector<S>& y) {  // y = (I - λA) x
    apply_a(x, af);
    ++rep.products;
    for (std::size_t i = 0; i < n; ++i) y[i] = x[i] - lambda * af[i];
  };
  double res = 0;
  while (rep.iterations < opt.max_iterations) {
    apply_m(f, w);
    for (std::size_t i = 0; i < n; ++i) v[0][i] = h[i] - w[i];
    const double beta = norm2(v[0], sum);
    res = beta / hn;
    if (res <= opt.tolerance) break;
    for (auto& x : v[0]) x /= beta;
    std::fill(e.begin(), e.end(), S(0));
    e[0] = beta;
    int j = 0;
    for (; j < m && rep.iterations < opt.max_iterations; ++j) {
      ++rep.iterations;
      apply_m(v[j], w);
      for (int i = 0; i <= j; ++i) {  // modified Gram–Schmidt
        const S d = dot(v[i], w, sum);
        hess[i][j] = d;
        for (std::size_t k = 0; k < n; ++k) w[k] -= d * v[i][k];
      }
      const double wn = norm2(w, sum);
      hess[j + 1][j] = wn;
      if (wn > 0)
        for (std::size_t k = 0; k < n; ++k) v[j + 1][k] = w[k] / wn;
      for (int i = 0; i < j; ++i) {  // previous rotations
        const S a = hess[i][j], b = hess[i + 1][j];
        hess[i][j] = conj_(cs[i]) * a + conj_(sn[i]) * b;
        hess[i + 1][j] = -sn[i] * a + cs[i] * b;
      }
      const S a = hess[j][j], b = hess[j + 1][j];
      const double r = std::sqrt(std::norm(a) + std::norm(b));
      cs[j] = r > 0 ? a / r : S(1);
      sn[j] = r > 0 ? b / r : S(0);
      hess[j][j] = r;
      hess[j + 1][j] = 0;
      e[j + 1] = -sn[j] * e[j];
      e[j] = conj_(cs[j]) * e[j];
      res = std::abs(e[j + 1]) / hn;
      if (res <= opt.tolerance || wn == 0) {
        ++j;
        break;
      }
    }
    std::vector<S> y(j);  // back substitution
    for (int i = j - 1; i >= 0; --i) {
      S s = e[i];
      for (int k = i + 1; k < j; ++k) s -= hess[i][k] * y[k];
      y[i] = s / hess[i][i];
    }
    for (int i = 0; i < j; ++i)
      for (std::size_t k = 0; k < n; ++k) f[k] += y[i] * v[i][k];
    if (res <= opt.tolerance) break;
  }
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rep.residual = relative_residual(apply_a, lambda, h, f, sum);
  if (!(rep.residual <= std::max(opt.tolerance * 100, 1e-6)) &&
      rep.iterations >= opt.max_iterations)
    throw Error("GMRES did not converge in " + std::to_string(opt.max_iterations) +
                    " iterations (relative residual " + std::to_string(rep.residual) +
                    "); raise [solver] max_iterations or restart",
                "[solver] method = \"gmres\"");
  return rep;
}

// Solves a x = b in place (a: n×n row-major, overwritten by its LU factors); partial pivoting.
template <class S>
void lu_solve(std::vector<S>& a, std::vector<S>& b, std::size_t n) {
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t p = k;
    double best = std::abs(a[k * n + k]);
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::abs(a[i * n + k]) > best) best = std::abs(a[i * n + k]), p = i;
    if (best == 0)
      throw Error("the Nyström matrix I - lambda A is singular (lambda is an eigenvalue?)");
    if (p != k) {
      for (std::size_t j = 0; j < n; ++j) std::swap(a[k * n + j], a[p * n + j]);
      std::swap(b[k], b[p]);
    }
    const S inv = S(1) / a[k * n + k];
#pragma omp parallel for schedule(static) if (n > 256)
    for (long long i = (long long)k + 1; i < (long long)n; ++i) {
      const S l = a[i * n + k] * inv;
      a[i * n + k] = l;
      for (std::size_t j = k + 1; j < n; ++j) a[i * n + j] -= l * a[k * n + j];
      b[i] -= l * b[k];
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    S s = b[i];
    for (std::size_t j = i + 1; j < n; ++j) s -= a[i * n + j] * b[j];
    b[i] = s / a[i * n + i];
  }
}

}  // namespace pairwise::fredholm
