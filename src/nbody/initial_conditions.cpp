#include "nbody/initial_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <random>
#include <tuple>

#include "pairwise/error.hpp"

namespace pairwise::nbody {
namespace {

// Uniform double in [0, 1) from the top 53 bits: identical on every platform, unlike
// std::uniform_real_distribution whose algorithm is implementation-defined.
class UniformSource {
 public:
  explicit UniformSource(std::uint64_t seed) : engine_(seed) {}
  double next() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  // A random point on the unit sphere's surface, scaled by r.
  void direction(double r, double& x, double& y, double& z) {
    const double cos_theta = 2.0 * next() - 1.0;
    const double sin_theta = std::sqrt(1.0 - cos_theta * cos_theta);
    const double phi = 2.0 * std::numbers::pi * next();
    x = r * sin_theta * std::cos(phi);
    y = r * sin_theta * std::sin(phi);
    z = r * cos_theta;
  }

 private:
  std::mt19937_64 engine_;
};

void check_count(std::size_t n, const char* model) {
  if (n == 0) throw Error(std::string(model) + " needs at least one particle (n = 0)", "system.n");
}

// Moves positions and velocities to the centre-of-mass frame.
void to_centre_of_mass_frame(Particles& p) {
  double m = 0;
  double c[6] = {0, 0, 0, 0, 0, 0};
  std::vector<double>* fields[6] = {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  for (std::size_t i = 0; i < p.size(); ++i) m += p.m[i];
  for (int f = 0; f < 6; ++f) {
    for (std::size_t i = 0; i < p.size(); ++i) c[f] += p.m[i] * (*fields[f])[i];
    for (auto& value : *fields[f]) value -= c[f] / m;
  }
}

}  // namespace

Particles make_plummer(std::size_t n, std::uint64_t seed) {
  check_count(n, "a Plummer sphere");
  Particles p;
  p.resize(n);
  UniformSource rng(seed);
  // In Plummer units (G = M = a = 1) E = -3π/64, so the virial radius is 16/(3π); Hénon units put
  // it at 1: lengths scale by 3π/16 and velocities by sqrt(16/(3π)).
  const double length_scale = 3.0 * std::numbers::pi / 16.0;
  const double velocity_scale = 1.0 / std::sqrt(length_scale);
  for (std::size_t i = 0; i < n; ++i) {
    p.m[i] = 1.0 / static_cast<double>(n);
    // Mass fraction X inside r: X = r³ (1 + r²)^{-3/2}  =>  r = 1 / sqrt(X^{-2/3} - 1). The outer
    // 0.1 % of the mass (r > ~22 a) is cut, as in Aarseth, Hénon & Wielen, to avoid far outliers.
    double x_mass;
    do x_mass = rng.next();
    while (x_mass < 1e-10 || x_mass > 0.999);
    const double r = 1.0 / std::sqrt(std::pow(x_mass, -2.0 / 3.0) - 1.0);
    rng.direction(r * length_scale, p.x[i], p.y[i], p.z[i]);
    // Speed q v_esc with v_esc = sqrt(2) (1 + r²)^{-1/4}; q has density ∝ q² (1 - q²)^{7/2},
    // sampled by rejection under its maximum 0.1.
    double q, g;
    do {
      q = rng.next();
      g = 0.1 * rng.next();
    } while (g > q * q * std::pow(1.0 - q * q, 3.5));
    const double speed = q * std::sqrt(2.0) * std::pow(1.0 + r * r, -0.25);
    rng.direction(speed * velocity_scale, p.vx[i], p.vy[i], p.vz[i]);
  }
  to_centre_of_mass_frame(p);
  return p;
}

Particles make_uniform_sphere(std::size_t n, std::uint64_t seed) {
  check_count(n, "a uniform sphere");
  Particles p;
  p.resize(n);
  UniformSource rng(seed);
  for (std::size_t i = 0; i < n; ++i) {
    p.m[i] = 1.0 / static_cast<double>(n);
    double x, y, z;
    do {  // rejection from the cube [-1, 1)³
      x = 2.0 * rng.next() - 1.0;
      y = 2.0 * rng.next() - 1.0;
      z = 2.0 * rng.next() - 1.0;
    } while (x * x + y * y + z * z > 1.0);
    p.x[i] = x, p.y[i] = y, p.z[i] = z;
    p.vx[i] = p.vy[i] = p.vz[i] = 0.0;
  }
  to_centre_of_mass_frame(p);
  return p;
}

Particles make_kepler(double eccentricity, double semi_major_axis) {
  if (!(eccentricity >= 0.0 && eccentricity < 1.0))
    throw Error("Kepler eccentricity must be in [0, 1), got " + std::to_string(eccentricity),
                "system.eccentricity");
  if (!(semi_major_axis > 0.0 && std::isfinite(semi_major_axis)))
    throw Error("Kepler semi-major axis must be positive, got " + std::to_string(semi_major_axis),
                "system.semi_major_axis");
  Particles p;
  p.resize(2);
  // Pericentre distance a(1 - e); relative speed there from vis-viva with G M = 1:
  // v² = (1 + e) / (a (1 - e)). Each body (m = 1/2) carries half of both.
  const double r_peri = semi_major_axis * (1.0 - eccentricity);
  const double v_peri = std::sqrt((1.0 + eccentricity) / (semi_major_axis * (1.0 - eccentricity)));
  p.m = {0.5, 0.5};
  p.x = {-0.5 * r_peri, 0.5 * r_peri};
  p.y = {0.0, 0.0};
  p.z = {0.0, 0.0};
  p.vx = {0.0, 0.0};
  p.vy = {-0.5 * v_peri, 0.5 * v_peri};
  p.vz = {0.0, 0.0};
  return p;
}

void validate_particles(const Particles& p, double eps2, const std::string& source) {
  const std::string where = source.empty() ? std::string("particles") : source;
  if (p.size() == 0) throw Error("no particles (N = 0)", where);
  const char* names[7] = {"m", "x", "y", "z", "vx", "vy", "vz"};
  const std::vector<double>* fields[7] = {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (int f = 0; f < 7; ++f) {
      if (!std::isfinite((*fields[f])[i]))
        throw Error("particle " + std::to_string(i) + " has a non-finite " + names[f] + " (" +
                        std::to_string((*fields[f])[i]) + ")",
                    where);
    }
    if (!(p.m[i] > 0.0))
      throw Error("particle " + std::to_string(i) + " has a non-positive mass (" +
                      std::to_string(p.m[i]) + ")",
                  where);
  }
  if (eps2 == 0.0) {
    // Two particles at the same point have an infinite force without softening.
    std::vector<std::size_t> order(p.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    auto key = [&](std::size_t i) { return std::tuple(p.x[i], p.y[i], p.z[i]); };
    std::sort(order.begin(), order.end(), [&](auto a, auto b) { return key(a) < key(b); });
    for (std::size_t k = 1; k < order.size(); ++k) {
      if (key(order[k]) == key(order[k - 1]))
        throw Error("particles " + std::to_string(std::min(order[k], order[k - 1])) + " and " +
                        std::to_string(std::max(order[k], order[k - 1])) +
                        " coincide and the softening eps is 0 (their force is infinite); set "
                        "eps > 0 or move them apart",
                    where);
    }
  }
}

}  // namespace pairwise::nbody
