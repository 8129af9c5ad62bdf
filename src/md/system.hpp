// The md workload's system (LAMMPS `units lj`, atom_style atomic): a periodic orthorhombic box, N
// atoms of T types, and a Lennard-Jones force field with per-type-pair ε, σ, cutoff (explicit or
// mixed) and one truncation style. Atom types are 1..T as in LAMMPS data files.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {

struct Box {
  std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 1};
  double length(int d) const { return hi[d] - lo[d]; }
  double volume() const { return length(0) * length(1) * length(2); }
};

// Structure of arrays; index i is the storage slot, id[i] the atom's LAMMPS id (1-based).
struct Atoms {
  std::vector<std::uint32_t> id;
  std::vector<int> type;  // 1..T
  std::vector<double> x, y, z, vx, vy, vz;
  std::vector<int> ix, iy, iz;  // image flags (box crossings)
  std::size_t size() const { return x.size(); }
  void resize(std::size_t n);
};

enum class Mixing { geometric, arithmetic };
Mixing parse_mixing(std::string_view text);
physics::LjStyle parse_lj_style(std::string_view text);  // cut | shift | shifted_force
std::string_view to_string(physics::LjStyle s);

struct CustomPairs;  // md/custom_force_field.hpp: formula or table pairs (style custom | table)

struct PairCoeff {
  double epsilon = 1, sigma = 1, cutoff = 0;  // cutoff 0: the global cutoff
  bool given = false;
};

struct ForceField {
  int types = 1;
  std::vector<double> mass;      // per type (index type-1)
  std::vector<PairCoeff> coeff;  // types × types, row-major (index (i-1)*types + (j-1))
  physics::LjStyle style = physics::LjStyle::cut;
  Mixing mixing = Mixing::geometric;
  double cutoff = 2.5;  // global cutoff
  // Set for style = "custom" | "table": every pair's interaction; ε, σ, style are then unused.
  std::shared_ptr<const CustomPairs> custom = nullptr;
  void resize(int t);
  PairCoeff& at(int i, int j) { return coeff[std::size_t(i - 1) * types + (j - 1)]; }
  const PairCoeff& at(int i, int j) const { return coeff[std::size_t(i - 1) * types + (j - 1)]; }
};

// Every type pair resolved: explicit coefficients, else mixed from the ii and jj ones (geometric:
// ε = √(εi εj), σ = √(σi σj); arithmetic: ε = √(εi εj), σ = (σi + σj)/2; a cutoff given for both
// types mixes like σ, otherwise the global cutoff). Throws pairwise::Error for a type without
// coefficients or a mass.
struct PairTable {
  int types = 1;
  std::vector<physics::LjPairParams<double>> params;  // types × types
  std::vector<double> inv_mass;                       // per type
  double max_cutoff = 0;
  std::shared_ptr<const CustomPairs> custom =
      nullptr;  // non-null: use it, not params (whose rc2 still hold)
  const physics::LjPairParams<double>& at(int ti, int tj) const {
    return params[std::size_t(ti - 1) * types + (tj - 1)];
  }
};
PairTable build_pair_table(const ForceField& ff);

struct System {
  Box box;
  Atoms atoms;
  ForceField ff;
};

// LAMMPS-style lattices: `kind` fcc | bcc | sc, reduced density ρ* (atoms per σ³), n cells per
// side; all atoms of type 1, ids in creation order (x fastest over cells, basis inside a cell).
System make_lattice(std::string_view kind, double density, std::array<int, 3> cells);

// Velocities from Maxwell–Boltzmann at temperature T (Gaussian per component, seeded), then the
// total momentum removed and rescaled to exactly T with 3N − 3 degrees of freedom.
void create_velocities(System& s, double temperature, std::uint64_t seed);

// Temperature from kinetic energy: T = 2 KE / (dof), dof = 3N − 3 (LAMMPS's default).
double temperature_of(double kinetic_energy, std::size_t n);
double kinetic_energy(const System& s);

// Input checks (DESIGN.md, Errors): box at least 2(rc + skin) in every dimension, types in 1..T,
// finite coordinates, no two atoms closer than 0.5 σ_ij unless allowed. Throws pairwise::Error.
void validate(const System& s, double skin, bool allow_overlap);

// Wraps every atom into the box, updating its image flags.
void wrap_into_box(System& s);

}  // namespace pairwise::md
