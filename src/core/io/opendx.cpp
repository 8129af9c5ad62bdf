#include "core/io/opendx.hpp"

#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/io/atomic_file.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

void check_grid(const ScalarGrid& grid, const std::filesystem::path& path) {
  if (grid.values.size() != grid.size() || grid.size() == 0) {
    throw Error("grid of " + std::to_string(grid.values.size()) + " values for counts " +
                    std::to_string(grid.counts[0]) + " x " + std::to_string(grid.counts[1]) +
                    " x " + std::to_string(grid.counts[2]),
                path.string());
  }
}

// Shortest text that reads back as the same double.
std::string exact(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

void write_dx(const std::filesystem::path& path, const ScalarGrid& grid, int digits) {
  check_grid(grid, path);
  write_file_atomically(path, [&](std::ostream& out) {
    for (const auto& c : grid.comments) out << "# " << c << "\n";
    const auto& n = grid.counts;
    out << "object 1 class gridpositions counts " << n[0] << " " << n[1] << " " << n[2] << "\n";
    out << "origin " << exact(grid.origin[0]) << " " << exact(grid.origin[1]) << " "
        << exact(grid.origin[2]) << "\n";
    out << "delta " << exact(grid.spacing[0]) << " 0 0\n";
    out << "delta 0 " << exact(grid.spacing[1]) << " 0\n";
    out << "delta 0 0 " << exact(grid.spacing[2]) << "\n";
    out << "object 2 class gridconnections counts " << n[0] << " " << n[1] << " " << n[2] << "\n";
    out << "object 3 class array type double rank 0 items " << grid.size() << " data follows\n";
    // Three values a line, buffered: millions of values.
    std::string buf;
    buf.reserve(1 << 20);
    char num[64];
    const std::size_t total = grid.values.size();
    for (std::size_t i = 0; i < total; ++i) {
      const auto r = digits > 0 ? std::to_chars(num, num + sizeof num, grid.values[i],
                                                std::chars_format::scientific, digits - 1)
                                : std::to_chars(num, num + sizeof num, grid.values[i]);
      buf.append(num, r.ptr);
      buf.push_back((i % 3 == 2 || i + 1 == total) ? '\n' : ' ');
      if (buf.size() > (1 << 20) - 128) {
        out.write(buf.data(), std::streamsize(buf.size()));
        buf.clear();
      }
    }
    out.write(buf.data(), std::streamsize(buf.size()));
    out << "attribute \"dep\" string \"positions\"\n";
    out << "object \"regular positions regular connections\" class field\n";
    out << "component \"positions\" value 1\n";
    out << "component \"connections\" value 2\n";
    out << "component \"data\" value 3\n";
  });
}

ScalarGrid read_dx(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open OpenDX file: " + std::string(std::strerror(errno)), path.string());
  ScalarGrid g;
  std::string line;
  long line_no = 0;
  int deltas = 0;
  bool have_counts = false, have_origin = false;
  std::size_t items = 0;
  auto where = [&] { return path.string() + ":" + std::to_string(line_no); };
  auto fail = [&](const std::string& what) -> void { throw Error(what, where()); };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') {
      if (!line.empty()) g.comments.push_back(line.size() > 2 ? line.substr(2) : "");
      continue;
    }
    std::istringstream s(line);
    std::string word;
    s >> word;
    if (word == "object") {
      std::string id, cls, kind;
      s >> id >> cls >> kind;
      if (kind == "gridpositions") {
        std::string counts;
        s >> counts >> g.counts[0] >> g.counts[1] >> g.counts[2];
        if (!s || counts != "counts") fail("bad gridpositions line (expected 'counts nx ny nz')");
        have_counts = true;
      } else if (kind == "array") {
        // "type double rank 0 items N data follows"
        std::string w;
        while (s >> w) {
          if (w == "items") s >> items;
          if (w == "follows") break;
        }
        if (!have_counts || !have_origin || deltas != 3) {
          fail("data before the grid's counts, origin and deltas");
        }
        if (items != g.size()) {
          fail("items " + std::to_string(items) + " differs from counts (" +
               std::to_string(g.size()) + " points)");
        }
        g.values.resize(items);
        std::size_t got = 0;
        while (got < items && std::getline(in, line)) {
          ++line_no;
          const char* p = line.c_str();
          const char* end = p + line.size();
          while (p < end) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
            if (p >= end) break;
            if (got == items) fail("more values than items");
            double v = 0;
            const auto r = std::from_chars(p, end, v);
            if (r.ec != std::errc()) fail("bad value '" + std::string(p, end) + "'");
            g.values[got++] = v;
            p = r.ptr;
          }
        }
        if (got != items) {
          fail("file ends after " + std::to_string(got) + " of " + std::to_string(items) +
               " values");
        }
      }
    } else if (word == "origin") {
      s >> g.origin[0] >> g.origin[1] >> g.origin[2];
      if (!s) fail("bad origin line");
      have_origin = true;
    } else if (word == "delta") {
      double d[3];
      s >> d[0] >> d[1] >> d[2];
      if (!s || deltas >= 3) fail("bad delta line");
      for (int a = 0; a < 3; ++a) {
        if (a != deltas && d[a] != 0) fail("non-orthogonal delta (only axis-aligned grids)");
      }
      g.spacing[deltas] = d[deltas];
      ++deltas;
    }
  }
  if (g.values.empty()) throw Error("no data array found", path.string());
  return g;
}

void write_npy(const std::filesystem::path& path, const ScalarGrid& grid, bool single) {
  check_grid(grid, path);
  static_assert(std::endian::native == std::endian::little,
                "the .npy writer assumes little-endian");
  std::string header = std::string("{'descr': '") + (single ? "<f4" : "<f8") +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(grid.counts[0]) +
                       ", " + std::to_string(grid.counts[1]) + ", " +
                       std::to_string(grid.counts[2]) + "), }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, '\n'.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  write_file_atomically(path, [&](std::ostream& out) {
    out.write("\x93NUMPY\x01\x00", 8);
    const std::uint16_t len = std::uint16_t(header.size());
    const char len_bytes[2] = {char(len & 0xff), char(len >> 8)};
    out.write(len_bytes, 2);
    out.write(header.data(), std::streamsize(header.size()));
    if (single) {
      std::vector<float> f(grid.values.begin(), grid.values.end());
      out.write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size() * sizeof(float)));
    } else {
      out.write(reinterpret_cast<const char*>(grid.values.data()),
                std::streamsize(grid.values.size() * sizeof(double)));
    }
  });
}

}  // namespace pairwise::io
