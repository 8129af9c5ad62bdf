#include "potmap/map.hpp"

#include "potmap/custom_phi.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "pairwise/error.hpp"
#include "pairwise/physics/coulomb_potential.hpp"
#include "parallel/communicator.hpp"
#include "potmap/cuda_map.hpp"
#include "potmap/rank_slabs.hpp"

namespace pairwise::potmap {

namespace {

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::size_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::size_t(pages) * std::size_t(page) : 0;
}

}  // namespace

Lattice lattice_around(const Atoms& atoms, double spacing, double padding) {
  if (!(spacing > 0) || !std::isfinite(spacing)) {
    throw Error("lattice spacing " + number(spacing) + " Å: must be > 0", "spacing");
  }
  if (!(padding >= 0) || !std::isfinite(padding)) {
    throw Error("lattice padding " + number(padding) + " Å: must be >= 0", "padding");
  }
  if (atoms.size() == 0) throw Error("no atoms in the input", "input");
  Lattice l;
  l.spacing = spacing;
  const std::vector<double>* c[3] = {&atoms.x, &atoms.y, &atoms.z};
  for (int a = 0; a < 3; ++a) {
    const auto [lo, hi] = std::minmax_element(c[a]->begin(), c[a]->end());
    if (!std::isfinite(*lo) || !std::isfinite(*hi)) {
      throw Error("atom coordinates are not finite", "input");
    }
    l.origin[a] = *lo - padding;
    const double extent = (*hi - *lo) + 2 * padding;
    const double cells = std::ceil(extent / spacing - 1e-9);
    if (cells > 1e9) throw Error("lattice of more than 10^9 points along one axis", "spacing");
    l.counts[a] = std::size_t(cells) + 1;
  }
  return l;
}

void validate(const Atoms& atoms, const Lattice& lattice, const MapOptions& options) {
  if (atoms.size() == 0) throw Error("no atoms in the input", "input");
  const std::vector<double>* c[4] = {&atoms.x, &atoms.y, &atoms.z, &atoms.q};
  const char* names[4] = {"x", "y", "z", "charge"};
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    for (int a = 0; a < 4; ++a) {
      if (!std::isfinite((*c[a])[i])) {
        throw Error(std::string("atom ") + std::to_string(i + 1) + ": " + names[a] +
                        " is not finite (" + number((*c[a])[i]) + ")",
                    "input");
      }
    }
  }
  if (!(lattice.spacing > 0) || !std::isfinite(lattice.spacing)) {
    throw Error("lattice spacing " + number(lattice.spacing) + " Å: must be > 0", "spacing");
  }
  for (int a = 0; a < 3; ++a) {
    if (!std::isfinite(lattice.origin[a])) throw Error("lattice origin is not finite", "origin");
    if (lattice.counts[a] == 0) throw Error("lattice counts must be >= 1", "counts");
  }
  if (options.cutoff > 0 && options.cutoff < lattice.spacing) {
    throw Error("cutoff " + number(options.cutoff) + " Å is smaller than the lattice spacing " +
                    number(lattice.spacing) + " Å",
                "cutoff");
  }
  if (!std::isfinite(options.cutoff)) throw Error("cutoff is not finite", "cutoff");
  if (!(options.exclusion >= 0) || !std::isfinite(options.exclusion)) {
    throw Error("exclusion radius " + number(options.exclusion) + " Å: must be >= 0", "exclusion");
  }
  if (!(options.bin_size >= 0) || !std::isfinite(options.bin_size)) {
    throw Error("bin size " + number(options.bin_size) + " Å: must be > 0", "bin_size");
  }
  // The map lives in host memory as doubles.
  const double points =
      double(lattice.counts[0]) * double(lattice.counts[1]) * double(lattice.counts[2]);
  const double bytes = points * sizeof(double);
  const double host = double(host_memory_bytes());
  if (points > double(std::numeric_limits<std::int64_t>::max() / 16) ||
      (host > 0 && bytes > host)) {
    throw Error("lattice of " + number(points) + " points needs " + number(bytes) +
                    " bytes of host memory, more than this machine has (" + number(host) + ")",
                "counts");
  }
}

Units parse_units(std::string_view text) {
  if (text == "kT/e" || text == "kt/e" || text == "kT") return Units::kt_per_e;
  if (text == "V" || text == "volt") return Units::volt;
  if (text == "kcal/mol/e" || text == "kcal/(mol*e)" || text == "kcal/(mol·e)")
    return Units::kcal_per_mol_e;
  throw Error("unknown units '" + std::string(text) + "' (expected kT/e, V or kcal/mol/e)",
              "units");
}

std::string_view to_string(Units u) {
  switch (u) {
    case Units::kt_per_e:
      return "kT/e";
    case Units::volt:
      return "V";
    case Units::kcal_per_mol_e:
      return "kcal/mol/e";
  }
  return "?";
}

