// Electrostatic potential maps (issue 3): the potential of point charges summed at every point of
// a regular lattice, by direct summation (s = 1) or cutoff summation with NAMD's switching
// (include/pairwise/physics/coulomb_potential.hpp), with an exclusion radius and optional
// compensated summation. Backends: reference (double, plain loops, the oracle), cpu (OpenMP, the
// paper's atom-outer loop with cylinder clipping), cuda (src/potmap/cuda_map.cu).
//
// Maps are stored z fastest: value (i, j, k) at (i ny + j) nz + k, the order of OpenDX and of a
// C-ordered (nx, ny, nz) .npy. Values are in e/Å until converted by unit_factor().
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::potmap {

// Charges at positions (Å, e), structure of arrays.
struct Atoms {
  std::vector<double> x, y, z, q;
  std::size_t size() const { return q.size(); }
  void push_back(double px, double py, double pz, double pq) {
    x.push_back(px), y.push_back(py), z.push_back(pz), q.push_back(pq);
  }
};

// Lattice point (i, j, k) lies at origin + (i, j, k) · spacing.
struct Lattice {
  std::array<double, 3> origin{};
  double spacing = 0;
  std::array<std::size_t, 3> counts{};
  std::size_t size() const { return counts[0] * counts[1] * counts[2]; }
  double coord(int axis, std::size_t index) const {
    return origin[std::size_t(axis)] + double(index) * spacing;
  }
};

// The lattice of `spacing` that covers the atoms' bounding box grown by `padding` on every side:
// origin = min - padding, counts = ceil((max - min + 2 padding) / spacing) + 1. Throws
// pairwise::Error for spacing <= 0, padding < 0 or no atoms.
Lattice lattice_around(const Atoms& atoms, double spacing, double padding);

// Throws pairwise::Error("<what>", where) naming the first bad value: non-finite coordinates or
// charges (with the atom index), no atoms, spacing <= 0, counts of 0, cutoff smaller than the
// spacing, negative exclusion radius.
class CustomPhi;
struct MapOptions;
void validate(const Atoms& atoms, const Lattice& lattice, const MapOptions& options);

enum class Units { kt_per_e, volt, kcal_per_mol_e };
Units parse_units(std::string_view text);  // "kT/e", "V", "kcal/mol/e"; throws pairwise::Error
std::string_view to_string(Units u);
// The factor from e/Å to `u`.
double unit_factor(Units u);
// One sentence for the file's comment ("electrostatic potential in kT/e at 298.15 K ...").
std::string describe_units(Units u);

struct MapOptions {
  Precision precision = Precision::single;
  double cutoff = 0;     // Å; <= 0: direct summation
  double exclusion = 0;  // Å; points closer than this to any atom are set to 0
  bool kahan = false;    // compensated summation (single and mixed pair arithmetic)
  double bin_size = 0;   // Å, the cuda backend's atom bins (0: its default)
  int device = 0;        // CUDA device
  // Device memory the cuda backend may use for the map itself (FP32 maps: the values and their
  // FP64 copy for the host, 12 bytes a point), besides the atoms and bins (bytes;
  // 0: what the device has free, less the atoms, bins and 256 MiB). Lattices that need more are
  // computed in slabs of x-planes, unless `slabs` is false (then an error says how many bytes were
  // needed).
  std::size_t device_memory_limit = 0;
  bool slabs = true;
  // [map] phi: a custom φ(r) (potmap/custom_phi.hpp, reference and cpu) instead of q/r.
  std::shared_ptr<const CustomPhi> custom = nullptr;
};

struct MapResult {
  std::vector<double> values;  // e/Å, z fastest
  BackendKind backend = BackendKind::reference;
  Precision precision = Precision::double_;
  std::string device;     // "reference", "cpu: 16 threads", "cuda: NVIDIA H200"
  double seconds = 0;     // the computation (binning, summation, exclusions), no file I/O
  int slabs = 1;          // how the lattice was split (cuda)
  std::string slab_note;  // "3 slabs of at most 67 x-planes (...)", or empty for one
};

// Computes the map on a resolved backend (not automatic). Validates first. The cuda backend
// copies the map into `values` (resized to the lattice size): a caller may allocate and touch
// that memory beforehand, off the critical path (run_single does it while the CUDA context
// starts), since the first touch of a fresh 10^7-point map costs tens of ms in page faults. The
// other backends allocate their own.
MapResult compute_map(BackendKind backend, const Atoms& atoms, const Lattice& lattice,
                      const MapOptions& options, std::vector<double> values = {});

// Backends (validated input).
MapResult reference_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options);
MapResult cpu_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options);

// The reference potential (double, before exclusions) at the lattice points of the given flat
// indices: for sampled accuracy checks of maps too large for reference_map.
std::vector<double> reference_points(const Atoms& atoms, const Lattice& lattice,
                                     const MapOptions& options,
                                     const std::vector<std::size_t>& indices);
// Whether lattice point `index` lies closer than options.exclusion to an atom (brute force).
std::vector<char> excluded_points(const Atoms& atoms, const Lattice& lattice,
                                  const MapOptions& options,
                                  const std::vector<std::size_t>& indices);

// Sets to 0 every point closer than `exclusion` to an atom (distances in double, no FMA).
void apply_exclusions(const Atoms& atoms, const Lattice& lattice, double exclusion,
                      std::vector<double>& values);

// Table 2 of Rodrigues et al.: the largest relative and absolute error of `got` against `ref`
// over the points where |ref| > threshold (e/Å, default 1e-4), and how many points that was.
struct MapErrors {
  double max_relative = 0, max_absolute = 0;
  std::size_t points = 0;
};
MapErrors map_errors(const std::vector<double>& got, const std::vector<double>& ref,
                     double threshold = 1e-4);

}  // namespace pairwise::potmap
