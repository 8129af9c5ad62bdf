// Test systems of the md workload (shared by tests/*/test_md*.cpp and test_neighbor*.cpp).
#pragma once

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "md/system.hpp"

namespace pairwise::test {

// tests/data: $PAIRWISE_TEST_DATA_DIR, else the source tree this was built from, else tests/data
// under the working directory (the device machine runs copied executables from a repository copy).
inline std::string md_test_data() {
  if (const char* env = std::getenv("PAIRWISE_TEST_DATA_DIR"); env && *env) return env;
  if (std::filesystem::exists(PAIRWISE_TEST_DATA)) return PAIRWISE_TEST_DATA;
  return "tests/data";
}

// A perturbed lattice (no overlaps): `jitter` is the uniform displacement amplitude.
inline md::System jittered_lattice(const char* kind, double density, int cells, double jitter,
                                   std::uint64_t seed, double temperature = 1.0) {
  md::System s = md::make_lattice(kind, density, {cells, cells, cells});
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-jitter, jitter);
  for (std::size_t i = 0; i < s.atoms.size(); ++i) {
    s.atoms.x[i] += u(rng), s.atoms.y[i] += u(rng), s.atoms.z[i] += u(rng);
  }
  md::wrap_into_box(s);
  md::create_velocities(s, temperature, seed + 1);
  return s;
}

// Uniform random atoms in a cube of side L (overlaps possible: for list tests only).
inline md::System random_gas(std::size_t n, double length, std::uint64_t seed) {
  md::System s;
  s.box.lo = {0, 0, 0};
  s.box.hi = {length, length, length};
  s.atoms.resize(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, length);
  for (std::size_t i = 0; i < n; ++i) {
    s.atoms.id[i] = std::uint32_t(i + 1);
    s.atoms.x[i] = u(rng), s.atoms.y[i] = u(rng), s.atoms.z[i] = u(rng);
    s.atoms.type[i] = 1;
  }
  s.ff.resize(1);
  s.ff.mass[0] = 1.0;
  s.ff.at(1, 1) = {1.0, 1.0, 0.0, true};
  return s;
}

// Three types with different masses, ε, σ; pairs mixed except one explicit pair.
inline void make_three_types(md::System& s, std::uint64_t seed) {
  s.ff.resize(3);
  s.ff.mass = {1.0, 2.0, 0.5};
  s.ff.at(1, 1) = {1.0, 1.0, 0.0, true};
  s.ff.at(2, 2) = {0.8, 1.1, 0.0, true};
  s.ff.at(3, 3) = {1.3, 0.9, 0.0, true};
  s.ff.at(1, 3) = s.ff.at(3, 1) = {0.5, 0.95, 2.2, true};
  std::mt19937_64 rng(seed);
  for (auto& t : s.atoms.type) t = 1 + int(rng() % 3);
}

}  // namespace pairwise::test
