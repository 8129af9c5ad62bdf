#include "md/system.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "engine/cell_list.hpp"
#include "md/custom_force_field.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

void Atoms::resize(std::size_t n) {
  id.resize(n), type.resize(n, 1);
  x.resize(n), y.resize(n), z.resize(n), vx.resize(n), vy.resize(n), vz.resize(n);
  ix.resize(n), iy.resize(n), iz.resize(n);
}

Mixing parse_mixing(std::string_view text) {
  if (text == "geometric") return Mixing::geometric;
  if (text == "arithmetic") return Mixing::arithmetic;
  throw Error("unknown mixing rule '" + std::string(text) + "' (expected geometric or arithmetic)");
}

physics::LjStyle parse_lj_style(std::string_view text) {
  if (text == "cut") return physics::LjStyle::cut;
  if (text == "shift") return physics::LjStyle::shift;
  if (text == "shifted_force") return physics::LjStyle::shifted_force;
  throw Error("unknown pair style '" + std::string(text) +
              "' (expected cut, shift or shifted_force)");
}

std::string_view to_string(physics::LjStyle s) {
  switch (s) {
    case physics::LjStyle::cut:
      return "cut";
    case physics::LjStyle::shift:
      return "shift";
    case physics::LjStyle::shifted_force:
      return "shifted_force";
  }
  return "?";
}

void ForceField::resize(int t) {
  types = t;
  mass.assign(std::size_t(t), 0.0);
  coeff.assign(std::size_t(t) * t, PairCoeff{});
}

PairTable build_pair_table(const ForceField& ff) {
  PairTable table;
  table.types = ff.types;
  table.params.resize(std::size_t(ff.types) * ff.types);
  table.inv_mass.resize(std::size_t(ff.types));
  for (int i = 1; i <= ff.types; ++i) {
    const double m = ff.mass[std::size_t(i - 1)];
    if (!(m > 0) || !std::isfinite(m))
      throw Error("atom type " + std::to_string(i) + " has no positive mass", "Masses");
    table.inv_mass[std::size_t(i - 1)] = 1.0 / m;
  }
  if (ff.custom) {
    // Custom pairs: LJ parameters stay zero (no interaction), only the cutoffs are used.
    table.custom = ff.custom;
    for (int i = 1; i <= ff.types; ++i)
      for (int j = 1; j <= ff.types; ++j) {
        const double rc = ff.custom->at(i, j).cutoff();
        auto& p = table.params[std::size_t(i - 1) * ff.types + (j - 1)];
        p.rc = rc, p.rc2 = rc * rc;
        table.max_cutoff = std::max(table.max_cutoff, rc);
      }
    return table;
  }
  for (int i = 1; i <= ff.types; ++i)
    for (int j = 1; j <= ff.types; ++j) {
      PairCoeff c = ff.at(i, j);
      if (!c.given) c = ff.at(j, i);
      if (!c.given) {
        const PairCoeff &a = ff.at(i, i), &b = ff.at(j, j);
        if (!a.given || !b.given) {
          const int missing = a.given ? j : i;
          throw Error("no pair coefficients for atom type " + std::to_string(missing) +
                          " (give pair " + std::to_string(missing) + " " + std::to_string(missing) +
                          " to mix from)",
                      "Pair Coeffs");
        }
        c.epsilon = std::sqrt(a.epsilon * b.epsilon);
        c.sigma = ff.mixing == Mixing::geometric ? std::sqrt(a.sigma * b.sigma)
                                                 : 0.5 * (a.sigma + b.sigma);
        if (a.cutoff > 0 && b.cutoff > 0)
          c.cutoff = ff.mixing == Mixing::geometric ? std::sqrt(a.cutoff * b.cutoff)
                                                    : 0.5 * (a.cutoff + b.cutoff);
        else
          c.cutoff = 0;
      }
      const double rc = c.cutoff > 0 ? c.cutoff : ff.cutoff;
      if (!(rc > 0))
        throw Error("cutoff must be > 0", "pair " + std::to_string(i) + " " + std::to_string(j));
      table.params[std::size_t(i - 1) * ff.types + (j - 1)] =
          physics::lj_pair_params(c.epsilon, c.sigma, rc, ff.style);
      table.max_cutoff = std::max(table.max_cutoff, rc);
    }
  return table;
}