double unit_factor(Units u) {
  switch (u) {
    case Units::kt_per_e:
      return physics::kKtPerEPerAngstrom;
    case Units::volt:
      return physics::kVoltsPerEPerAngstrom;
    case Units::kcal_per_mol_e:
      return physics::kCoulombKcal;
  }
  return 1;
}

std::string describe_units(Units u) {
  switch (u) {
    case Units::kt_per_e:
      return "electrostatic potential in kT/e at 298.15 K (1 e/A = " +
             number(physics::kKtPerEPerAngstrom) + " kT/e, as VMD volmap)";
    case Units::volt:
      return "electrostatic potential in V (1 e/A = " + number(physics::kVoltsPerEPerAngstrom) +
             " V)";
    case Units::kcal_per_mol_e:
      return "electrostatic potential in kcal/(mol e) (1 e/A = " + number(physics::kCoulombKcal) +
             " kcal/(mol e))";
  }
  return {};
}

MapResult compute_map(BackendKind backend, const Atoms& atoms, const Lattice& lattice,
                      const MapOptions& options, std::vector<double> values) {
  validate(atoms, lattice, options);
  if (parallel::split_across_ranks()) return map_across_ranks(backend, atoms, lattice, options);
  if (options.custom) return custom_map(backend, atoms, lattice, options);  // [map] phi
  switch (backend) {
    case BackendKind::reference:
      return reference_map(atoms, lattice, options);
    case BackendKind::cpu:
      return cpu_map(atoms, lattice, options);
    case BackendKind::cuda:
      return cuda_map(atoms, lattice, options, std::move(values));
    case BackendKind::automatic:
      break;
  }
  throw Error("compute_map needs a resolved backend, not auto");
}

void apply_exclusions(const Atoms& atoms, const Lattice& lattice, double exclusion,
                      std::vector<double>& values) {
  if (exclusion <= 0) return;
  const double h = lattice.spacing, rex2 = exclusion * exclusion;
  const auto& n = lattice.counts;
  for (std::size_t a = 0; a < atoms.size(); ++a) {
    const double p[3] = {atoms.x[a], atoms.y[a], atoms.z[a]};
    long lo[3], hi[3];
    bool empty = false;
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::max(0L, long(std::floor((p[d] - exclusion - lattice.origin[d]) / h)));
      hi[d] = std::min(long(n[d]) - 1, long(std::ceil((p[d] + exclusion - lattice.origin[d]) / h)));
      empty = empty || lo[d] > hi[d];
    }
    if (empty) continue;
    for (long i = lo[0]; i <= hi[0]; ++i) {
      const double dx = lattice.coord(0, std::size_t(i)) - p[0];
      for (long j = lo[1]; j <= hi[1]; ++j) {
        const double dy = lattice.coord(1, std::size_t(j)) - p[1];
        for (long k = lo[2]; k <= hi[2]; ++k) {
          const double dz = lattice.coord(2, std::size_t(k)) - p[2];
          // No FMA on the host build (no -mfma); the cuda backend uses _rn intrinsics: the same
          // roundings decide the same points.
          const double r2 = (dx * dx + dy * dy) + dz * dz;
          if (r2 < rex2)
            values[(std::size_t(i) * n[1] + std::size_t(j)) * n[2] + std::size_t(k)] = 0;
        }
      }
    }
  }
}

MapErrors map_errors(const std::vector<double>& got, const std::vector<double>& ref,
                     double threshold) {
  MapErrors e;
  if (got.size() != ref.size()) {
    e.max_relative = e.max_absolute = HUGE_VAL;
    return e;
  }
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (!(std::abs(ref[i]) > threshold)) continue;
    const double d = std::abs(got[i] - ref[i]);
    const double r = d / std::abs(ref[i]);
    e.max_absolute = std::isnan(d) ? HUGE_VAL : std::max(e.max_absolute, d);
    e.max_relative = std::isnan(r) ? HUGE_VAL : std::max(e.max_relative, r);
    ++e.points;
  }
  return e;
}

}  // namespace pairwise::potmap

#ifndef PAIRWISE_HAVE_CUDA
namespace pairwise::potmap {
MapResult cuda_map(const Atoms&, const Lattice&, const MapOptions&, std::vector<double>) {
  throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
}
std::unique_ptr<FrameMaps> cuda_frame_maps(const Lattice&, const MapOptions&, Combine) {
  throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
}
std::optional<MapResult> cuda_map_across_ranks(const Atoms&, const Lattice&, const Lattice&,
                                               const MapOptions&) {
  throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
}
bool cuda_start_context(int) noexcept {
  return false;
}
void cuda_warm_up(const MapOptions&) noexcept {}
}  // namespace pairwise::potmap
#endif
