// pairwise::potmap (include/pairwise/potmap.hpp) over src/potmap/: loaders, lattice, compute_map
// and the OpenDX/.npy writers of src/core/io/.
#include "pairwise/potmap.hpp"

#include "api/arguments.hpp"
#include "core/config.hpp"
#include "core/io/opendx.hpp"
#include "potmap/custom_phi.hpp"
#include "potmap/map.hpp"
#include "potmap/map_output.hpp"
#include "potmap/run_config.hpp"

namespace pairwise::potmap {

namespace {

AtomArrays to_arrays(const Atoms& a) {
  AtomArrays r;
  r.charges = a.q;
  r.positions.resize(3 * a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    r.positions[3 * i] = a.x[i], r.positions[3 * i + 1] = a.y[i], r.positions[3 * i + 2] = a.z[i];
  return r;
}

Atoms from_arrays(const AtomArrays& a) {
  if (a.positions.size() != 3 * a.charges.size())
    throw Error("positions must have shape (" + std::to_string(a.charges.size()) + ", 3)",
                "positions");
  Atoms r;
  for (std::size_t i = 0; i < a.charges.size(); ++i)
    r.push_back(a.positions[3 * i], a.positions[3 * i + 1], a.positions[3 * i + 2], a.charges[i]);
  return r;
}

Lattice to_lattice(const Grid& g) {
  Lattice l;
  l.origin = g.origin, l.spacing = g.spacing, l.counts = g.counts;
  return l;
}

Grid to_grid(const Lattice& l) {
  return {l.origin, l.spacing, l.counts};
}

}  // namespace

AtomArrays generate_water_box(double edge, std::uint64_t seed) {
  if (!(edge > 0)) throw Error("the water box edge must be > 0", "water_box");
  return to_arrays(water_box(edge, seed));
}

AtomArrays read_atoms(const std::string& path, const std::string& format,
                      const std::string& charges) {
  PotmapConfig c;
  c.input = path;
  c.format = parse_input_format(format);
  c.charges = charges;
  return to_arrays(load_atoms(c));
}

Grid grid_around(const AtomArrays& atoms, double spacing, double padding) {
  return api::checked_argument(
      [&] { return to_grid(lattice_around(from_arrays(atoms), spacing, padding)); });
}

Map compute_map(const AtomArrays& atoms, const Grid& grid, const MapSettings& settings) {
  const Atoms a = api::checked_argument([&] { return from_arrays(atoms); });
  const Lattice lattice = to_lattice(grid);
  MapOptions o;
  o.precision = settings.run.precision;
  o.cutoff = settings.cutoff, o.exclusion = settings.exclusion, o.kahan = settings.kahan;
  o.bin_size = settings.bin_size;
  if (!settings.phi.empty())
    o.custom = api::checked_argument([&] {
      return std::make_shared<const CustomPhi>(settings.phi, settings.cutoff, "phi", "settings");
    });
  const Units units = api::checked_argument([&] { return parse_units(settings.units); });
  api::checked_argument([&] { validate(a, lattice, o); });
  MapResult r = potmap::compute_map(resolve_backend(settings.run.backend), a, lattice, o);
  // As `pairwise potmap` writes it: converted, FP32 maps rounded to FP32.
  convert_units(r.values, units, r.precision != Precision::double_);
  Map m;
  m.grid = grid;
  m.values = std::move(r.values);
  m.units = std::string(to_string(units));
  m.device = r.device;
  m.backend = r.backend, m.precision = r.precision;
  m.seconds = r.seconds;
  return m;
}

void write_map(const Map& map, const std::string& path) {
  const Lattice lattice = to_lattice(map.grid);
  if (map.values.size() != lattice.size())
    throw Error("the map has " + std::to_string(map.values.size()) + " values for " +
                    std::to_string(lattice.size()) + " lattice points",
                path);
  const bool single = map.precision != Precision::double_;
  write_map_file(path, map_grid(lattice, map.values, single, parse_units(map.units), {}), single);
}

ConfigMap read_config(const std::string& path) {
  auto config = config::Config::load(path);
  const PotmapConfig c = read_potmap_config(config);
  ConfigMap m;
  const Atoms atoms = load_atoms(c);
  m.atoms = to_arrays(atoms);
  m.grid = to_grid(make_lattice(c, atoms));
  m.settings.run = {c.backend, c.map.precision};
  m.settings.cutoff = c.map.cutoff, m.settings.exclusion = c.map.exclusion;
  m.settings.kahan = c.map.kahan, m.settings.bin_size = c.map.bin_size;
  if (c.map.custom) m.settings.phi = c.map.custom->text();
  m.settings.units = std::string(to_string(c.units));
  m.output = c.output.string();
  return m;
}

}  // namespace pairwise::potmap
