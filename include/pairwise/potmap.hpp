// Public API of the potmap workload: the electrostatic potential of point charges on a regular
// lattice, by direct summation or cutoff summation with NAMD's switching, with an exclusion radius
// (docs/potmap.md). Input Å and e; maps in kT/e at 298.15 K, V or kcal/(mol·e).
//
//   auto atoms = pairwise::potmap::generate_water_box(40.0, 1);
//   auto grid = pairwise::potmap::grid_around(atoms, 0.5, 2.0);
//   pairwise::potmap::MapSettings set;  set.cutoff = 12;  set.exclusion = 1;
//   pairwise::potmap::Map map = pairwise::potmap::compute_map(atoms, grid, set);
//   pairwise::potmap::write_map(map, "water.dx");
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pairwise/types.hpp"

namespace pairwise::potmap {

// N charges: positions x0 y0 z0 ... (3N, Å) and charges (N, e).
struct AtomArrays {
  std::vector<double> positions, charges;
};

// TIP3P-charged water filling a cube of `edge` Å (as `pairwise potmap --water-box`).
AtomArrays generate_water_box(double edge, std::uint64_t seed = 1);
// A PQR, a PDB with a charge table (RESNAME ATOMNAME CHARGE) or an `x y z q` table; format auto |
// pqr | pdb | xyzq (auto: by extension).
AtomArrays read_atoms(const std::string& path, const std::string& format = "auto",
                      const std::string& charges = "");

// Lattice point (i, j, k) lies at origin + (i, j, k) · spacing.
struct Grid {
  std::array<double, 3> origin{0, 0, 0};
  double spacing = 0.5;
  std::array<std::size_t, 3> counts{1, 1, 1};
};
// The lattice covering the atoms' bounding box grown by `padding` Å on every side.
Grid grid_around(const AtomArrays& atoms, double spacing, double padding);

struct MapSettings {
  RunOptions run{BackendKind::automatic, Precision::single};
  double cutoff = 0;           // Å; 0: direct summation
  double exclusion = 0;        // Å: points closer to an atom are 0
  bool kahan = false;          // compensated summation
  std::string units = "kT/e";  // kT/e | V | kcal/mol/e
  double bin_size = 0;         // cuda atom bins (Å; 0: its default)
  // φ(r) per unit charge as a formula in r (Å) and rc (the cutoff), in e/Å (docs/formulas.md,
  // [map] phi), e.g. Debye–Hückel "exp(-r/7.8)/(78.5*r)"; "": Coulomb 1/r.
  std::string phi;
};

// The map, z fastest: values[(i ny + j) nz + k] in `units` (single and mixed maps hold FP32
// values, as the CLI writes them).
struct Map {
  Grid grid;
  std::vector<double> values;
  std::string units, device;
  BackendKind backend = BackendKind::reference;
  Precision precision = Precision::double_;
  double seconds = 0;
};

// Throws pairwise::Error with the CLI's messages for bad atoms, lattice or settings.
Map compute_map(const AtomArrays& atoms, const Grid& grid, const MapSettings& settings);
// Writes OpenDX (.dx, the values exactly; .dx.gz compressed) or .npy (float32 for single/mixed
// maps), by extension, atomically.
void write_map(const Map& map, const std::string& path);

// A TOML config as `pairwise run` reads it (workload = "potmap"): its atoms, lattice, settings and
// output file.
struct ConfigMap {
  AtomArrays atoms;
  Grid grid;
  MapSettings settings;
  std::string output;
};
ConfigMap read_config(const std::string& path);

}  // namespace pairwise::potmap
