// LAMMPS text dumps (trajectory.hpp), as `pairwise md` and LAMMPS's `dump custom` write them:
//   ITEM: TIMESTEP / step / ITEM: NUMBER OF ATOMS / N / ITEM: BOX BOUNDS pp pp pp / 3 x "lo hi"
//   ITEM: ATOMS id type x y z ...   then N lines
// Positions from x y z, xu yu zu (unwrapped) or xs ys zs (scaled: lo + s (hi - lo)); with an id
// column atom `id` is topology atom id - 1 (dumps of several ranks are unordered), else file
// order. The box is the periodic cell when all three boundaries are periodic (pp).
#include <algorithm>
#include <array>

#include "core/io/text_lines.hpp"
#include "core/io/text_numbers.hpp"
#include "core/io/trajectory.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

class DumpReader final : public TrajectoryReader {
 public:
  explicit DumpReader(const std::filesystem::path& path) : TrajectoryReader(path), lines_(path) {}

  bool next(TrajectoryFrame& f) override {
    std::string_view line;
    do {
      if (!lines_.next(line)) return false;
    } while (line.empty());
    const std::string frame = "frame " + std::to_string(frame_);
    auto fail = [&](const std::string& what) -> void {
      throw Error(frame + ": " + what, lines_.where());
    };
    auto need = [&](const char* what) {
      if (!lines_.next(line)) fail(std::string("truncated (the file ends before ") + what + ")");
    };
    if (line.rfind("ITEM: TIMESTEP", 0) != 0)
      fail("expected 'ITEM: TIMESTEP', got '" + std::string(line) + "'");
    need("the timestep");
    need("ITEM: NUMBER OF ATOMS");
    if (line.rfind("ITEM: NUMBER OF ATOMS", 0) != 0) fail("expected 'ITEM: NUMBER OF ATOMS'");
    need("the atom count");
    long n = 0;
    if (!parse_long(trim(line), n) || n <= 0) fail("bad atom count '" + std::string(line) + "'");
    if (atoms_ != 0 && std::size_t(n) != atoms_) {
      fail(std::to_string(n) + " atoms, but earlier frames have " + std::to_string(atoms_));
    }
    atoms_ = std::size_t(n);
    need("ITEM: BOX BOUNDS");
    if (line.rfind("ITEM: BOX BOUNDS", 0) != 0) fail("expected 'ITEM: BOX BOUNDS'");
    if (line.find("xy") != std::string_view::npos) fail("triclinic boxes are not supported");
    {
      const char* p = line.data() + 16;
      const char* end = line.data() + line.size();
      int periodic = 0;
      for (auto w = next_word(p, end); !w.empty(); w = next_word(p, end)) periodic += w == "pp";
      f.has_cell = periodic == 3;
    }
    std::array<double, 3> lo{}, hi{};
    for (int a = 0; a < 3; ++a) {
      need("the box bounds");
      const char* p = line.data();
      const char* end = p + line.size();
      lo[std::size_t(a)] = field_double(next_word(p, end), "box lo", frame + ", " + lines_.where());
      hi[std::size_t(a)] = field_double(next_word(p, end), "box hi", frame + ", " + lines_.where());
    }
    f.cell_origin = lo;
    for (int a = 0; a < 3; ++a)
      f.cell_length[std::size_t(a)] = hi[std::size_t(a)] - lo[std::size_t(a)];
    need("ITEM: ATOMS");
    if (line.rfind("ITEM: ATOMS", 0) != 0) fail("expected 'ITEM: ATOMS'");
    int id_col = -1, col[3] = {-1, -1, -1};
    bool scaled = false;
    {
      const char* p = line.data() + 11;
      const char* end = line.data() + line.size();
      int c = 0;
      for (auto w = next_word(p, end); !w.empty(); w = next_word(p, end), ++c) {
        if (w == "id") id_col = c;
        for (int a = 0; a < 3; ++a) {
          const char axis = char('x' + a);
          if (w.size() >= 1 && w[0] == axis &&
              (w.size() == 1 || w.substr(1) == "u" || w.substr(1) == "s")) {
            if (col[a] < 0 || w.size() == 1) col[a] = c;  // prefer wrapped x over xu
            if (w.size() == 2 && w[1] == 's') scaled = true;
          }
        }
      }
      columns_ = c;
    }
    if (col[0] < 0 || col[1] < 0 || col[2] < 0)
      fail("the ATOMS line has no x y z (or xu, xs) columns");
    f.x.assign(atoms_, 0.0), f.y.assign(atoms_, 0.0), f.z.assign(atoms_, 0.0);
    seen_.assign(atoms_, 0);
    std::string_view words[64];
    const int last = std::max({id_col, col[0], col[1], col[2]});
    if (last >= 64) fail("too many columns before x, y, z or id");
    for (std::size_t i = 0; i < atoms_; ++i) {
      if (!lines_.next(line)) {
        fail("truncated (" + std::to_string(i) + " of " + std::to_string(atoms_) +
             " atom lines before the end of the file)");
      }
      const char* p = line.data();
      const char* end = p + line.size();
      for (int c = 0; c <= last; ++c) {
        words[c] = next_word(p, end);
        if (words[c].empty())
          fail("atom line with fewer than " + std::to_string(columns_) + " columns");
      }
      std::size_t at = i;
      if (id_col >= 0) {
        long id = 0;
        if (!parse_long(words[id_col], id) || id < 1 || std::size_t(id) > atoms_) {
          fail("bad atom id '" + std::string(words[id_col]) + "' (expected 1 to " +
               std::to_string(atoms_) + ")");
        }
        at = std::size_t(id - 1);
        if (seen_[at]) fail("atom id " + std::to_string(id) + " appears twice");
        seen_[at] = 1;
      }
      const std::string where = frame + ", " + lines_.where();
      double v[3];
      for (int a = 0; a < 3; ++a) {
        v[a] = field_double(words[col[a]], "coordinate", where);
        if (scaled) v[a] = lo[std::size_t(a)] + v[a] * f.cell_length[std::size_t(a)];
      }
      f.x[at] = v[0], f.y[at] = v[1], f.z[at] = v[2];
    }
    f.index = frame_++;
    return true;
  }

  std::size_t atoms() const override { return atoms_; }
  std::string describe() const override { return "LAMMPS dump"; }

 private:
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
  }
  TextLines lines_;
  std::size_t atoms_ = 0;
  int columns_ = 0;
  long frame_ = 0;
  std::vector<char> seen_;
};

}  // namespace

std::unique_ptr<TrajectoryReader> open_lammps_dump(const std::filesystem::path& path) {
  return std::make_unique<DumpReader>(path);
}

}  // namespace pairwise::io
