// pairwise.potmap: electrostatic potential maps (include/pairwise/potmap.hpp).
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "pairwise/potmap.hpp"

namespace pairwise::python {

namespace {

using namespace pybind11::literals;
namespace pm = pairwise::potmap;

py::dict atoms_dict(pm::AtomArrays&& a) {
  const auto n = py::ssize_t(a.charges.size());
  return py::dict("positions"_a = adopt(std::move(a.positions), n, 3),
                  "charges"_a = adopt(std::move(a.charges), n));
}

pm::AtomArrays atoms_arg(const py::object& positions, const py::object& charges) {
  pm::AtomArrays a;
  a.positions = doubles(positions, "positions", -1, 3);
  a.charges = doubles(charges, "charges", py::ssize_t(a.positions.size() / 3), 0);
  return a;
}

py::dict grid_dict(const pm::Grid& g) {
  return py::dict("origin"_a = g.origin, "spacing"_a = g.spacing, "counts"_a = g.counts);
}

}  // namespace

void bind_potmap(py::module_& parent) {
  auto m = parent.def_submodule(
      "potmap",
      "Electrostatic potential maps of point charges on a lattice (direct or cutoff summation "
      "with NAMD switching, exclusion radius); input Angstrom and e, maps in kT/e at 298.15 K, "
      "V or kcal/(mol e) (docs/potmap.md).");
  m.def(
      "water_box",
      [](double edge, std::uint64_t seed) {
        return atoms_dict(as_value_error([&] { return pm::generate_water_box(edge, seed); }));
      },
      "edge"_a, "seed"_a = 1,
      "TIP3P-charged water filling a cube of `edge` Angstrom, as `pairwise potmap --water-box`: "
      "a dict of positions (N, 3) and charges (N,).");
  m.def(
      "read_atoms",
      [](const std::string& path, const std::string& format, const std::string& charges) {
        return atoms_dict(as_value_error([&] { return pm::read_atoms(path, format, charges); }));
      },
      "path"_a, "format"_a = "auto", "charges"_a = "",
      "Atoms of a PQR, a PDB with a charge table (charges=PATH) or an 'x y z q' table: a dict of "
      "positions (N, 3) and charges (N,).");
  m.def(
      "grid_around",
      [](py::object positions, py::object charges, double spacing, double padding) {
        const auto a = atoms_arg(positions, charges);
        return grid_dict(as_value_error([&] { return pm::grid_around(a, spacing, padding); }));
      },
      "positions"_a, "charges"_a, "spacing"_a = 0.5, "padding"_a = 5.0,
      "The lattice covering the atoms' bounding box grown by `padding`: a dict of origin (3 "
      "floats), spacing and counts (nx, ny, nz) that compute_map takes.");
  m.def(
      "compute_map",
      [](py::object positions, py::object charges, std::array<double, 3> origin, double spacing,
         std::array<std::size_t, 3> counts, double cutoff, double exclusion, bool kahan,
         const std::string& units, const std::string& backend, const std::string& precision,
         const std::string& output, const std::string& phi) {
        const auto a = atoms_arg(positions, charges);
        pm::MapSettings s;
        s.run = {backend_arg(backend), precision_arg(precision)};
        s.cutoff = cutoff, s.exclusion = exclusion, s.kahan = kahan, s.units = units;
        s.phi = phi;
        const pm::Grid g{origin, spacing, counts};
        // Input errors are InvalidArgument (ValueError); a failed computation pairwise.Error.
        pm::Map map = without_gil([&] { return pm::compute_map(a, g, s); });
        if (!output.empty()) as_value_error([&] { pm::write_map(map, output); });
        const auto total = py::ssize_t(map.values.size());
        py::array_t<double> values = adopt(std::move(map.values), total);
        values = values.attr("reshape")(counts[0], counts[1], counts[2]);
        return py::dict(
            "values"_a = values, "origin"_a = origin, "spacing"_a = spacing, "units"_a = map.units,
            "device"_a = map.device, "backend"_a = std::string(to_string(map.backend)),
            "precision"_a = std::string(to_string(map.precision)), "seconds"_a = map.seconds);
      },
      "positions"_a, "charges"_a, py::kw_only(), "origin"_a, "spacing"_a, "counts"_a,
      "cutoff"_a = 0.0, "exclusion"_a = 0.0, "kahan"_a = false, "units"_a = "kT/e",
      "backend"_a = "auto", "precision"_a = "single", "output"_a = "", "phi"_a = "",
      R"(The potential map of charges on a lattice, computed with the GIL released.

positions (N, 3) Angstrom and charges (N,) e: float32/float64 C-contiguous arrays; origin,
spacing, counts: the lattice (grid_around() gives one); cutoff: Angstrom (0: direct summation);
exclusion: points closer to an atom are 0; units 'kT/e' | 'V' | 'kcal/mol/e'; precision 'single'
(default) | 'mixed' | 'double'; output: also write FILE.dx or FILE.npy; phi: phi(r) per unit
charge as a formula in r (Angstrom) and rc, in e/Angstrom (docs/formulas.md), e.g. Debye-Hueckel
'exp(-r/7.8)/(78.5*r)'; '' (default) is Coulomb 1/r.
Returns a dict: values (nx, ny, nz) float64 (z fastest; FP32 values for single and mixed),
origin, spacing, units, device, backend, precision, seconds.)");
  m.def(
      "read_config",
      [](const std::string& path) {
        pm::ConfigMap c = as_value_error([&] { return pm::read_config(path); });
        py::dict d = grid_dict(c.grid);
        d["atoms"] = atoms_dict(std::move(c.atoms));
        d["cutoff"] = c.settings.cutoff, d["exclusion"] = c.settings.exclusion;
        d["kahan"] = c.settings.kahan, d["units"] = c.settings.units;
        d["phi"] = c.settings.phi;
        d["backend"] = std::string(to_string(c.settings.run.backend));
        d["precision"] = std::string(to_string(c.settings.run.precision));
        d["output"] = c.output;
        return d;
      },
      "path"_a,
      "Reads a TOML config as `pairwise run` does (workload = 'potmap'): a dict of atoms "
      "(positions, charges), origin, spacing, counts, cutoff, exclusion, kahan, units, phi, "
      "backend, "
      "precision and output.");
}

}  // namespace pairwise::python
