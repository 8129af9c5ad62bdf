#include "potmap/run.hpp"

#include "potmap/custom_phi.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numbers>
#include <ostream>
#include <random>
#include <sstream>

#include "core/io/opendx.hpp"
#include "core/io/pdb.hpp"
#include "core/io/pqr.hpp"
#include "pairwise/error.hpp"

namespace pairwise::potmap {

namespace {

std::string lower_extension(const std::filesystem::path& p) {
  std::string e = p.extension().string();
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
    const auto s = config.section("output");
    const std::string file = s.string("file", "");
    if (file.empty()) s.fail("file", "give the map's file name: file = \"map.dx\" (or .npy)");
    c.output = config.base_directory() / file;
  }
  config.check_unused();
  return c;
}

int run_potmap(const PotmapConfig& c, std::ostream& log) {
  const std::string ext = lower_extension(c.output);
  if (c.output.empty()) throw Error("no output file", "output");
  if (ext != ".dx" && ext != ".npy") {
    throw Error("output file must end in .dx or .npy", c.output.string());
  }
  const Atoms atoms = load_atoms(c);
  const Lattice lattice = make_lattice(c, atoms);
  validate(atoms, lattice, c.map);
  std::string note;
  const BackendKind backend = resolve_backend(c.backend, &note);
  log << "potmap: " << note << "\n";
  log << "potmap: " << atoms.size() << " atoms from "
      << (c.input.empty() ? "a generated water box" : c.input.string()) << "\n";
  log << "potmap: lattice " << lattice.counts[0] << " x " << lattice.counts[1] << " x "
      << lattice.counts[2] << " points, spacing " << lattice.spacing << " A, origin ("
      << lattice.origin[0] << ", " << lattice.origin[1] << ", " << lattice.origin[2] << ")\n";
  const MapResult r = compute_map(backend, atoms, lattice, c.map);
  const std::string method =
      c.map.custom
          ? "sum of q phi(r), phi = " + c.map.custom->text() +
                (c.map.cutoff > 0 ? ", truncated at rc = " + std::to_string(c.map.cutoff) + " A"
                                  : "")
      : c.map.cutoff > 0
          ? "cutoff summation, rc = " + std::to_string(c.map.cutoff) + " A, s(r) = (1 - r^2/rc^2)^2"
          : std::string("direct summation");
  log << "potmap: " << method << ", exclusion " << c.map.exclusion << " A"
      << (c.map.kahan ? ", compensated sums" : "") << "\n";
  if (r.slabs > 1) log << "potmap: " << r.slab_note << "\n";
  log << "potmap: " << r.device << ", " << to_string(r.precision) << " precision, "
      << r.seconds * 1e3 << " ms\n";

  io::ScalarGrid grid;
  grid.origin = lattice.origin;
  grid.spacing = {lattice.spacing, lattice.spacing, lattice.spacing};
  grid.counts = lattice.counts;
  grid.values = r.values;
  const double f = unit_factor(c.units);
  const bool single = r.precision != Precision::double_;
  // FP32 maps are stored as FP32 values (also in the .dx, whose values read back bit for bit).
  for (double& v : grid.values) v = single ? double(float(v * f)) : v * f;
  grid.comments = {"pairwise potmap " PAIRWISE_VERSION ": " + describe_units(c.units),
                   "units: " + std::string(to_string(c.units)),
                   std::to_string(atoms.size()) + " atoms; " + method + "; exclusion radius " +
                       std::to_string(c.map.exclusion) + " A",
                   "backend " + std::string(to_string(r.backend)) + ", " +
                       std::string(to_string(r.precision)) + " precision" +
                       (c.map.kahan ? ", compensated sums" : "")};
  if (ext == ".npy") {
    io::write_npy(c.output, grid, single);
  } else {
    io::write_dx(c.output, grid);
  }
  log << "potmap: wrote " << c.output.string() << " (" << to_string(c.units) << ")\n";
  return 0;
}

}  // namespace pairwise::potmap
