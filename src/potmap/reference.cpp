// The reference backend: double precision, plain loops over every point and every atom (the cutoff
// form applies s(r) to every atom; nothing is binned), then the exclusions. The oracle of the
// tests.
#include <chrono>

#include "pairwise/physics/coulomb_potential.hpp"
#include "potmap/map.hpp"

namespace pairwise::potmap {

namespace {

double potential_at(const Atoms& atoms, double px, double py, double pz, bool cutoff,
                    const physics::SwitchParams<double>& sw) {
  double v = 0;
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    const double dx = px - atoms.x[a], dy = py - atoms.y[a], dz = pz - atoms.z[a];
    const double r2 = dx * dx + dy * dy + dz * dz;
    v += cutoff ? physics::cutoff_term(atoms.q[a], r2, sw) : physics::direct_term(atoms.q[a], r2);
  }
  return v;
}

}  // namespace

std::vector<double> reference_points(const Atoms& atoms, const Lattice& lattice,
                                     const MapOptions& options,
                                     const std::vector<std::size_t>& indices) {
  const bool cutoff = options.cutoff > 0;
  const auto sw = physics::switch_params<double>(options.cutoff);
  const std::size_t ny = lattice.counts[1], nz = lattice.counts[2];
  std::vector<double> out(indices.size());
  // Points are independent: the parallel loop gives the same bits as a serial one.
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t p = 0; p < indices.size(); ++p) {
    const std::size_t idx = indices[p];
    const std::size_t i = idx / (ny * nz), j = (idx / nz) % ny, k = idx % nz;
    out[p] = potential_at(atoms, lattice.coord(0, i), lattice.coord(1, j), lattice.coord(2, k),
                          cutoff, sw);
  }
  return out;
}

std::vector<char> excluded_points(const Atoms& atoms, const Lattice& lattice,
                                  const MapOptions& options,
                                  const std::vector<std::size_t>& indices) {
  std::vector<char> out(indices.size(), 0);
  if (options.exclusion <= 0) return out;
  const double rex2 = options.exclusion * options.exclusion;
  const std::size_t ny = lattice.counts[1], nz = lattice.counts[2];
#pragma omp parallel for schedule(dynamic, 16)
  for (std::size_t p = 0; p < indices.size(); ++p) {
    const std::size_t idx = indices[p];
    const std::size_t i = idx / (ny * nz), j = (idx / nz) % ny, k = idx % nz;
    const double px = lattice.coord(0, i), py = lattice.coord(1, j), pz = lattice.coord(2, k);
    for (std::size_t a = 0; a < atoms.size(); ++a) {
      const double dx = px - atoms.x[a], dy = py - atoms.y[a], dz = pz - atoms.z[a];
      if ((dx * dx + dy * dy) + dz * dz < rex2) {
        out[p] = 1;
        break;
      }
    }
  }
  return out;
}

MapResult reference_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  MapResult r;
  r.backend = BackendKind::reference;
  r.precision = Precision::double_;
  r.device = "reference";
  const bool cutoff = options.cutoff > 0;
  const auto sw = physics::switch_params<double>(options.cutoff);
  const auto& n = lattice.counts;
  r.values.assign(lattice.size(), 0.0);
#pragma omp parallel for schedule(dynamic, 1)
  for (std::size_t i = 0; i < n[0]; ++i) {
    for (std::size_t j = 0; j < n[1]; ++j) {
      for (std::size_t k = 0; k < n[2]; ++k) {
        r.values[(i * n[1] + j) * n[2] + k] = potential_at(
            atoms, lattice.coord(0, i), lattice.coord(1, j), lattice.coord(2, k), cutoff, sw);
      }
    }
  }
  apply_exclusions(atoms, lattice, options.exclusion, r.values);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace pairwise::potmap