System make_lattice(std::string_view kind, double density, std::array<int, 3> cells) {
  std::vector<std::array<double, 3>> basis;
  if (kind == "fcc")
    basis = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
  else if (kind == "bcc")
    basis = {{0, 0, 0}, {0.5, 0.5, 0.5}};
  else if (kind == "sc")
    basis = {{0, 0, 0}};
  else
    throw Error("unknown lattice '" + std::string(kind) + "' (expected fcc, bcc or sc)");
  if (!(density > 0)) throw Error("lattice density must be > 0");
  for (int c : cells)
    if (c < 1) throw Error("lattice cells must be >= 1 per side");
  // LAMMPS `lattice fcc ρ*`: the cubic cell holds basis.size() atoms, a = (nb / ρ*)^(1/3).
  const double a = std::cbrt(double(basis.size()) / density);
  System s;
  s.box.lo = {0, 0, 0};
  s.box.hi = {a * cells[0], a * cells[1], a * cells[2]};
  const std::size_t n = std::size_t(cells[0]) * cells[1] * cells[2] * basis.size();
  s.atoms.resize(n);
  std::size_t i = 0;
  // LAMMPS's create_atoms loop order: k (z) outermost, then j, then i, basis innermost.
  for (int k = 0; k < cells[2]; ++k)
    for (int j = 0; j < cells[1]; ++j)
      for (int l = 0; l < cells[0]; ++l)
        for (const auto& b : basis) {
          s.atoms.id[i] = std::uint32_t(i + 1);
          s.atoms.type[i] = 1;
          s.atoms.x[i] = (l + b[0]) * a, s.atoms.y[i] = (j + b[1]) * a,
          s.atoms.z[i] = (k + b[2]) * a;
          ++i;
        }
  s.ff.resize(1);
  s.ff.mass[0] = 1.0;
  s.ff.at(1, 1) = {1.0, 1.0, 0.0, true};
  return s;
}

double kinetic_energy(const System& s) {
  const auto& a = s.atoms;
  double ke = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    ke += s.ff.mass[std::size_t(a.type[i] - 1)] *
          (a.vx[i] * a.vx[i] + a.vy[i] * a.vy[i] + a.vz[i] * a.vz[i]);
  return 0.5 * ke;
}

double temperature_of(double kinetic_energy, std::size_t n) {
  const double dof = n > 1 ? 3.0 * double(n) - 3.0 : 3.0;
  return 2.0 * kinetic_energy / dof;
}

void create_velocities(System& s, double temperature, std::uint64_t seed) {
  auto& a = s.atoms;
  const std::size_t n = a.size();
  if (n == 0) return;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal;
  double p[3] = {0, 0, 0}, mtot = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double m = s.ff.mass[std::size_t(a.type[i] - 1)];
    const double sd = std::sqrt(std::max(temperature, 0.0) / m);
    a.vx[i] = sd * normal(rng), a.vy[i] = sd * normal(rng), a.vz[i] = sd * normal(rng);
    p[0] += m * a.vx[i], p[1] += m * a.vy[i], p[2] += m * a.vz[i];
    mtot += m;
  }
  for (std::size_t i = 0; i < n; ++i)
    a.vx[i] -= p[0] / mtot, a.vy[i] -= p[1] / mtot, a.vz[i] -= p[2] / mtot;
  const double t_now = temperature_of(kinetic_energy(s), n);
  const double scale = t_now > 0 ? std::sqrt(temperature / t_now) : 0.0;
  for (std::size_t i = 0; i < n; ++i) a.vx[i] *= scale, a.vy[i] *= scale, a.vz[i] *= scale;
}

