// The TOML schema of a Fredholm problem (`pairwise fredholm problem.toml`, or `pairwise run` with
// workload = "fredholm"), documented key by key in docs/fredholm.md:
//   [domain]    dim, a, b, a_y, b_y, a_z, b_z, n
//   [equation]  lambda, kernel, rhs, sigma, k, u0, l, l_max
//   [solver]    method, tolerance, max_iterations, restart
//   [run]       backend, precision
//   [output]    directory, prefix, nodes, grid_points, grid_a, grid_b
#pragma once

#include <filesystem>
#include <string>

#include "core/config.hpp"
#include "fredholm/solve.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::fredholm {

struct RunConfig {
  std::string source;
  Spec spec;
  int l_max = -1;  // square_well: solve l = 0..l_max (default: the single l)
  SolverKind method = SolverKind::gmres;
  SolveOptions solve;
  BackendKind backend = BackendKind::automatic;
  Precision precision = Precision::double_;
  struct Output {
    std::filesystem::path directory;
    std::string prefix;
    bool nodes = true;          // <prefix>.nodes.csv: the solution at the nodes
    long long grid_points = 0;  // <prefix>.grid.csv: Nyström interpolation on a uniform grid
    double grid_a = 0, grid_b = 1;
  } output;
};

// Reads and checks the keys (unknown keys are errors with a did-you-mean).
RunConfig read_run_config(config::Config& config);

}  // namespace pairwise::fredholm
