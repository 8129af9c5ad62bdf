// The potmap config (run_config.hpp): atoms from PQR, PDB + charges, x y z q tables or a generated
// water box; the lattice; the TOML keys of `pairwise run` (docs/potmap.md).
#include "potmap/run_config.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>

#include "core/io/pdb.hpp"
#include "core/io/pqr.hpp"
#include "pairwise/error.hpp"
#include "potmap/custom_phi.hpp"

namespace pairwise::potmap {

namespace {

// The extension that names the format: "x.pqr.gz" is a (gzip-compressed) PQR.
std::string lower_extension(const std::filesystem::path& p) {
  std::string e = p.extension() == ".gz" ? p.stem().extension().string() : p.extension().string();
  for (auto& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

Atoms from_records(const std::vector<io::AtomRecord>& records) {
  Atoms a;
  for (const auto& r : records) a.push_back(r.x, r.y, r.z, r.charge);
  return a;
}

}  // namespace

InputFormat parse_input_format(std::string_view text) {
  if (text == "auto") return InputFormat::automatic;
  if (text == "pqr") return InputFormat::pqr;
  if (text == "pdb") return InputFormat::pdb;
  if (text == "xyzq") return InputFormat::xyzq;
  throw Error("unknown input format '" + std::string(text) + "' (expected auto, pqr, pdb or xyzq)");
}

Atoms read_xyzq(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open atom table: " + std::string(std::strerror(errno)), path.string());
  Atoms atoms;
  std::string line;
  long line_no = 0;
  const char* names[4] = {"x", "y", "z", "q"};
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> f;
    for (std::string w; words >> w;) f.push_back(w);
    if (f.empty()) continue;
    const std::string where = path.string() + ":" + std::to_string(line_no);
    if (f.size() != 4) {
      throw Error("atom line with " + std::to_string(f.size()) + " fields (expected 'x y z q')",
                  where);
    }
    double v[4];
    for (int c = 0; c < 4; ++c)
      v[c] = io::parse_field_double(f[std::size_t(c)], names[c], where + ":" + names[c]);
    atoms.push_back(v[0], v[1], v[2], v[3]);
  }
  return atoms;
}

Atoms water_box(double edge, std::uint64_t seed) {
  if (!(edge > 0)) throw Error("water box edge must be > 0", "water_box");
  const double a = std::cbrt(1.0 / 0.0334);  // Å per molecule
  const long n = std::max(1L, std::lround(edge / a));
  const double step = edge / double(n);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double r_oh = 0.9572, half = 104.52 / 2 * std::numbers::pi / 180;
  Atoms atoms;
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < n; ++j) {
      for (long k = 0; k < n; ++k) {
        const double o[3] = {(double(i) + 0.5) * step + 0.3 * u(rng),
                             (double(j) + 0.5) * step + 0.3 * u(rng),
                             (double(k) + 0.5) * step + 0.3 * u(rng)};
        // A random orthonormal pair (e1, e2): the H atoms at ±half from e1 in the (e1, e2) plane.
        double e1[3], e2[3], len;
        do {
          for (double& c : e1) c = u(rng);
          len = std::sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
        } while (len < 0.1 || len > 1);
        for (double& c : e1) c /= len;
        do {
          for (double& c : e2) c = u(rng);
          const double d = e2[0] * e1[0] + e2[1] * e1[1] + e2[2] * e1[2];
          for (int c = 0; c < 3; ++c) e2[c] -= d * e1[c];
          len = std::sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
        } while (len < 0.1);
        for (double& c : e2) c /= len;
        atoms.push_back(o[0], o[1], o[2], -0.834);
        for (const double s : {1.0, -1.0}) {
          double h[3];
          for (int c = 0; c < 3; ++c)
            h[c] = o[c] + r_oh * (std::cos(half) * e1[c] + s * std::sin(half) * e2[c]);
          atoms.push_back(h[0], h[1], h[2], 0.417);
        }
      }
    }
  }
  return atoms;
}

Atoms load_atoms(const PotmapConfig& c) {
  if (c.input.empty()) {
    if (c.water_box > 0) return water_box(c.water_box, c.seed);
    throw Error("no input: give an atom file (PQR, PDB or x y z q) or a water box edge", "input");
  }
  InputFormat f = c.format;
  if (f == InputFormat::automatic) {
    const std::string e = lower_extension(c.input);
    f = e == ".pqr"                    ? InputFormat::pqr
        : (e == ".pdb" || e == ".ent") ? InputFormat::pdb
                                       : InputFormat::xyzq;
  }
  Atoms atoms;
  switch (f) {
    case InputFormat::pqr:
      atoms = from_records(io::read_pqr(c.input));
      break;
    case InputFormat::pdb: {
      if (c.charges.empty()) {
        throw Error("a PDB input needs a charge table (--charges / [input] charges)",
                    c.input.string());
      }
      auto records = io::read_pdb(c.input);
      io::assign_charges(records, io::read_charge_table(c.charges), c.input.string());
      atoms = from_records(records);
      break;
    }
    case InputFormat::xyzq:
    case InputFormat::automatic:
      atoms = read_xyzq(c.input);
      break;
  }
  if (atoms.size() == 0) throw Error("no atoms in the input", c.input.string());
  return atoms;
}

