#include "core/io/lammps_data.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "core/io/atomic_file.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {
namespace {

std::string read_text(const std::filesystem::path& file) {
  const std::string name = file.string();
  if (!std::filesystem::exists(file)) throw Error("cannot open data file", name);
  std::string text;
  if (file.extension() == ".gz") {
    std::string command = "gzip -dc '";
    for (char c : name) command += c == '\'' ? std::string("'\\''") : std::string(1, c);
    command += "'";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw Error("cannot run gzip -dc", name);
    char buffer[1 << 16];
    std::size_t got;
    while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, got);
    if (pclose(pipe) != 0) throw Error("gzip -dc failed (not a gzip file?)", name);
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error("cannot open data file", name);
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  return text;
}

std::string strip(std::string line) {
  if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  const auto b = line.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const auto e = line.find_last_not_of(" \t\r");
  return line.substr(b, e - b + 1);
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  for (std::string t; in >> t;) w.push_back(t);
  return w;
}

bool parse_double(const std::string& s, double& v) {
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && !s.empty();
}
bool parse_long(const std::string& s, long long& v) {
  char* end = nullptr;
  v = std::strtoll(s.c_str(), &end, 10);
  return end && *end == '\0' && !s.empty();
}

}  // namespace

LammpsData read_lammps_data(const std::filesystem::path& file) {
  return parse_lammps_data(read_text(file), file.string());
}

