// The potmap config: what `pairwise potmap` flags and `pairwise run` TOML keys (docs/potmap.md)
// set, the atoms it names (PQR, PDB with a charge table, an x y z q table, or a generated water
// box) and the lattice. The run itself is the API layer's (potmap/run.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/config.hpp"
#include "core/io/trajectory.hpp"
#include "potmap/frames.hpp"
#include "potmap/map.hpp"

namespace pairwise::potmap {

enum class InputFormat { automatic, pqr, pdb, xyzq };
InputFormat parse_input_format(std::string_view text);  // auto | pqr | pdb | xyzq

struct PotmapConfig {
  std::filesystem::path input;  // empty: a generated water box of edge water_box
  InputFormat format = InputFormat::automatic;
  std::filesystem::path charges;  // charge table for PDB input
  double water_box = 0;           // Å
  std::uint64_t seed = 1;

  double spacing = 0.5, padding = 5.0;  // Å
  bool explicit_lattice = false;        // origin and counts given
  std::array<double, 3> origin{};
  std::array<std::size_t, 3> counts{};

  MapOptions map;
  Units units = Units::kt_per_e;
  BackendKind backend = BackendKind::automatic;

  std::filesystem::path output;  // .dx, .dx.gz or .npy (by extension)

  // Trajectories: `input` is then the topology (charges, atom order).
  std::filesystem::path trajectory;
  io::TrajectoryFormat trajectory_format = io::TrajectoryFormat::automatic;
  long first_frame = 0, last_frame = -1, frame_stride = 1;  // last inclusive; -1: to the end
  Combine combine = Combine::average;
  // Periodic cell (Å, origin 0): overrides the trajectory's; `periodic` false ignores cells.
  bool box_given = false;
  std::array<double, 3> box{};
  bool periodic = true;
};

// "first:last:stride" (0-based, last inclusive, each part optional: "10:", "::5", "3:9"); throws
// pairwise::Error.
void parse_frame_range(std::string_view text, PotmapConfig& config);

// Reads the atoms the config names (format by extension when automatic: .pqr, .pdb/.ent, else an
// x y z q table). Throws pairwise::Error with file:line:field.
Atoms load_atoms(const PotmapConfig& config);
Atoms read_xyzq(const std::filesystem::path& path);
// TIP3P-charged water (O -0.834 e, H +0.417 e; OH 0.9572 Å, HOH 104.52°) filling a cube of `edge`
// Å from the origin at about 0.0334 molecules/Å³ (the nearest cube number): molecules on a cubic
// lattice, jittered and randomly
// oriented (seeded, so the same on every machine).
Atoms water_box(double edge, std::uint64_t seed);

Lattice make_lattice(const PotmapConfig& config, const Atoms& atoms);

// Reads [input], [lattice], [map], [run] and [output] of a TOML config (docs/potmap.md); relative
// paths are relative to the file.
PotmapConfig read_potmap_config(config::Config& config);

}  // namespace pairwise::potmap
