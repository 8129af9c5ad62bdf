#include "ljc/pqr_molecule.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

#include "pairwise/error.hpp"

namespace pairwise::ljc {
namespace {

struct Element {
  char symbol;
  double mass, covalent_radius;
};
constexpr Element kElements[] = {{'H', 1.008, 0.31},  {'C', 12.011, 0.76}, {'N', 14.007, 0.71},
                                 {'O', 15.999, 0.66}, {'S', 32.06, 1.05},  {'P', 30.974, 1.07}};

const Element* element_of(const std::string& name) {
  for (char c : name) {
    if (std::isdigit(static_cast<unsigned char>(c))) continue;
    const char e = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const Element& el : kElements) {
      if (el.symbol == e) return &el;
    }
    return nullptr;
  }
  return nullptr;
}

}  // namespace

bool element_of_atom(const std::string& name, double& mass, double& covalent_radius) {
  const Element* el = element_of(name);
  if (!el) return false;
  mass = el->mass, covalent_radius = el->covalent_radius;
  return true;
}

std::vector<Bond> bonds_by_distance(const Molecule& m, const std::vector<double>& rcov,
                                    double bond_k) {
  std::vector<Bond> bonds;
  // Bonds by distance on a grid of 2.6 Å cells (the longest bond, S-P, is < 2.6 Å).
  constexpr double kCell = 2.6;
  auto key = [&](long cx, long cy, long cz) {
    return (cx * 73856093L) ^ (cy * 19349663L) ^ (cz * 83492791L);
  };
  std::unordered_multimap<long, int> grid;
  auto cell = [&](double v) { return long(std::floor(v / kCell)); };
  for (std::size_t i = 0; i < m.size(); ++i) {
    grid.emplace(key(cell(m.x[i]), cell(m.y[i]), cell(m.z[i])), int(i));
  }
  for (std::size_t i = 0; i < m.size(); ++i) {
    const long cx = cell(m.x[i]), cy = cell(m.y[i]), cz = cell(m.z[i]);
    for (long dx = -1; dx <= 1; ++dx)
      for (long dy = -1; dy <= 1; ++dy)
        for (long dz = -1; dz <= 1; ++dz) {
          auto range = grid.equal_range(key(cx + dx, cy + dy, cz + dz));
          for (auto it = range.first; it != range.second; ++it) {
            const int j = it->second;
            if (j <= int(i)) continue;
            const double d = std::sqrt((m.x[i] - m.x[j]) * (m.x[i] - m.x[j]) +
                                       (m.y[i] - m.y[j]) * (m.y[i] - m.y[j]) +
                                       (m.z[i] - m.z[j]) * (m.z[i] - m.z[j]));
            if (rcov[i] > 0 && rcov[j] > 0 && d > 0.4 && d < 1.2 * (rcov[i] + rcov[j])) {
              bonds.push_back({int(i), j, d, bond_k});
            }
          }
        }
  }
  std::sort(bonds.begin(), bonds.end(),
            [](const Bond& a, const Bond& b) { return a.i != b.i ? a.i < b.i : a.j < b.j; });
  // Two neighbour cells whose hash keys collide would list a pair twice.
  bonds.erase(std::unique(bonds.begin(), bonds.end(),
                          [](const Bond& a, const Bond& b) { return a.i == b.i && a.j == b.j; }),
              bonds.end());
  return bonds;
}

Molecule molecule_from_pqr(const std::vector<io::AtomRecord>& atoms, const PqrOptions& o,
                           const std::string& source) {
  if (atoms.empty()) throw Error("the PQR file has no ATOM or HETATM records", source);
  Molecule m;
  m.resize(atoms.size());
  std::vector<double> rcov(atoms.size());
  const double sigma_factor = 2.0 / std::pow(2.0, 1.0 / 6.0);
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    const io::AtomRecord& a = atoms[i];
    const Element* el = element_of(a.name);
    if (!el) {
      throw Error("no mass for the element of atom '" + a.name + "' (serial " +
                      std::to_string(a.serial) + "); known: H C N O S P",
                  source);
    }
    m.type[i] = a.name;
    m.q[i] = a.charge;
    // A radius of 0 (pdb2pqr's polar hydrogens) gets a small σ, still > 0.
    m.sigma[i] = a.radius > 0 ? sigma_factor * a.radius : 0.5;
    m.epsilon[i] = o.epsilon;
    m.mass[i] = el->mass;
    m.x[i] = a.x, m.y[i] = a.y, m.z[i] = a.z;
    rcov[i] = el->covalent_radius;
  }
  m.bonds = bonds_by_distance(m, rcov, o.bond_k);
  m.validate(source);
  return m;
}

}  // namespace pairwise::ljc
