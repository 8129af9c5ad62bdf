#include "core/io/trajectory.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "pairwise/error.hpp"

namespace pairwise::io {

bool TrajectoryReader::skip() {
  return next(scratch_);
}

TrajectoryFormat parse_trajectory_format(std::string_view text) {
  if (text == "auto") return TrajectoryFormat::automatic;
  if (text == "dcd") return TrajectoryFormat::dcd;
  if (text == "xyz") return TrajectoryFormat::xyz;
  if (text == "lammpstrj" || text == "dump") return TrajectoryFormat::lammps_dump;
  throw Error("unknown trajectory format '" + std::string(text) +
              "' (expected auto, dcd, xyz or lammpstrj)");
}

std::unique_ptr<TrajectoryReader> open_trajectory(const std::filesystem::path& path,
                                                  TrajectoryFormat format) {
  if (format == TrajectoryFormat::automatic) {
    std::string e = path.extension().string();
    std::transform(e.begin(), e.end(), e.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    if (e == ".dcd") {
      format = TrajectoryFormat::dcd;
    } else if (e == ".xyz") {
      format = TrajectoryFormat::xyz;
    } else if (e == ".lammpstrj" || e == ".dump" || e == ".lammps") {
      format = TrajectoryFormat::lammps_dump;
    } else {  // by content: DCD starts with the marker 84, a dump with "ITEM:", XYZ with a count
      std::FILE* f = std::fopen(path.c_str(), "rb");
      if (!f) return open_xyz(path);  // reports the open error
      unsigned char head[8] = {};
      const std::size_t n = std::fread(head, 1, sizeof head, f);
      std::fclose(f);
      const bool dcd =
          n >= 8 && ((head[0] == 84 && head[3] == 0) || (head[3] == 84 && head[0] == 0));
      format = dcd ? TrajectoryFormat::dcd
               : (n >= 5 && std::string_view(reinterpret_cast<char*>(head), 5) == "ITEM:")
                   ? TrajectoryFormat::lammps_dump
                   : TrajectoryFormat::xyz;
    }
  }
  switch (format) {
    case TrajectoryFormat::dcd:
      return open_dcd(path);
    case TrajectoryFormat::lammps_dump:
      return open_lammps_dump(path);
    case TrajectoryFormat::xyz:
    case TrajectoryFormat::automatic:
      break;
  }
  return open_xyz(path);
}

}  // namespace pairwise::io
