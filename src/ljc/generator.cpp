#include "ljc/generator.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "pairwise/error.hpp"

namespace pairwise::ljc {

Molecule make_globule(const GlobuleOptions& o) {
  if (o.n == 0) throw Error("the test molecule needs n >= 1 atoms", "system.n");
  if (o.n > (std::size_t(1) << 26)) throw Error("the test molecule is limited to 2^26 atoms");
  const long n = static_cast<long>(o.n);
  const long side = std::max<long>(1, std::lround(std::ceil(std::cbrt(double(n)) - 1e-9)));
  const long nz = (n + side * side - 1) / (side * side);
  // Serpentine through the layers: rows alternate in x, layers alternate in their row order.
  std::vector<long> layer;
  for (long y = 0; y < side; ++y) {
    for (long k = 0; k < side; ++k) layer.push_back(y * side + (y % 2 == 0 ? k : side - 1 - k));
  }
  const long sites = side * side * nz;
  std::vector<long> path;
  path.reserve(n);
  for (long z = 0; z < nz && long(path.size()) < n; ++z) {
    for (long k = 0; k < side * side && long(path.size()) < n; ++k) {
      const long s = layer[z % 2 == 0 ? k : side * side - 1 - k];
      path.push_back(z * side * side + s);
    }
  }
  std::mt19937_64 rng(o.seed);
  std::vector<long> index(sites, -1);
  for (long k = 0; k < n; ++k) index[path[k]] = k;
  auto neighbor = [&](long s, int d) -> long {
    long x = s % side, y = (s / side) % side, z = s / (side * side);
    switch (d) {
      case 0:
        ++x;
        break;
      case 1:
        --x;
        break;
      case 2:
        ++y;
        break;
      case 3:
        --y;
        break;
      case 4:
        ++z;
        break;
      default:
        --z;
        break;
    }
    if (x < 0 || y < 0 || z < 0 || x >= side || y >= side || z >= nz) return -1;
    return (z * side + y) * side + x;
  };
  const long moves = o.moves >= 0 ? o.moves : (n < 2 ? 0 : std::min<long>(10 * n, 100000000L / n));
  std::uniform_int_distribution<int> dir(0, 5), end(0, 1);
  for (long m = 0; m < moves && n >= 3; ++m) {
    const bool head = end(rng) == 0;
    const long s = path[head ? 0 : n - 1];
    const long t = neighbor(s, dir(rng));
    if (t < 0 || index[t] < 0) continue;
    const long k = index[t];
    if (head) {
      if (k <= 1) continue;
      std::reverse(path.begin(), path.begin() + k);
      for (long a = 0; a < k; ++a) index[path[a]] = a;
    } else {
      if (k >= n - 2) continue;
      std::reverse(path.begin() + k + 1, path.end());
      for (long a = k + 1; a < n; ++a) index[path[a]] = a;
    }
  }
  Molecule mol;
  mol.resize(o.n);
  std::uniform_real_distribution<double> jitter(-o.jitter, o.jitter);
  const double center[3] = {0.5 * (side - 1), 0.5 * (side - 1), 0.5 * (nz - 1)};
  for (long k = 0; k < n; ++k) {
    const long s = path[k];
    const double p[3] = {double(s % side), double((s / side) % side), double(s / (side * side))};
    mol.x[k] = (p[0] - center[0]) * o.spacing + jitter(rng);
    mol.y[k] = (p[1] - center[1]) * o.spacing + jitter(rng);
    mol.z[k] = (p[2] - center[2]) * o.spacing + jitter(rng);
    mol.type[k] = "C";
    mol.sigma[k] = o.sigma;
    mol.epsilon[k] = o.epsilon;
    mol.mass[k] = o.mass;
    mol.q[k] = k < n / 2 ? o.charge : (k < 2 * (n / 2) ? -o.charge : 0.0);
  }
  std::shuffle(mol.q.begin(), mol.q.end(), rng);
  if (o.bonds) {
    // The rest length is the generated distance: the chain starts with relaxed bonds.
    for (long k = 0; k + 1 < n; ++k) {
      const double r = std::sqrt((mol.x[k + 1] - mol.x[k]) * (mol.x[k + 1] - mol.x[k]) +
                                 (mol.y[k + 1] - mol.y[k]) * (mol.y[k + 1] - mol.y[k]) +
                                 (mol.z[k + 1] - mol.z[k]) * (mol.z[k + 1] - mol.z[k]));
      mol.bonds.push_back({int(k), int(k + 1), r, o.bond_k});
    }
  }
  return mol;
}

}  // namespace pairwise::ljc
