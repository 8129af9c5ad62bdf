// Host-side N-body state in structure-of-arrays form, always double precision (Hénon units).
#pragma once

#include <cstddef>
#include <vector>

namespace pairwise::nbody {

struct Particles {
  std::vector<double> m, x, y, z, vx, vy, vz;

  std::size_t size() const { return m.size(); }
  void resize(std::size_t n) {
    for (auto* v : {&m, &x, &y, &z, &vx, &vy, &vz}) v->resize(n);
  }
};

// What a force evaluation returns per target particle: acceleration, jerk (GAJ only) and potential
// φ.
struct Forces {
  std::vector<double> ax, ay, az, jx, jy, jz, pot;

  std::size_t size() const { return ax.size(); }
  void resize(std::size_t n, bool with_jerk) {
    for (auto* v : {&ax, &ay, &az, &pot}) v->resize(n);
    for (auto* v : {&jx, &jy, &jz}) v->resize(with_jerk ? n : 0);
  }
};

// The Hermite terms held beside x and v for block time steps: the last corrected acceleration and
// jerk, and the time t each particle was last corrected at.
struct HermiteTerms {
  std::vector<double> ax, ay, az, jx, jy, jz, t;

  std::size_t size() const { return t.size(); }
  void resize(std::size_t n) {
    for (auto* v : {&ax, &ay, &az, &jx, &jy, &jz, &t}) v->resize(n);
  }
};

}  // namespace pairwise::nbody
