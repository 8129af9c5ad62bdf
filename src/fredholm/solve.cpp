#include "fredholm/solve.hpp"

#include <chrono>
#include <complex>

#include "core/config.hpp"
#include "fredholm/row_block_matvec.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {
namespace {
const std::string kSolverNames[] = {"gmres", "fixed_point", "direct"};
}  // namespace

SolverKind parse_solver(std::string_view text) {
  for (int i = 0; i < 3; ++i)
    if (text == kSolverNames[i]) return SolverKind(i);
  throw Error("unknown method '" + std::string(text) + "'" +
              config::suggestion_suffix(text, kSolverNames) +
              " (expected gmres, fixed_point or direct)");
}
std::string_view to_string(SolverKind s) {
  return kSolverNames[int(s)];
}

std::optional<std::string> check_solver(const Spec& spec, SolverKind method) {
  if (method != SolverKind::direct || spec.total_nodes() <= kDirectMaxN) return std::nullopt;
  return "the direct solver is for N <= " + std::to_string(kDirectMaxN) + " nodes, got " +
         std::to_string(spec.total_nodes()) + "; use method = \"gmres\"";
}

template <class S>
std::vector<S> subtraction_diagonal(const Spec& spec, const Nodes& nodes, Matvec<S>& matvec) {
  if (!uses_subtraction(spec.kernel)) return {};
  const std::size_t n = nodes.size();
  std::vector<S> ones(n, S(1)), sum(n), d(n);
  matvec.apply(ones, sum);
#pragma omp parallel for schedule(dynamic, 16)
  for (long long i = 0; i < (long long)n; ++i) d[i] = row_integral<S>(spec, nodes.p[i]) - sum[i];
  return d;
}

template <class S>
Solution<S> solve(const Spec& spec, const Nodes& nodes, Matvec<S>& matvec, SolverKind method,
                  const SolveOptions& options) {
  Solution<S> sol;
  const std::size_t n = nodes.size();
  std::vector<S> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = rhs_value<S>(spec, nodes.p[i]);
  sol.diag = subtraction_diagonal(spec, nodes, matvec);
  const std::vector<S>& diag = sol.diag;
  const ApplyFn<S> apply_a = [&](const std::vector<S>& x, std::vector<S>& y) {
    matvec.apply(x, y);
    for (std::size_t i = 0; i < diag.size(); ++i) y[i] += diag[i] * x[i];
  };
  // Many ranks (docs/distributed.md): the iterative solvers' vectors are each rank's rows; the
  // product all-gathers x and computes the rank's rows, dot products are reduced.
  if (auto* ranked = dynamic_cast<RowBlockMatvec<S>*>(&matvec);
      ranked && method != SolverKind::direct) {
    parallel::Communicator& comm = ranked->communicator();
    const parallel::Block rows = ranked->block();
    const std::vector<S> h_rows(h.begin() + long(rows.begin), h.begin() + long(rows.end));
    std::vector<S> f_rows;
    const ApplyFn<S> apply_rows = [&](const std::vector<S>& x, std::vector<S>& y) {
      ranked->apply_from_rows(x, y);
      if (!diag.empty())
        for (std::size_t i = 0; i < rows.size(); ++i) y[i] += diag[rows.begin + i] * x[i];
    };
    const SumFn sum = [&](std::span<double> values) { comm.allreduce_sum(values); };
    sol.report = method == SolverKind::gmres
                     ? solve_gmres(apply_rows, spec.lambda, h_rows, f_rows, options, sum)
                     : solve_fixed_point(apply_rows, spec.lambda, h_rows, f_rows, options, sum);
    sol.f.assign(n, S(0));
    std::copy(f_rows.begin(), f_rows.end(), sol.f.begin() + long(rows.begin));
    parallel::allgather_blocks(comm, std::span<S>(sol.f));
    return sol;
  }
  switch (method) {
    case SolverKind::fixed_point:
      sol.report = solve_fixed_point(apply_a, spec.lambda, h, sol.f, options);
      break;
    case SolverKind::gmres:
      sol.report = solve_gmres(apply_a, spec.lambda, h, sol.f, options);
      break;
    case SolverKind::direct: {
      if (n > kDirectMaxN)
        throw Error("the direct solver is for N <= " + std::to_string(kDirectMaxN) +
                        " nodes, got " + std::to_string(n) + "; use method = \"gmres\"",
                    "[solver] method = \"direct\"");
      const auto t0 = std::chrono::steady_clock::now();
      std::vector<S> a(n * n);
      with_kernel(spec, [&](auto kernel) {
        using K = decltype(kernel);
        if constexpr (K::kComplex && !kIsComplex<S>) {
          throw Error("a complex kernel needs complex vectors");
        } else {
#pragma omp parallel for schedule(static)
          for (long long i = 0; i < (long long)n; ++i)
            for (std::size_t j = 0; j < n; ++j)
              a[i * n + j] =
                  (std::size_t(i) == j ? S(1) : S(0)) -
                  spec.lambda * nodes.w[j] * kernel_value<S>(kernel, nodes.p[i], nodes.p[j]);
        }
      });
      for (std::size_t i = 0; i < diag.size(); ++i) a[i * n + i] -= spec.lambda * diag[i];
      sol.f = h;
      lu_solve(a, sol.f, n);
      sol.report.method = "direct";
      sol.report.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      sol.report.residual = relative_residual(apply_a, spec.lambda, h, sol.f);
      break;
    }
  }
  return sol;
}

template <class S>
std::vector<S> interpolate(const Spec& spec, Matvec<S>& matvec, const std::vector<S>& f,
                           std::span<const Point> at) {
  const std::size_t m = at.size();
  std::vector<S> kf(m), out(m);
  matvec.apply_at(at, f, kf);
  std::vector<S> d(m, S(0));
  if (uses_subtraction(spec.kernel)) {
    std::vector<S> ones(f.size(), S(1)), k1(m);
    matvec.apply_at(at, ones, k1);
    for (std::size_t i = 0; i < m; ++i) d[i] = row_integral<S>(spec, at[i]) - k1[i];
  }
  for (std::size_t i = 0; i < m; ++i)
    out[i] = (rhs_value<S>(spec, at[i]) + spec.lambda * kf[i]) / (S(1) - spec.lambda * d[i]);
  return out;
}

#define PW_INSTANTIATE(S)                                                                 \
  template std::vector<S> subtraction_diagonal<S>(const Spec&, const Nodes&, Matvec<S>&); \
  template Solution<S> solve<S>(const Spec&, const Nodes&, Matvec<S>&, SolverKind,        \
                                const SolveOptions&);                                     \
  template std::vector<S> interpolate<S>(const Spec&, Matvec<S>&, const std::vector<S>&,  \
                                         std::span<const Point>);
PW_INSTANTIATE(double)
PW_INSTANTIATE(std::complex<double>)
#undef PW_INSTANTIATE

}  // namespace pairwise::fredholm
