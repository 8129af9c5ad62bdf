#include "ljc/molecule.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/config.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

void Molecule::resize(std::size_t n) {
  type.resize(n);
  for (auto* v : {&q, &sigma, &epsilon, &mass, &x, &y, &z}) v->resize(n, 0.0);
}

double Molecule::net_charge() const {
  double s = 0;
  for (double v : q) s += v;
  return s;
}

void Molecule::validate(const std::string& source) const {
  const std::size_t n = size();
  if (n == 0) throw Error("the molecule has no atoms", source);
  for (std::size_t s :
       {type.size(), sigma.size(), epsilon.size(), mass.size(), x.size(), y.size(), z.size()}) {
    if (s != n) throw Error("per-atom arrays of different lengths (internal)", source);
  }
  if (!vx.empty() && (vx.size() != n || vy.size() != n || vz.size() != n)) {
    throw Error("velocities given for some atoms only", source);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::string where = source + ": atom " + std::to_string(i) + " (" + type[i] + ")";
    if (!std::isfinite(q[i]) || !std::isfinite(x[i]) || !std::isfinite(y[i]) ||
        !std::isfinite(z[i])) {
      throw Error("charge and position must be finite numbers", where);
    }
    if (!(sigma[i] > 0) || !std::isfinite(sigma[i])) throw Error("sigma must be > 0 Å", where);
    if (!(epsilon[i] >= 0) || !std::isfinite(epsilon[i])) {
      throw Error("epsilon must be >= 0 kcal/mol", where);
    }
    if (!(mass[i] > 0) || !std::isfinite(mass[i])) throw Error("mass must be > 0 amu", where);
  }
  auto check_pair = [&](int i, int j, const std::string& what, std::size_t k) {
    const std::string where = source + ": " + what + " " + std::to_string(k);
    if (i < 0 || j < 0 || std::size_t(i) >= n || std::size_t(j) >= n) {
      throw Error(what + " names atom " + std::to_string(i < 0 || std::size_t(i) >= n ? i : j) +
                      ", which does not exist (atoms are 0 to " + std::to_string(n - 1) + ")",
                  where);
    }
    if (i == j) throw Error(what + " joins atom " + std::to_string(i) + " to itself", where);
  };
  for (std::size_t k = 0; k < bonds.size(); ++k) {
    check_pair(bonds[k].i, bonds[k].j, "bond", k);
    if (!(bonds[k].r0 > 0) || !(bonds[k].k >= 0) || !std::isfinite(bonds[k].k)) {
      throw Error("bond needs r0 > 0 and k >= 0", source + ": bond " + std::to_string(k));
    }
  }
  for (std::size_t k = 0; k < exclusions.size(); ++k) {
    check_pair(exclusions[k].first, exclusions[k].second, "exclusion", k);
  }
}

physics::DielectricKind parse_dielectric(std::string_view text) {
  if (text == "constant") return physics::DielectricKind::constant;
  if (text == "linear") return physics::DielectricKind::linear;
  if (text == "sigmoidal") return physics::DielectricKind::sigmoidal;
  const std::string known[] = {"constant", "linear", "sigmoidal"};
  throw Error("unknown dielectric '" + std::string(text) + "'" +
              config::suggestion_suffix(text, known) + " (expected constant, linear or sigmoidal)");
}

std::string_view to_string(physics::DielectricKind d) {
  switch (d) {
    case physics::DielectricKind::constant:
      return "constant";
    case physics::DielectricKind::linear:
      return "linear";
    case physics::DielectricKind::sigmoidal:
      return "sigmoidal";
  }
  return "?";
}

PairLists derive_pair_lists(const Molecule& m) {
  const int n = static_cast<int>(m.size());
  std::vector<std::vector<int>> adjacent(n);
  for (const Bond& b : m.bonds) {
    adjacent[b.i].push_back(b.j);
    adjacent[b.j].push_back(b.i);
  }
  PairLists out;
  // Breadth-first search to depth 3 from every atom: shortest bond-graph distances.
  std::vector<int> depth(n, -1);
  std::vector<int> visited;
  for (int i = 0; i < n; ++i) {
    visited.assign(1, i);
    depth[i] = 0;
    for (std::size_t head = 0; head < visited.size(); ++head) {
      const int a = visited[head];
      if (depth[a] == 3) continue;
      for (int b : adjacent[a]) {
        if (depth[b] >= 0) continue;
        depth[b] = depth[a] + 1;
        visited.push_back(b);
      }
    }
    for (int j : visited) {
      if (j > i) {
        if (depth[j] <= 2) out.excluded.emplace_back(i, j);
        if (depth[j] == 3) out.scaled14.emplace_back(i, j);
      }
      depth[j] = -1;
    }
  }
  for (auto [i, j] : m.exclusions) out.excluded.emplace_back(std::min(i, j), std::max(i, j));
  std::sort(out.excluded.begin(), out.excluded.end());
  out.excluded.erase(std::unique(out.excluded.begin(), out.excluded.end()), out.excluded.end());
  std::sort(out.scaled14.begin(), out.scaled14.end());
  std::vector<std::pair<int, int>> kept;
  std::set_difference(out.scaled14.begin(), out.scaled14.end(), out.excluded.begin(),
                      out.excluded.end(), std::back_inserter(kept));
  out.scaled14 = std::move(kept);
  return out;
}

}  // namespace pairwise::ljc
