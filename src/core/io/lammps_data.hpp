// LAMMPS files for the md workload (DESIGN.md, Inputs and outputs):
//  - data files, atom_style atomic, orthogonal boxes: header counts and box, sections Masses,
//    Pair Coeffs (i ε σ [rc]), PairIJ Coeffs (i j ε σ [rc]), Atoms (id type x y z [ix iy iz]) and
//    Velocities (id vx vy vz). read_lammps_data reads "<file>.gz" through `gzip -dc`. Errors name
//    the file, line and section.
//  - dump files, style custom with columns id type x y z vx vy vz (one frame per call);
//  - XYZ frames (type as the element column).
// The structs are plain data: the md workload converts them into its System.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

namespace pairwise::io {

struct LammpsPairCoeff {
  int i = 0, j = 0;                           // j == i for a Pair Coeffs line
  double epsilon = 0, sigma = 0, cutoff = 0;  // cutoff 0: not given
};

struct LammpsData {
  std::string title;
  std::int64_t timestep = 0;
  std::array<double, 3> lo{}, hi{};
  int atom_types = 0;
  std::vector<double> masses;  // per type; 0 = not given
  std::vector<LammpsPairCoeff> pair_coeffs;
  std::vector<std::uint32_t> id;
  std::vector<int> type;
  std::vector<double> x, y, z, vx, vy, vz;  // velocities zero where the file has none
  std::vector<int> ix, iy, iz;
};

LammpsData read_lammps_data(const std::filesystem::path& file);
// Parses the text of a data file; `source` names it in messages.
LammpsData parse_lammps_data(const std::string& text, const std::string& source);
// Writes (atomically) a data file LAMMPS's read_data accepts, values in %.17g.
void write_lammps_data(const std::filesystem::path& file, const LammpsData& d);
void write_lammps_data(std::ostream& out, const LammpsData& d);

// One frame of `dump custom ... id type x y z vx vy vz` (positions as stored: wrapped), in the
// order given.
void write_lammps_dump_frame(std::ostream& out, std::int64_t step, const LammpsData& d);
// One XYZ frame: count, comment line, then "type x y z" per atom.
void write_xyz_frame(std::ostream& out, std::int64_t step, const LammpsData& d);

}  // namespace pairwise::io
