// Trajectory readers for potential maps of MD frames (docs/potmap.md, "Trajectories"): LAMMPS dump
// (text, as `pairwise md` and LAMMPS write it), XYZ, and CHARMM/NAMD DCD (either byte order, with
// or without a unit cell). Frames are read one at a time (streaming); a bad frame throws
// pairwise::Error naming the file and the frame (0-based index), and nothing of it is returned.
#pragma once

#include <array>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pairwise::io {

// One frame: positions in Å in the topology's atom order, and the periodic cell if the file has
// one (orthorhombic: lengths along x, y, z from `cell_origin`).
struct TrajectoryFrame {
  std::vector<double> x, y, z;
  bool has_cell = false;
  std::array<double, 3> cell_origin{}, cell_length{};
  long index = 0;  // frame index in the file, from 0
  std::size_t size() const { return x.size(); }
};

class TrajectoryReader {
 public:
  virtual ~TrajectoryReader() = default;
  // Reads the next frame into `frame`; false at the clean end of the file. Throws pairwise::Error
  // for a truncated or malformed frame (naming it).
  virtual bool next(TrajectoryFrame& frame) = 0;
  // Skips the next frame (cheaply where the format allows); false at the end.
  virtual bool skip();
  // Atoms per frame (0 if the format says so only per frame and nothing was read yet).
  virtual std::size_t atoms() const = 0;
  // "DCD (little-endian, unit cell)", "LAMMPS dump", "XYZ".
  virtual std::string describe() const = 0;
  const std::filesystem::path& path() const { return path_; }

 protected:
  explicit TrajectoryReader(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
  TrajectoryFrame scratch_;  // skip() reads into it where a format cannot seek
};

enum class TrajectoryFormat { automatic, dcd, xyz, lammps_dump };
// "auto" | "dcd" | "xyz" | "lammpstrj" (also "dump"); throws pairwise::Error.
TrajectoryFormat parse_trajectory_format(std::string_view text);

// Opens a trajectory; `automatic` chooses by extension (.dcd; .xyz; .lammpstrj, .dump, .lammps)
// and else by the first bytes. Throws pairwise::Error for an unreadable or malformed header.
std::unique_ptr<TrajectoryReader> open_trajectory(
    const std::filesystem::path& path, TrajectoryFormat format = TrajectoryFormat::automatic);

std::unique_ptr<TrajectoryReader> open_dcd(const std::filesystem::path& path);
std::unique_ptr<TrajectoryReader> open_xyz(const std::filesystem::path& path);
std::unique_ptr<TrajectoryReader> open_lammps_dump(const std::filesystem::path& path);

// Writes a DCD (CHARMM format, little- or big-endian, optional orthorhombic unit cell written as
// A, gamma, B, beta, alpha, C with angles in degrees), positions as float32, one frame at a time
// (the header declares `frames`). Used by the benchmark's trajectory generator and by tests, whose
// independent reference is MDAnalysis (tests/external/dcd_check.py).
struct DcdWriteOptions {
  bool big_endian = false;
  bool unit_cell = false;
};
class DcdWriter {
 public:
  DcdWriter(const std::filesystem::path& path, std::size_t atoms, long frames,
            DcdWriteOptions options = {});
  ~DcdWriter();
  DcdWriter(const DcdWriter&) = delete;
  DcdWriter& operator=(const DcdWriter&) = delete;
  void write(const TrajectoryFrame& frame);  // throws pairwise::Error on a size mismatch or I/O
  void close();                              // flushes; throws on a write error

 private:
  void put(const void* data, std::size_t bytes);
  void put_i32(int v);
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
  std::size_t atoms_;
  DcdWriteOptions options_;
  std::vector<char> buffer_;
};

}  // namespace pairwise::io
