// Scalar fields on a regular lattice: OpenDX as APBS writes it (the format VMD and
// GridDataFormats read) and NumPy .npy.
//
// OpenDX layout (z fastest, three values a line):
//   # comment lines
//   object 1 class gridpositions counts nx ny nz
//   origin x0 y0 z0
//   delta hx 0 0 / delta 0 hy 0 / delta 0 0 hz
//   object 2 class gridconnections counts nx ny nz
//   object 3 class array type double rank 0 items N data follows
//   v v v ... (value (i, j, k) at index (i ny + j) nz + k)
//   attribute "dep" string "positions"
//   object "regular positions regular connections" class field
//   component "positions" value 1 / "connections" value 2 / "data" value 3
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace pairwise::io {

struct ScalarGrid {
  std::array<double, 3> origin{};       // Å, the lattice point (0, 0, 0)
  std::array<double, 3> spacing{};      // Å along x, y, z
  std::array<std::size_t, 3> counts{};  // nx, ny, nz
  // values[(i * ny + j) * nz + k]: z fastest, as OpenDX and C-ordered .npy of shape (nx, ny, nz).
  std::vector<double> values;
  // The values are FP32 numbers (a single or mixed precision map): the .dx holds the shortest
  // text of each FP32 value (about 9 significant digits instead of 17), which reads back as the
  // same FP32 value; the header still says "type double", which PyMOL requires.
  bool single_precision = false;
  std::vector<std::string> comments;  // written as "# ..." lines before the header
  std::size_t size() const { return counts[0] * counts[1] * counts[2]; }
};

// Writes OpenDX through a temporary file renamed on success (io::write_file_atomically). Values
// are written with `digits` significant digits (%.*e; APBS writes 7), or with digits = 0 (the
// default) as the shortest text that reads back as the same double (FP32 value for a
// single-precision grid): the file then holds exactly the values in memory. Origin and deltas are
// always written exactly.
void write_dx(const std::filesystem::path& path, const ScalarGrid& grid, int digits = 0);
// The same, gzip-compressed (zlib; read back by gzip, GridDataFormats, VMD): blocks of the text
// are compressed in parallel as consecutive gzip members (RFC 1952 allows several; one stream).
void write_dx_gz(const std::filesystem::path& path, const ScalarGrid& grid, int digits = 0);
// Reads an OpenDX file of the regular-grid form above; throws pairwise::Error with file:line.
ScalarGrid read_dx(const std::filesystem::path& path);

// Writes an .npy (format 1.0) array of shape (nx, ny, nz), little-endian float32 (`single`) or
// float64, C order; atomically. Comments are not stored.
void write_npy(const std::filesystem::path& path, const ScalarGrid& grid, bool single);

// A 4-D .npy of shape (frames, nx, ny, nz), one frame at a time, through a temporary file renamed
// by commit() (the frame count in the header is written then); destroyed uncommitted, it removes
// the temporary file.
class NpyFrames {
 public:
  NpyFrames(const std::filesystem::path& path, std::array<std::size_t, 3> counts, bool single);
  ~NpyFrames();
  NpyFrames(const NpyFrames&) = delete;
  NpyFrames& operator=(const NpyFrames&) = delete;
  void add(const ScalarGrid& grid);
  void commit();

 private:
  std::filesystem::path path_, temp_;
  std::array<std::size_t, 3> counts_;
  bool single_;
  long frames_ = 0;
  std::FILE* file_ = nullptr;
};

}  // namespace pairwise::io