void wrap_into_box(System& s) {
  auto& a = s.atoms;
  double* xs[3] = {a.x.data(), a.y.data(), a.z.data()};
  int* im[3] = {a.ix.data(), a.iy.data(), a.iz.data()};
  for (int d = 0; d < 3; ++d) {
    const double L = s.box.length(d), lo = s.box.lo[d];
    for (std::size_t i = 0; i < a.size(); ++i) {
      const double shift = std::floor((xs[d][i] - lo) / L);
      if (shift != 0) {
        xs[d][i] -= shift * L;
        im[d][i] += int(shift);
        if (xs[d][i] >= lo + L) xs[d][i] -= L, ++im[d][i];  // rounding at the upper face
      }
    }
  }
}

void validate(const System& s, double skin, bool allow_overlap) {
  const auto& a = s.atoms;
  const PairTable table = build_pair_table(s.ff);
  const double r_list = table.max_cutoff + skin;
  const char* axis = "xyz";
  for (int d = 0; d < 3; ++d) {
    if (!(s.box.length(d) >= 2 * r_list))
      throw Error("box length " + std::to_string(s.box.length(d)) + " in " + axis[d] +
                      " is shorter than 2 (cutoff + skin) = " + std::to_string(2 * r_list),
                  "box");
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a.type[i] < 1 || a.type[i] > s.ff.types)
      throw Error("unknown atom type " + std::to_string(a.type[i]) + " (the system has " +
                      std::to_string(s.ff.types) + ")",
                  "atom id " + std::to_string(a.id[i]));
    if (!std::isfinite(a.x[i]) || !std::isfinite(a.y[i]) || !std::isfinite(a.z[i]) ||
        !std::isfinite(a.vx[i]) || !std::isfinite(a.vy[i]) || !std::isfinite(a.vz[i]))
      throw Error("non-finite position or velocity", "atom id " + std::to_string(a.id[i]));
  }
  if (allow_overlap || a.size() < 2) return;
  // Overlaps: pairs closer than 0.5 σ_ij, found with the run's cell grid (cells >= r_list).
  double max_sigma = 0;
  std::vector<double> sigma(std::size_t(s.ff.types) * s.ff.types);
  for (int i = 1; i <= s.ff.types; ++i)
    for (int j = 1; j <= s.ff.types; ++j) {
      const auto& p = table.at(i, j);
      const double sg = p.a > 0 && p.b > 0 ? std::pow(p.a / p.b, 1.0 / 6.0) : 0.0;
      sigma[std::size_t(i - 1) * s.ff.types + (j - 1)] = sg;
      max_sigma = std::max(max_sigma, sg);
    }
  if (max_sigma <= 0) return;
  const std::array<double, 3> len{s.box.length(0), s.box.length(1), s.box.length(2)};
  const auto grid = engine::make_cell_grid(s.box.lo, len, std::max(r_list, 0.5 * max_sigma));
  engine::CellList cells;
  engine::build_cell_list(grid, a.size(), a.x.data(), a.y.data(), a.z.data(), cells);
  engine::NeighborList list;
  engine::build_neighbor_list(grid, cells, a.size(), a.x.data(), a.y.data(), a.z.data(),
                              0.5 * max_sigma, true, list);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < list.count[i]; ++k) {
      const std::size_t j = std::size_t(list.index[i * list.capacity + k]);
      const double sg = sigma[std::size_t(a.type[i] - 1) * s.ff.types + (a.type[j] - 1)];
      const double dx = engine::minimum_image(a.x[i] - a.x[j], len[0]);
      const double dy = engine::minimum_image(a.y[i] - a.y[j], len[1]);
      const double dz = engine::minimum_image(a.z[i] - a.z[j], len[2]);
      const double r = std::sqrt(dx * dx + dy * dy + dz * dz);
      if (r < 0.5 * sg)
        throw Error("atoms overlap at start: distance " + std::to_string(r) + " < 0.5 sigma = " +
                        std::to_string(0.5 * sg) + " (set system.allow_overlap = true to accept)",
                    "atom ids " + std::to_string(a.id[i]) + " and " + std::to_string(a.id[j]));
    }
}

}  // namespace pairwise::md
