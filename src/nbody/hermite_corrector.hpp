// The 4th-order Hermite corrector and the Aarseth time-step criterion (Makino & Aarseth 1992),
// shared by the shared-step and block-step integrators.
#pragma once

#include <algorithm>
#include <cmath>

namespace pairwise::nbody {

struct Vec3 {
  double x = 0, y = 0, z = 0;
};

inline double norm(const Vec3& v) {
  return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

struct HermiteCorrection {
  Vec3 x, v;          // corrected position and velocity at t0 + dt
  double dt_aarseth;  // the step the Aarseth criterion asks for next
};

// One component of the corrector. From a0, j0 at t0 and a1, j1 at t1 = t0 + dt (evaluated at the
// predicted state xp, vp), the 2nd and 3rd derivatives of a at t0 are
//   a2 = (-6 (a0 - a1) - dt (4 j0 + 2 j1)) / dt²,   a3 = (12 (a0 - a1) + 6 dt (j0 + j1)) / dt³
// and the corrected state is x1 = xp + a2 dt⁴/24 + a3 dt⁵/120, v1 = vp + a2 dt³/6 + a3 dt⁴/24.
// Returns a2 at t1 (a2 + a3 dt) in snap1 and a3 in crackle, for the time-step criterion.
inline void hermite_correct_component(double dt, double xp, double vp, double a0, double j0,
                                      double a1, double j1, double& x1, double& v1, double& snap1,
                                      double& crackle) {
  const double dt2 = dt * dt, dt3 = dt2 * dt;
  const double a2 = (-6.0 * (a0 - a1) - dt * (4.0 * j0 + 2.0 * j1)) / dt2;
  const double a3 = (12.0 * (a0 - a1) + 6.0 * dt * (j0 + j1)) / dt3;
  x1 = xp + dt2 * dt2 * (a2 / 24.0 + a3 * dt / 120.0);
  v1 = vp + dt3 * (a2 / 6.0 + a3 * dt / 24.0);
  snap1 = a2 + a3 * dt;
  crackle = a3;
}

// Aarseth's criterion: dt = sqrt(η (|a| |a2| + |j|²) / (|j| |a3| + |a2|²)).
inline double aarseth_step(double eta, const Vec3& a, const Vec3& j, const Vec3& snap,
                           const Vec3& crackle) {
  const double na = norm(a), nj = norm(j), ns = norm(snap), nc = norm(crackle);
  const double denominator = nj * nc + ns * ns;
  if (denominator == 0.0) return HUGE_VAL;  // force-free motion: no limit from this particle
  return std::sqrt(eta * (na * ns + nj * nj) / denominator);
}

// The starting step before snap and crackle are known: η |a| / |j| (Aarseth's initial criterion).
inline double initial_step(double eta, const Vec3& a, const Vec3& j) {
  const double nj = norm(j);
  return nj > 0.0 ? eta * norm(a) / nj : HUGE_VAL;
}

// Corrects one particle's step from t0 to t0 + dt.
inline HermiteCorrection hermite_correct(double dt, double eta, const Vec3& xp, const Vec3& vp,
                                         const Vec3& a0, const Vec3& j0, const Vec3& a1,
                                         const Vec3& j1) {
  HermiteCorrection c;
  Vec3 snap, crackle;
  hermite_correct_component(dt, xp.x, vp.x, a0.x, j0.x, a1.x, j1.x, c.x.x, c.v.x, snap.x,
                            crackle.x);
  hermite_correct_component(dt, xp.y, vp.y, a0.y, j0.y, a1.y, j1.y, c.x.y, c.v.y, snap.y,
                            crackle.y);
  hermite_correct_component(dt, xp.z, vp.z, a0.z, j0.z, a1.z, j1.z, c.x.z, c.v.z, snap.z,
                            crackle.z);
  c.dt_aarseth = aarseth_step(eta, a1, j1, snap, crackle);
  return c;
}

}  // namespace pairwise::nbody