LammpsData parse_lammps_data(const std::string& text, const std::string& source) {
  LammpsData d;
  std::vector<std::string> lines;
  {
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  auto where = [&](std::size_t k, const std::string& section) {
    return source + ":" + std::to_string(k + 1) + (section.empty() ? "" : " (" + section + ")");
  };
  if (lines.empty()) throw Error("empty data file", source);
  d.title = lines[0];
  long long n_atoms = -1;
  bool have_box[3] = {false, false, false};
  std::size_t k = 1;
  // Header: until the first section keyword.
  const std::map<std::string, int> sections = {
      {"Masses", 0}, {"Pair Coeffs", 1}, {"PairIJ Coeffs", 2}, {"Atoms", 3}, {"Velocities", 4}};
  auto section_of = [&](const std::string& s) -> int {
    auto it = sections.find(s);
    return it == sections.end() ? -1 : it->second;
  };
  for (; k < lines.size(); ++k) {
    const std::string s = strip(lines[k]);
    if (s.empty()) continue;
    if (section_of(s) >= 0) break;
    const auto w = words(s);
    long long v;
    double a, b;
    if (w.size() == 2 && w[1] == "atoms" && parse_long(w[0], v) && v >= 0) {
      n_atoms = v;
    } else if (w.size() == 3 && w[1] == "atom" && w[2] == "types" && parse_long(w[0], v) &&
               v >= 1 && v < 100000) {
      d.atom_types = int(v);
    } else if (w.size() == 4 && (w[2] == "xlo" || w[2] == "ylo" || w[2] == "zlo") &&
               w[3] == std::string(1, w[2][0]) + "hi" && parse_double(w[0], a) &&
               parse_double(w[1], b)) {
      const int dim = w[2][0] - 'x';
      if (!(b > a)) throw Error("box " + w[2] + " >= " + w[3], where(k, "header"));
      d.lo[dim] = a, d.hi[dim] = b, have_box[dim] = true;
    } else if (w.size() == 6 && w[3] == "xy" && w[4] == "xz" && w[5] == "yz") {
      throw Error("triclinic boxes are not supported (orthogonal boxes only)", where(k, "header"));
    } else if (w.size() >= 2 &&
               (w[1] == "bonds" || w[1] == "angles" || w[1] == "dihedrals" ||
                w[1] == "impropers") &&
               parse_long(w[0], v)) {
      if (v != 0)
        throw Error("molecular topology is not supported (atom_style atomic)", where(k, "header"));
    } else if (w.size() >= 3 && w[2] == "types" && parse_long(w[0], v)) {
      // bond/angle/... types: allowed only when zero (checked with the counts above)
    } else {
      throw Error("unrecognized header line '" + s + "'", where(k, "header"));
    }
  }
  if (n_atoms < 0) throw Error("missing 'N atoms' in the header", source);
  // Each atom takes a line of the Atoms section: a larger count is wrong (and must not allocate).
  if (std::size_t(n_atoms) > lines.size())
    throw Error("the header says " + std::to_string(n_atoms) + " atoms, the file has only " +
                    std::to_string(lines.size()) + " lines",
                source);
  if (d.atom_types < 1) throw Error("missing 'T atom types' in the header", source);
  for (int dim = 0; dim < 3; ++dim)
    if (!have_box[dim])
      throw Error(std::string("missing '") + char('x' + dim) + "lo " + char('x' + dim) +
                      "hi' in the header",
                  source);
  d.masses.assign(std::size_t(d.atom_types), 0.0);
  const std::size_t n = std::size_t(n_atoms);
  d.id.resize(n), d.type.resize(n), d.x.resize(n), d.y.resize(n), d.z.resize(n);
  d.vx.assign(n, 0), d.vy.assign(n, 0), d.vz.assign(n, 0);
  d.ix.assign(n, 0), d.iy.assign(n, 0), d.iz.assign(n, 0);
  std::map<long long, std::size_t> index_of;
  bool have_atoms = false;
  auto read_type = [&](const std::string& s, std::size_t line, const std::string& sec) {
    long long t;
    if (!parse_long(s, t)) throw Error("bad atom type '" + s + "'", where(line, sec));
    if (t < 1 || t > d.atom_types)
      throw Error(
          "unknown atom type " + s + " (the header declares " + std::to_string(d.atom_types) + ")",
          where(line, sec));
    return int(t);
  };

  while (k < lines.size()) {
    const std::string name = strip(lines[k]);
    if (name.empty()) {
      ++k;
      continue;
    }
    const int sec = section_of(name);
    if (sec < 0) throw Error("unknown section '" + name + "'", where(k, ""));
    ++k;
    const std::size_t expected = sec == 0 || sec == 1 ? std::size_t(d.atom_types)
                                 : sec == 2 ? std::size_t(d.atom_types) * (d.atom_types + 1) / 2
                                            : n;
    std::size_t got = 0;
    while (got < expected) {
      if (k >= lines.size())
        throw Error("section ends after " + std::to_string(got) + " of " +
                        std::to_string(expected) + " lines",
                    source + " (" + name + ")");
      const std::string s = strip(lines[k]);
      if (s.empty()) {
        ++k;
        continue;
      }
      const auto w = words(s);
      double v[6];
      auto numbers = [&](std::size_t from, std::size_t count) {
        for (std::size_t q = 0; q < count; ++q)
          if (!parse_double(w[from + q], v[q]) || !std::isfinite(v[q]))
            throw Error("bad number '" + w[from + q] + "'", where(k, name));
      };
      switch (sec) {
        case 0: {  // Masses: type mass
          if (w.size() != 2) throw Error("expected 'type mass'", where(k, name));
          const int t = read_type(w[0], k, name);
          numbers(1, 1);
          if (!(v[0] > 0)) throw Error("mass must be > 0", where(k, name));
          d.masses[std::size_t(t - 1)] = v[0];
          break;
        }
        case 1: {  // Pair Coeffs: type eps sigma [cutoff]
          if (w.size() != 3 && w.size() != 4)
            throw Error("expected 'type epsilon sigma [cutoff]'", where(k, name));
          const int t = read_type(w[0], k, name);
          numbers(1, w.size() - 1);
          d.pair_coeffs.push_back({t, t, v[0], v[1], w.size() == 4 ? v[2] : 0.0});
          break;
        }
        case 2: {  // PairIJ Coeffs: i j eps sigma [cutoff]
          if (w.size() != 4 && w.size() != 5)
            throw Error("expected 'i j epsilon sigma [cutoff]'", where(k, name));
          const int i = read_type(w[0], k, name), j = read_type(w[1], k, name);
          numbers(2, w.size() - 2);
          d.pair_coeffs.push_back({i, j, v[0], v[1], w.size() == 5 ? v[2] : 0.0});
          break;
        }
        case 3: {  // Atoms: id type x y z [ix iy iz]
          if (w.size() != 5 && w.size() != 8)
            throw Error("expected 'id type x y z [ix iy iz]' (atom_style atomic), got " +
                            std::to_string(w.size()) + " fields",
                        where(k, name));
          long long id;
          if (!parse_long(w[0], id) || id < 1 || id > 0xffffffffLL)
            throw Error("bad atom id '" + w[0] + "'", where(k, name));
          if (!index_of.emplace(id, got).second)
            throw Error("duplicate atom id " + w[0], where(k, name));
          d.id[got] = std::uint32_t(id);
          d.type[got] = read_type(w[1], k, name);
          numbers(2, 3);
          d.x[got] = v[0], d.y[got] = v[1], d.z[got] = v[2];
          if (w.size() == 8) {
            long long im[3];
            for (int q = 0; q < 3; ++q)
              if (!parse_long(w[5 + q], im[q]))
                throw Error("bad image flag '" + w[5 + q] + "'", where(k, name));
            d.ix[got] = int(im[0]), d.iy[got] = int(im[1]), d.iz[got] = int(im[2]);
          }
          have_atoms = true;
          break;
        }
        case 4: {  // Velocities: id vx vy vz
          if (!have_atoms) throw Error("Velocities before Atoms", where(k, name));
          if (w.size() != 4) throw Error("expected 'id vx vy vz'", where(k, name));
          long long id;
          if (!parse_long(w[0], id)) throw Error("bad atom id '" + w[0] + "'", where(k, name));
          const auto it = index_of.find(id);
          if (it == index_of.end())
            throw Error("velocity for unknown atom id " + w[0], where(k, name));
          numbers(1, 3);
          d.vx[it->second] = v[0], d.vy[it->second] = v[1], d.vz[it->second] = v[2];
          break;
        }
      }
      ++got;
      ++k;
    }
  }
  if (n > 0 && !have_atoms) throw Error("missing Atoms section", source);
  return d;
}

void write_lammps_data(std::ostream& out, const LammpsData& d) {
  char line[512];
  out << (d.title.empty() ? "LAMMPS data file written by pairwise" : d.title) << "\n\n";
  out << d.id.size() << " atoms\n" << d.atom_types << " atom types\n\n";
  const char* names[3] = {"xlo xhi", "ylo yhi", "zlo zhi"};
  for (int k = 0; k < 3; ++k) {
    std::snprintf(line, sizeof line, "%.17g %.17g %s\n", d.lo[k], d.hi[k], names[k]);
    out << line;
  }
  out << "\nMasses\n\n";
  for (int t = 0; t < d.atom_types; ++t) {
    std::snprintf(line, sizeof line, "%d %.17g\n", t + 1, d.masses[std::size_t(t)]);
    out << line;
  }
  bool ij = false;
  for (const auto& c : d.pair_coeffs) ij = ij || c.i != c.j;
  if (!d.pair_coeffs.empty()) {
    out << (ij ? "\nPairIJ Coeffs # lj/cut\n\n" : "\nPair Coeffs # lj/cut\n\n");
    for (const auto& c : d.pair_coeffs) {
      if (ij)
        std::snprintf(line, sizeof line, "%d %d %.17g %.17g", c.i, c.j, c.epsilon, c.sigma);
      else
        std::snprintf(line, sizeof line, "%d %.17g %.17g", c.i, c.epsilon, c.sigma);
      out << line;
      if (c.cutoff > 0) {
        std::snprintf(line, sizeof line, " %.17g", c.cutoff);
        out << line;
      }
      out << "\n";
    }
  }
  out << "\nAtoms # atomic\n\n";
  for (std::size_t i = 0; i < d.id.size(); ++i) {
    std::snprintf(line, sizeof line, "%u %d %.17g %.17g %.17g %d %d %d\n", d.id[i], d.type[i],
                  d.x[i], d.y[i], d.z[i], d.ix[i], d.iy[i], d.iz[i]);
    out << line;
  }
  out << "\nVelocities\n\n";
  for (std::size_t i = 0; i < d.id.size(); ++i) {
    std::snprintf(line, sizeof line, "%u %.17g %.17g %.17g\n", d.id[i], d.vx[i], d.vy[i], d.vz[i]);
    out << line;
  }
}

void write_lammps_data(const std::filesystem::path& file, const LammpsData& d) {
  write_file_atomically(file, [&](std::ostream& out) { write_lammps_data(out, d); });
}

void write_lammps_dump_frame(std::ostream& out, std::int64_t step, const LammpsData& d) {
  char line[512];
  out << "ITEM: TIMESTEP\n"
      << step << "\nITEM: NUMBER OF ATOMS\n"
      << d.id.size() << "\nITEM: BOX BOUNDS pp pp pp\n";
  for (int k = 0; k < 3; ++k) {
    std::snprintf(line, sizeof line, "%.17g %.17g\n", d.lo[k], d.hi[k]);
    out << line;
  }
  out << "ITEM: ATOMS id type x y z vx vy vz\n";
  for (std::size_t i = 0; i < d.id.size(); ++i) {
    std::snprintf(line, sizeof line, "%u %d %.9g %.9g %.9g %.9g %.9g %.9g\n", d.id[i], d.type[i],
                  d.x[i], d.y[i], d.z[i], d.vx[i], d.vy[i], d.vz[i]);
    out << line;
  }
}

void write_xyz_frame(std::ostream& out, std::int64_t step, const LammpsData& d) {
  char line[256];
  out << d.id.size() << "\n";
  std::snprintf(line, sizeof line,
                "step %lld Lattice=\"%.9g 0 0 0 %.9g 0 0 0 %.9g\" Origin=\"%.9g %.9g %.9g\"\n",
                static_cast<long long>(step), d.hi[0] - d.lo[0], d.hi[1] - d.lo[1],
                d.hi[2] - d.lo[2], d.lo[0], d.lo[1], d.lo[2]);
  out << line;
  for (std::size_t i = 0; i < d.id.size(); ++i) {
    std::snprintf(line, sizeof line, "%d %.9g %.9g %.9g\n", d.type[i], d.x[i], d.y[i], d.z[i]);
    out << line;
  }
}

}  // namespace pairwise::io