Lattice make_lattice(const PotmapConfig& c, const Atoms& atoms) {
  if (!c.explicit_lattice) return lattice_around(atoms, c.spacing, c.padding);
  Lattice l;
  l.origin = c.origin;
  l.counts = c.counts;
  l.spacing = c.spacing;
  return l;
}

PotmapConfig read_potmap_config(config::Config& config) {
  PotmapConfig c;
  config.root().string("workload", "potmap");
  {
    const auto s = config.section("input");
    const std::string file = s.string("file", "");
    if (!file.empty()) c.input = config.base_directory() / file;
    c.format = s.choice("format", "auto", parse_input_format);
    const std::string charges = s.string("charges", "");
    if (!charges.empty()) c.charges = config.base_directory() / charges;
    c.water_box = s.number("water_box", 0.0, config::Range::non_negative());
    c.seed = std::uint64_t(s.integer("seed", 1, 0, INT64_MAX));
    if (file.empty() && c.water_box <= 0) {
      s.fail("file", "give file = \"atoms.pqr\" or water_box = <edge in Å>");
    }
    if (!file.empty() && s.has("water_box")) s.fail("water_box", "is not used with file");
  }
  {
    const auto s = config.section("lattice");
    c.spacing = s.number("spacing", c.spacing, config::Range::positive());
    c.padding = s.number("padding", c.padding, config::Range::non_negative());
    const char* o[3] = {"origin_x", "origin_y", "origin_z"};
    const char* n[3] = {"nx", "ny", "nz"};
    int given = 0;
    for (int a = 0; a < 3; ++a) given += s.has(o[a]) + s.has(n[a]);
    if (given != 0 && given != 6) {
      s.fail(s.has("nx") || s.has("origin_x") ? "origin_x" : "nx",
             "an explicit lattice needs all of origin_x, origin_y, origin_z, nx, ny, nz");
    }
    c.explicit_lattice = given == 6;
    for (int a = 0; a < 3; ++a) {
      c.origin[std::size_t(a)] = s.number(o[a], 0.0);
      c.counts[std::size_t(a)] = std::size_t(s.integer(n[a], 1, 1, std::int64_t(1) << 30));
    }
    if (c.explicit_lattice && s.has("padding"))
      s.fail("padding", "is not used with origin and counts");
  }
  {
    const auto s = config.section("map");
    c.map.cutoff = s.number("cutoff", 0.0, config::Range::non_negative());
    c.map.exclusion = s.number("exclusion", 0.0, config::Range::non_negative());
    c.map.kahan = s.boolean("kahan", false);
    c.map.bin_size = s.number("bin_size", 0.0, config::Range::non_negative());
    if (s.has("phi"))  // a custom φ(r) (potmap/custom_phi.hpp)
      c.map.custom = std::make_shared<const CustomPhi>(s.string("phi", ""), c.map.cutoff,
                                                       "[map] phi", s.where("phi"));
    c.units = s.choice("units", "kT/e", parse_units);
    if (c.map.cutoff > 0 && c.map.cutoff < c.spacing) {
      s.fail("cutoff", "cutoff is smaller than the lattice spacing");
    }
  }
  {
    const auto s = config.section("run");
    c.backend = s.choice("backend", "auto", parse_backend);
    c.map.precision = s.choice("precision", "single", parse_precision);
    c.map.slabs = s.boolean("slabs", true);
    c.map.device_memory_limit =
        std::size_t(s.number("device_memory_mib", 0.0, config::Range::non_negative()) * 1048576.0);
  }
  {
    const auto s = config.section("trajectory");
    const std::string file = s.string("file", "");
    if (!file.empty()) {
      c.trajectory = config.base_directory() / file;
      c.trajectory_format = s.choice("format", "auto", io::parse_trajectory_format);
      const std::string frames = s.string("frames", "");
      if (!frames.empty()) parse_frame_range(frames, c);
      c.combine = s.choice("combine", "avg", parse_combine);
      c.periodic = s.boolean("periodic", true);
    }
  }
  {
    const auto s = config.section("output");
    const std::string file = s.string("file", "");
    if (file.empty()) s.fail("file", "give the map's file name: file = \"map.dx\" (or .npy)");
    c.output = config.base_directory() / file;
  }
  config.check_unused();
  return c;
}

void parse_frame_range(std::string_view text, PotmapConfig& c) {
  const std::string t(text);
  const auto bad = [&] {
    throw Error("bad frame range '" + t + "' (expected first:last:stride, e.g. 0:999:10)",
                "--frames");
  };
  std::vector<std::string> parts(1);
  for (const char ch : t) {
    if (ch == ':') {
      parts.emplace_back();
    } else {
      parts.back().push_back(ch);
    }
  }
  if (parts.size() > 3) bad();
  long v[3] = {0, -1, 1};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].empty()) continue;
    char* end = nullptr;
    v[i] = std::strtol(parts[i].c_str(), &end, 10);
    if (*end != '\0') bad();
  }
  if (v[0] < 0 || (v[1] >= 0 && v[1] < v[0]) || v[1] < -1 || v[2] < 1) bad();
  c.first_frame = v[0], c.last_frame = v[1], c.frame_stride = v[2];
}

}  // namespace pairwise::potmap
