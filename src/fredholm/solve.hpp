// Solving a discretized Fredholm equation with a chosen backend and method, and Nyström
// interpolation of the solution (see problem.hpp for the equations).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fredholm/matvec.hpp"
#include "fredholm/problem.hpp"
#include "fredholm/solvers.hpp"

namespace pairwise::fredholm {

enum class SolverKind { gmres, fixed_point, direct };
SolverKind parse_solver(std::string_view text);
std::string_view to_string(SolverKind s);

// Largest N of the dense direct solve (an N×N matrix in memory, O(N³) work).
inline constexpr std::size_t kDirectMaxN = 6000;
// The message for a direct solve of more than kDirectMaxN nodes (config key solver.method and the
// API's solve give it); std::nullopt when the method fits the problem.
std::optional<std::string> check_solver(const Spec& spec, SolverKind method);

template <class S>
struct Solution {
  std::vector<S> f;     // at the nodes
  std::vector<S> diag;  // d_i of the singularity subtraction (empty when the kernel has none)
  SolveReport report;
};

// d_i = c_i - Σ_j w_j K(t_i, s_j) with the backend's own kernel sum (so that the subtraction is
// consistent with its products); empty for kernels without subtraction.
template <class S>
std::vector<S> subtraction_diagonal(const Spec& spec, const Nodes& nodes, Matvec<S>& matvec);

template <class S>
Solution<S> solve(const Spec& spec, const Nodes& nodes, Matvec<S>& matvec, SolverKind method,
                  const SolveOptions& options);

// f(t) = (h(t) + λ Σ_j w_j K(t, s_j) f_j) / (1 - λ d(t)), d(t) = c(t) - Σ_j w_j K(t, s_j) with
// subtraction, else 0: the Nyström interpolant, exact at the nodes.
template <class S>
std::vector<S> interpolate(const Spec& spec, Matvec<S>& matvec, const std::vector<S>& f,
                           std::span<const Point> at);

}  // namespace pairwise::fredholm
