// Seeded random N-body inputs shared by the tests: particle sets in a unit cube or ball, with
// optional coincident particles or a minimum separation, random Hermite terms and active subsets.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "nbody/particles.hpp"

namespace pairwise::test {

enum class Region { cube, ball };  // [-1/2, 1/2]³, or the ball of radius 1/2

struct SetOptions {
  Region region = Region::cube;
  // Every 5th particle is moved onto the previous one (every 10th also gets its velocity: d = u =
  // 0), so the set has coincident pairs; only with ε > 0.
  bool coincident = false;
  // Rejects positions closer than this to an accepted one (ε = 0 sets: keeps 1/r³ bounded, and
  // keeps the FP32 rounding of positions, ~ulp(1/2)/r relative, well below the single tolerance).
  double min_separation = 0.0;
};

// N particles with masses uniform in [1/2, 3/2] / N, positions in the region, velocities uniform in
// [-1, 1]³. O(N²) with min_separation, fine for the test sizes.
inline nbody::Particles random_particles(std::size_t n, std::uint64_t seed, SetOptions opt = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-0.5, 0.5);
  nbody::Particles p;
  p.resize(n);
  auto too_close = [&](std::size_t i) {
    for (std::size_t k = 0; k < i; ++k) {
      if (std::hypot(p.x[k] - p.x[i], p.y[k] - p.y[i], p.z[k] - p.z[i]) < opt.min_separation) {
        return true;
      }
    }
    return false;
  };
  for (std::size_t i = 0; i < n; ++i) {
    do {
      p.x[i] = unit(rng), p.y[i] = unit(rng), p.z[i] = unit(rng);
    } while ((opt.region == Region::ball && std::hypot(p.x[i], p.y[i], p.z[i]) > 0.5) ||
             (opt.min_separation > 0.0 && too_close(i)));
    p.m[i] = (1.0 + unit(rng)) / static_cast<double>(n);
    p.vx[i] = 2 * unit(rng), p.vy[i] = 2 * unit(rng), p.vz[i] = 2 * unit(rng);
    if (opt.coincident && i % 5 == 4) {
      p.x[i] = p.x[i - 1], p.y[i] = p.y[i - 1], p.z[i] = p.z[i - 1];
      if (i % 10 == 9) p.vx[i] = p.vx[i - 1], p.vy[i] = p.vy[i - 1], p.vz[i] = p.vz[i - 1];
    }
  }
  return p;
}

// Hermite terms for block steps: a and jerk uniform in [-1, 1]³, and each particle last corrected
// at t_now - k/64 with k in 0..8 (power-of-two block times, some at t_now itself).
inline nbody::HermiteTerms random_hermite_terms(std::size_t n, double t_now, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> steps(0, 8);
  nbody::HermiteTerms h;
  h.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    h.ax[i] = unit(rng), h.ay[i] = unit(rng), h.az[i] = unit(rng);
    h.jx[i] = unit(rng), h.jy[i] = unit(rng), h.jz[i] = unit(rng);
    h.t[i] = t_now - steps(rng) / 64.0;
  }
  return h;
}

// A sorted random subset of 0..n-1, each index kept with probability `fraction` (at least one).
inline std::vector<int> random_active(std::size_t n, double fraction, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(fraction);
  std::vector<int> active;
  for (std::size_t i = 0; i < n; ++i) {
    if (keep(rng)) active.push_back(static_cast<int>(i));
  }
  if (active.empty() && n > 0) active.push_back(static_cast<int>(n / 2));
  return active;
}

}  // namespace pairwise::test
