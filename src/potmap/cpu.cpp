// The cpu backend: OpenMP over x-planes of the lattice; within a plane the paper's atom-outer loop
// with cylinder clipping (Rodrigues et al., section 4.1): atoms are sorted by x, a plane takes the
// atoms within rc of it (binary search), and each atom updates only the rows (y) its sphere's disk
// covers and, in each row, only the z-range of its chord. The inner loop over z is contiguous and
// vectorizes (this file is compiled with -fno-math-errno -fno-trapping-math). Direct summation
// takes every atom and every point. Each plane belongs to one thread and atoms are added in the
// same order every run: the results are deterministic.
//
// Precisions: single = FP32 coordinates (relative to the lattice origin) and FP32 sums; mixed =
// FP32 pair arithmetic, FP64 sums; double = FP64 throughout. `kahan` compensates FP32 sums.
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <tuple>
#include <utility>

#include "pairwise/physics/coulomb_potential.hpp"
#include "potmap/map.hpp"

namespace pairwise::potmap {

namespace {

enum class Sum { plain, wide, kahan };  // T sums, double sums, compensated T sums

template <class T>
struct SortedAtoms {
  std::vector<double> xd;     // sorted x (absolute, double): the plane's atom range
  std::vector<T> x, y, z, q;  // relative to the lattice origin
};

template <class T>
SortedAtoms<T> sort_atoms(const Atoms& atoms, const Lattice& l) {
  std::vector<std::size_t> order(atoms.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return atoms.x[a] < atoms.x[b]; });
  SortedAtoms<T> s;
  for (const std::size_t a : order) {
    s.xd.push_back(atoms.x[a]);
    s.x.push_back(T(atoms.x[a] - l.origin[0]));
    s.y.push_back(T(atoms.y[a] - l.origin[1]));
    s.z.push_back(T(atoms.z[a] - l.origin[2]));
    s.q.push_back(T(atoms.q[a]));
  }
  return s;
}

// The lattice indices [first, last] (of n points at spacing h from 0) within `half_width` of
// `center`, widened by a point on each side: points beyond rc add exactly 0
// (coulomb_potential.hpp), so rounding here cannot lose a contribution (cylinder clipping).
std::pair<long, long> lattice_span(double center, double half_width, double h, long n) {
  return {std::max(0L, long(std::floor((center - half_width) / h)) - 1),
          std::min(n - 1, long(std::ceil((center + half_width) / h)) + 1)};
}

template <class T, Sum S>
void compute_planes(const SortedAtoms<T>& s, const Lattice& l, const MapOptions& o,
                    std::vector<double>& values) {
  using Acc = std::conditional_t<S == Sum::wide, double, T>;
  const bool cutoff = o.cutoff > 0;
  const auto sw = physics::switch_params<T>(o.cutoff);
  const double h = l.spacing, rc = o.cutoff, rc2 = rc * rc;
  const long nx = long(l.counts[0]), ny = long(l.counts[1]), nz = long(l.counts[2]);
  std::vector<T> ky(static_cast<std::size_t>(ny)), kz(static_cast<std::size_t>(nz));
  for (long j = 0; j < ny; ++j) ky[std::size_t(j)] = T(double(j) * h);
  for (long k = 0; k < nz; ++k) kz[std::size_t(k)] = T(double(k) * h);
  const std::size_t plane = std::size_t(ny * nz);
#pragma omp parallel
  {
    std::vector<Acc> acc(plane), comp(S == Sum::kahan ? plane : 0);
#pragma omp for schedule(dynamic, 1)
    for (long i = 0; i < nx; ++i) {
      std::fill(acc.begin(), acc.end(), Acc(0));
      std::fill(comp.begin(), comp.end(), Acc(0));
      const double xd = l.coord(0, std::size_t(i));
      const T X = T(double(i) * h);
      std::size_t a0 = 0, a1 = s.xd.size();
      if (cutoff) {
        a0 = std::size_t(std::lower_bound(s.xd.begin(), s.xd.end(), xd - rc) - s.xd.begin());
        a1 = std::size_t(std::upper_bound(s.xd.begin(), s.xd.end(), xd + rc) - s.xd.begin());
      }
      for (std::size_t a = a0; a < a1; ++a) {
        const T dx = X - s.x[a], dx2 = dx * dx, ay = s.y[a], az = s.z[a], q = s.q[a];
        long j0 = 0, j1 = ny - 1;
        if (cutoff) {
          // The disk of the sphere in this plane, widened by a point on each side: points beyond rc
          // add exactly 0 (coulomb_potential.hpp), so rounding here cannot lose a contribution.
          const double rho2 = rc2 - double(dx2);
          if (rho2 <= 0) continue;
          std::tie(j0, j1) = lattice_span(double(ay), std::sqrt(rho2), h, ny);
        }
        for (long j = j0; j <= j1; ++j) {
          const T dy = ky[std::size_t(j)] - ay;
          const T dxy2 = dx2 + dy * dy;  // hoisted out of the z loop
          long k0 = 0, k1 = nz - 1;
          if (cutoff) {
            const double rem = rc2 - double(dxy2);
            if (rem <= 0) continue;
            std::tie(k0, k1) = lattice_span(double(az), std::sqrt(rem), h, nz);
          }
          Acc* row = acc.data() + std::size_t(j * nz);
          Acc* crow = S == Sum::kahan ? comp.data() + std::size_t(j * nz) : nullptr;
          const T* zk = kz.data();
          if (cutoff) {
#pragma omp simd
            for (long k = k0; k <= k1; ++k) {
              const T dz = zk[k] - az;
              const T v = physics::cutoff_term(q, dxy2 + dz * dz, sw);
              if constexpr (S == Sum::kahan) {
                const T y = v - crow[k], t = row[k] + y;
                crow[k] = (t - row[k]) - y;
                row[k] = t;
              } else {
                row[k] += Acc(v);
              }
            }
          } else {
#pragma omp simd
            for (long k = k0; k <= k1; ++k) {
              const T dz = zk[k] - az;
              const T v = physics::direct_term(q, dxy2 + dz * dz);
              if constexpr (S == Sum::kahan) {
                const T y = v - crow[k], t = row[k] + y;
                crow[k] = (t - row[k]) - y;
                row[k] = t;
              } else {
                row[k] += Acc(v);
              }
            }
          }
        }
      }
      double* out = values.data() + std::size_t(i) * plane;
      for (std::size_t p = 0; p < plane; ++p) out[p] = double(acc[p]);
    }
  }
}

}  // namespace

MapResult cpu_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  MapResult r;
  r.backend = BackendKind::cpu;
  r.precision = options.precision;
  r.device = "cpu: " + std::to_string(omp_get_max_threads()) + " threads";
  r.values.assign(lattice.size(), 0.0);
  switch (options.precision) {
    case Precision::double_:
      compute_planes<double, Sum::plain>(sort_atoms<double>(atoms, lattice), lattice, options,
                                         r.values);
      break;
    case Precision::mixed:
      compute_planes<float, Sum::wide>(sort_atoms<float>(atoms, lattice), lattice, options,
                                       r.values);
      break;
    case Precision::single:
      if (options.kahan) {
        compute_planes<float, Sum::kahan>(sort_atoms<float>(atoms, lattice), lattice, options,
                                          r.values);
      } else {
        compute_planes<float, Sum::plain>(sort_atoms<float>(atoms, lattice), lattice, options,
                                          r.values);
      }
      break;
  }
  apply_exclusions(atoms, lattice, options.exclusion, r.values);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace pairwise::potmap
