// XYZ trajectories (trajectory.hpp): frames of
//   N
//   comment            (extended XYZ: Lattice="ax ay az bx by bz cx cy cz" gives the cell)
//   name x y z [...]   N lines
// as `pairwise md` writes them and VMD, OVITO, ASE and MDAnalysis read them.
#include "core/io/text_lines.hpp"
#include "core/io/text_numbers.hpp"
#include "core/io/trajectory.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

class XyzReader final : public TrajectoryReader {
 public:
  explicit XyzReader(const std::filesystem::path& path) : TrajectoryReader(path), lines_(path) {}

  bool next(TrajectoryFrame& f) override {
    std::string_view line;
    do {  // blank lines between frames are tolerated
      if (!lines_.next(line)) return false;
    } while (skip_blanks(line.data(), line.data() + line.size()) == line.data() + line.size());
    const std::string frame = "frame " + std::to_string(frame_);
    const char* p = line.data();
    long n = 0;
    if (!parse_long(next_word(p, line.data() + line.size()), n) || n <= 0) {
      throw Error(frame + ": bad atom count line '" + std::string(line) + "'", lines_.where());
    }
    if (atoms_ != 0 && std::size_t(n) != atoms_) {
      throw Error(frame + ": " + std::to_string(n) + " atoms, but earlier frames have " +
                      std::to_string(atoms_),
                  lines_.where());
    }
    atoms_ = std::size_t(n);
    if (!lines_.next(line)) throw Error(frame + ": truncated (no comment line)", lines_.where());
    f.has_cell = false;
    if (const auto at = line.find("Lattice=\""); at != std::string_view::npos)
      read_lattice(line.substr(at + 9), f, frame);
    f.x.resize(atoms_), f.y.resize(atoms_), f.z.resize(atoms_);
    for (std::size_t i = 0; i < atoms_; ++i) {
      if (!lines_.next(line)) {
        throw Error(frame + ": truncated (" + std::to_string(i) + " of " + std::to_string(atoms_) +
                        " atom lines before the end of the file)",
                    lines_.where());
      }
      const char* q = line.data();
      const char* end = q + line.size();
      next_word(q, end);  // element or name
      const std::string where = lines_.where();
      f.x[i] = field_double(next_word(q, end), "x", frame + ", " + where);
      f.y[i] = field_double(next_word(q, end), "y", frame + ", " + where);
      f.z[i] = field_double(next_word(q, end), "z", frame + ", " + where);
    }
    f.index = frame_++;
    return true;
  }

  std::size_t atoms() const override { return atoms_; }
  std::string describe() const override { return "XYZ"; }

 private:
  void read_lattice(std::string_view text, TrajectoryFrame& f, const std::string& frame) {
    const auto close = text.find('"');
    text = text.substr(0, close);
    const char* p = text.data();
    const char* end = p + text.size();
    double m[9];
    for (double& v : m)
      v = field_double(next_word(p, end), "Lattice", frame + ", " + lines_.where());
    if (m[1] != 0 || m[2] != 0 || m[3] != 0 || m[5] != 0 || m[6] != 0 || m[7] != 0) {
      throw Error(frame + ": non-orthogonal Lattice (only orthorhombic cells are supported)",
                  lines_.where());
    }
    f.has_cell = true;
    f.cell_origin = {0, 0, 0};
    f.cell_length = {m[0], m[4], m[8]};
  }

  TextLines lines_;
  std::size_t atoms_ = 0;
  long frame_ = 0;
};

}  // namespace

std::unique_ptr<TrajectoryReader> open_xyz(const std::filesystem::path& path) {
  return std::make_unique<XyzReader>(path);
}

}  // namespace pairwise::io
