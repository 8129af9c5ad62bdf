// pairwise.md: Lennard-Jones molecular dynamics (include/pairwise/md.hpp) from numpy arrays.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <map>

#include "arrays.hpp"
#include "pairwise/md.hpp"
#include "run_glue.hpp"

namespace pairwise::python {

namespace {

using namespace pybind11::literals;
namespace md = pairwise::md;

md::Settings settings_arg(const std::string& backend, const std::string& precision, double skin,
                          double dt, const std::string& thermostat, double temperature,
                          double gamma, double nu, std::uint64_t seed, int sort_every,
                          int neighbor_capacity, bool allow_overlap) {
  md::Settings s;
  s.run.backend = backend_arg(backend);
  s.run.precision = precision_arg(precision);
  s.skin = skin, s.dt = dt, s.thermostat = thermostat, s.temperature = temperature;
  s.gamma = gamma, s.nu = nu, s.seed = seed, s.sort_every = sort_every;
  s.neighbor_capacity = neighbor_capacity, s.allow_overlap = allow_overlap;
  return s;
}

// The keyword arguments of style = "custom" | "table" (docs/formulas.md).
struct CustomArgs {
  py::object energy, parameters, type_parameters, combine, table;
  std::string truncation;
};

// A number of a keyword argument; ValueError naming `what` otherwise.
double number_arg(const py::handle& v, const std::string& what) {
  try {
    return v.cast<double>();
  } catch (const py::cast_error&) {
    throw py::value_error(what + " must be a number");
  }
}

std::map<std::string, double> number_dict(const py::handle& obj, const std::string& what) {
  std::map<std::string, double> out;
  if (obj.is_none()) return out;
  if (!py::isinstance<py::dict>(obj)) throw py::value_error(what + " must be a dict of numbers");
  for (const auto& [k, v] : obj.cast<py::dict>()) {
    const auto key = py::str(k).cast<std::string>();
    out[key] = number_arg(v, what + "['" + key + "']");
  }
  return out;
}

// A custom pair (i, j, {...}): "energy", "cutoff", "file", "keyword" are keys, other numbers are
// the pair's parameters (formula styles).
void custom_pair_arg(md::ForceFieldSpec& f, int i, int j, const py::dict& d) {
  if (f.style == "custom") {
    md::FormulaPair p;
    p.i = i, p.j = j;
    for (const auto& [k, v] : d) {
      const auto key = py::str(k).cast<std::string>();
      if (key == "energy")
        p.energy = v.cast<std::string>();
      else if (key == "cutoff")
        p.cutoff = v.cast<double>();
      else
        p.parameters[key] = number_arg(
            v, "pair (" + std::to_string(i) + ", " + std::to_string(j) + ")['" + key + "']");
    }
    f.formula.pairs.push_back(p);
  } else {
    md::TablePair p;
    p.i = i, p.j = j;
    for (const auto& [k, v] : d) {
      const auto key = py::str(k).cast<std::string>();
      if (key == "file")
        p.file = v.cast<std::string>();
      else if (key == "keyword")
        p.keyword = v.cast<std::string>();
      else if (key == "cutoff")
        p.cutoff = v.cast<double>();
      else
        throw py::value_error("unknown key '" + key +
                              "' of a table pair (it takes file, keyword, cutoff)");
    }
    f.table.pairs.push_back(p);
  }
}

md::ForceFieldSpec force_field_arg(const std::string& style, double cutoff,
                                   const std::string& mixing, const py::object& masses,
                                   const py::object& pairs, const CustomArgs& custom) {
  md::ForceFieldSpec f;
  f.style = style, f.cutoff = cutoff, f.mixing = mixing;
  const bool is_formula = style == "custom", is_table = style == "table";
  if (!is_formula && (!custom.energy.is_none() || !custom.parameters.is_none() ||
                      !custom.type_parameters.is_none() || !custom.combine.is_none()))
    throw py::value_error("energy, parameters, type_parameters and combine need style='custom'");
  if (!is_table && !custom.table.is_none()) throw py::value_error("table needs style='table'");
  if (!masses.is_none())
    f.masses = doubles(py::array_t<double, py::array::forcecast>::ensure(masses), "masses", -1, 0);
  if (is_formula) {
    if (!custom.energy.is_none()) f.formula.energy = custom.energy.cast<std::string>();
    f.formula.truncation = custom.truncation;
    f.formula.parameters = number_dict(custom.parameters, "parameters");
    if (!custom.type_parameters.is_none())
      for (const auto& [t, params] : custom.type_parameters.cast<py::dict>())
        f.formula.type_parameters[t.cast<int>()] =
            number_dict(params, "type_parameters[" + py::str(t).cast<std::string>() + "]");
    if (!custom.combine.is_none())
      for (const auto& [k, v] : custom.combine.cast<py::dict>())
        f.formula.combine[py::str(k).cast<std::string>()] = v.cast<std::string>();
  }
  if (is_table) {
    if (custom.table.is_none())
      throw py::value_error("style='table' needs table={'file': ..., 'keyword': ...}");
    for (const auto& [k, v] : custom.table.cast<py::dict>()) {
      const auto key = py::str(k).cast<std::string>();
      if (key == "file")
        f.table.file = v.cast<std::string>();
      else if (key == "keyword")
        f.table.keyword = v.cast<std::string>();
      else if (key == "style")
        f.table.style = v.cast<std::string>();
      else if (key == "n")
        f.table.n = v.cast<int>();
      else if (key == "cutoff")
        f.table.cutoff = v.cast<double>();
      else
        throw py::value_error("unknown key '" + key +
                              "' of table (it takes file, keyword, style, n, cutoff)");
    }
  }
  if (!pairs.is_none())
    for (const auto& item : pairs) {
      const auto t = item.cast<py::sequence>();
      if ((is_formula || is_table) && t.size() == 3 && py::isinstance<py::dict>(t[2])) {
        custom_pair_arg(f, t[0].cast<int>(), t[1].cast<int>(), t[2].cast<py::dict>());
        continue;
      }
      if (is_formula || is_table)
        throw py::value_error("with style='" + style + "' each pair must be (i, j, {...})");
      if (t.size() < 4 || t.size() > 5)
        throw py::value_error("each pair must be (i, j, epsilon, sigma[, cutoff])");
      md::PairCoefficients p;
      p.i = t[0].cast<int>(), p.j = t[1].cast<int>();
      p.epsilon = t[2].cast<double>(), p.sigma = t[3].cast<double>();
      p.cutoff = t.size() == 5 ? t[4].cast<double>() : 0.0;
      f.pairs.push_back(p);
    }
  return f;
}

py::dict thermo_dict(const md::ThermoRow& r) {
  return py::dict("step"_a = r.step, "temperature"_a = r.temperature, "potential"_a = r.potential,
                  "kinetic"_a = r.kinetic, "total"_a = r.total, "pressure"_a = r.pressure,
                  "virial"_a = r.virial, "rebuilds"_a = r.rebuilds);
}

py::dict state_dict(md::State&& s) {
  const auto n = py::ssize_t(s.ids.size());
  std::vector<long long> ids(s.ids.begin(), s.ids.end()), types(s.types.begin(), s.types.end()),
      images(s.images.begin(), s.images.end());
  return py::dict("step"_a = s.step, "box"_a = box_out(s.box),
                  "positions"_a = adopt(std::move(s.positions), n, 3),
                  "velocities"_a = adopt(std::move(s.velocities), n, 3),
                  "images"_a = adopt_as(std::move(images), n, 3),
                  "ids"_a = adopt_as(std::move(ids), n), "types"_a = adopt_as(std::move(types), n));
}

const char* kCustomDoc = R"doc(
Custom pair styles (docs/formulas.md, the [force_field] keys of the same names):
  style='custom': energy U(r) as a formula, e.g. "4*eps*(s6^2 - s6); s6 = (sig/r)^6";
    parameters {name: value} (global), type_parameters {type: {name: value}}, combine
    {name: "sqrt(eps1*eps2)"}, truncation 'cut' | 'shift' | 'shifted_force', pairs
    [(i, j, {"energy": "...", "cutoff": rc, name: value, ...})] for a pair's own formula/numbers.
  style='table': table {"file": path, "keyword": section, "style": 'linear' | 'spline', "n": N,
    "cutoff": rc (default the table's last r)}, pairs [(i, j, {"file", "keyword", "cutoff"})].
)doc";

const char* kSettingsDoc = R"(
Settings (keyword arguments, as in the [neighbor], [integrator] and [run] tables of docs/md.md):
  backend     'auto' | 'reference' | 'cpu' | 'cuda' (auto: cuda when a device is usable)
  precision   'single' | 'mixed' | 'double' (reference is always double)
  skin        neighbor-list skin (sigma), default 0.3
  dt          time step (tau), default 0.005
  thermostat  'none' | 'langevin' | 'andersen'; temperature, gamma, nu and seed configure it
  sort_every  steps between space-filling-curve reorders (0: never)
  neighbor_capacity  initial neighbor slots per atom (0: estimated)
  allow_overlap      accept atoms closer than 0.5 sigma (otherwise ValueError))";

}  // namespace

void bind_md(py::module_& parent) {
  auto m = parent.def_submodule(
      "md",
      "Lennard-Jones molecular dynamics in LAMMPS 'units lj' (sigma, epsilon, m, tau): periodic "
      "orthorhombic box, per-type-pair epsilon/sigma/cutoff, cut | shift | shifted_force "
      "truncation, velocity Verlet with optional Langevin or Andersen thermostat.");

  m.def(
      "lattice",
      [](const std::string& kind, double density, py::object cells, double temperature,
         std::uint64_t seed) {
        std::array<int, 3> c{};
        if (py::isinstance<py::int_>(cells))
          c = {cells.cast<int>(), cells.cast<int>(), cells.cast<int>()};
        else
          c = cells.cast<std::array<int, 3>>();
        md::SystemArrays a =
            as_value_error([&] { return md::lattice(kind, density, c, temperature, seed); });
        const auto n = py::ssize_t(a.ids.size());
        return py::dict(
            "positions"_a = adopt(std::move(a.positions), n, 3),
            "velocities"_a = adopt(std::move(a.velocities), n, 3),
            "box"_a = py::make_tuple(py::make_tuple(a.box.lo[0], a.box.lo[1], a.box.lo[2]),
                                     py::make_tuple(a.box.hi[0], a.box.hi[1], a.box.hi[2])));
      },
      "kind"_a, "density"_a, "cells"_a, "temperature"_a = 0.0, "seed"_a = 87287,
      R"(An fcc | bcc | sc lattice as `pairwise run` builds it from [system].

kind: 'fcc', 'bcc' or 'sc'; density: reduced density rho* (atoms per sigma^3); cells: n or
(nx, ny, nz) unit cells; temperature: Maxwell-Boltzmann velocities at T (zero total momentum,
3N-3 degrees of freedom); seed: the velocity seed.
Returns a dict: positions (N, 3) float64, velocities (N, 3) float64, box ((lo), (hi)).)");

  py::class_<md::Simulation> cls(m, "Simulation", R"(A Lennard-Jones md simulation on one backend.

Build it from numpy arrays (the constructor), a LAMMPS data file (from_data_file) or a TOML config
as `pairwise run` reads it (from_config). compute_forces() evaluates the current state once;
run(steps, callback=..., every=K, thermo_every=K) advances it with the GIL released and calls a
Python callback every K steps with read-only numpy views of the state.

Errors: bad arrays or parameters raise ValueError; a failed run (the system blew up, a CUDA error)
raises pairwise.Error (a RuntimeError); out of memory raises MemoryError. Messages are the
command line's.)");
  cls.def(
         py::init([](py::object positions, py::object box, py::object velocities, py::object types,
                     py::object masses, py::object pairs, const std::string& style, double cutoff,
                     const std::string& mixing, const std::string& backend,
                     const std::string& precision, double skin, double dt,
                     const std::string& thermostat, double temperature, double gamma, double nu,
                     std::uint64_t seed, int sort_every, int neighbor_capacity, bool allow_overlap,
                     py::object energy, py::object parameters, py::object type_parameters,
                     py::object combine, const std::string& truncation, py::object table) {
           md::SystemArrays a;
           a.positions = doubles(positions, "positions", -1, 3);
           const auto n = py::ssize_t(a.positions.size() / 3);
           a.box = box_arg(box);
           if (!velocities.is_none()) a.velocities = doubles(velocities, "velocities", n, 3);
           if (!types.is_none())
             for (long long t : integers(types, "types", n)) a.types.push_back(int(t));
           a.force_field =
               force_field_arg(style, cutoff, mixing, masses, pairs,
                               {energy, parameters, type_parameters, combine, table, truncation});
           const md::Settings s =
               settings_arg(backend, precision, skin, dt, thermostat, temperature, gamma, nu, seed,
                            sort_every, neighbor_capacity, allow_overlap);
           return as_value_error([&] { return std::make_unique<md::Simulation>(a, s); });
         }),
         "positions"_a, "box"_a, py::kw_only(), "velocities"_a = py::none(), "types"_a = py::none(),
         "masses"_a = py::none(), "pairs"_a = py::none(), "style"_a = "cut", "cutoff"_a = 2.5,
         "mixing"_a = "geometric", "backend"_a = "auto", "precision"_a = "mixed", "skin"_a = 0.3,
         "dt"_a = 0.005, "thermostat"_a = "none", "temperature"_a = 1.0, "gamma"_a = 1.0,
         "nu"_a = 1.0, "seed"_a = 1, "sort_every"_a = 1000, "neighbor_capacity"_a = 0,
         "allow_overlap"_a = false, "energy"_a = py::none(), "parameters"_a = py::none(),
         "type_parameters"_a = py::none(), "combine"_a = py::none(), "truncation"_a = "cut",
         "table"_a = py::none(),
         (std::string(
              R"(Simulation(positions, box, *, velocities=None, types=None, masses=None, pairs=None, ...)

positions: (N, 3) float32/float64 C-contiguous array (sigma); box: (3,) lengths from 0 or (2, 3)
[lo, hi]; velocities: (N, 3) (default zero); types: (N,) integers 1..T (default all 1); masses:
(T,) per type (default 1); pairs: [(i, j, epsilon, sigma[, cutoff]), ...] (default epsilon = sigma
= 1 for every type; unlisted pairs mix); style 'cut' | 'shift' | 'shifted_force' | 'custom' |
'table'; cutoff: the global cutoff; mixing 'geometric' | 'arithmetic'.)") +
          kCustomDoc + kSettingsDoc)
             .c_str())
      .def_static(
          "from_data_file",
          [](const std::string& path, const std::string& style, double cutoff,
             const std::string& mixing, py::object pairs, const std::string& backend,
             const std::string& precision, double skin, double dt, const std::string& thermostat,
             double temperature, double gamma, double nu, std::uint64_t seed, int sort_every,
             int neighbor_capacity, bool allow_overlap, py::object energy, py::object parameters,
             py::object type_parameters, py::object combine, const std::string& truncation,
             py::object table) {
            const auto f =
                force_field_arg(style, cutoff, mixing, py::none(), pairs,
                                {energy, parameters, type_parameters, combine, table, truncation});
            const md::Settings s =
                settings_arg(backend, precision, skin, dt, thermostat, temperature, gamma, nu, seed,
                             sort_every, neighbor_capacity, allow_overlap);
            return as_value_error([&] { return md::Simulation::from_data_file(path, f, s); });
          },
          "path"_a, py::kw_only(), "style"_a = "cut", "cutoff"_a = 2.5, "mixing"_a = "geometric",
          "pairs"_a = py::none(), "backend"_a = "auto", "precision"_a = "mixed", "skin"_a = 0.3,
          "dt"_a = 0.005, "thermostat"_a = "none", "temperature"_a = 1.0, "gamma"_a = 1.0,
          "nu"_a = 1.0, "seed"_a = 1, "sort_every"_a = 1000, "neighbor_capacity"_a = 0,
          "allow_overlap"_a = false, "energy"_a = py::none(), "parameters"_a = py::none(),
          "type_parameters"_a = py::none(), "combine"_a = py::none(), "truncation"_a = "cut",
          "table"_a = py::none(),
          (std::string(
               R"(A simulation of a LAMMPS data file (atomic style, .gz read too) with its Masses and
Pair Coeffs; style, cutoff and mixing complete the force field, pairs override coefficients.)") +
           kCustomDoc + kSettingsDoc)
              .c_str());
  def_simulation_basics(
      cls, {"A simulation of a TOML config as `pairwise run` reads it (workload = 'md'); "
            "configured_steps and configured_thermo_every give its [integrator] steps and [output] "
            "thermo_every. Unknown keys raise ValueError with a did-you-mean.",
            "Number of atoms.", "The backend in use: 'reference', 'cpu' or 'cuda'.",
            "The precision in use: 'single', 'mixed' or 'double'.",
            "The device (GPU name or CPU threads) the engine runs on."});
  cls.def_property_readonly("step", &md::Simulation::step, "Steps taken so far.")
      .def_property_readonly("time", &md::Simulation::time, "step * dt (tau).")
      .def_property_readonly("configured_steps", &md::Simulation::configured_steps,
                             "from_config: [integrator] steps (else 0).")
      .def_property_readonly("configured_thermo_every", &md::Simulation::configured_thermo_every,
                             "from_config: [output] thermo_every (else 10).")
      .def(
          "compute_forces",
          [](md::Simulation& s) {
            md::ForceResult r = without_gil([&] { return s.compute_forces(); });
            const auto n = py::ssize_t(s.size());
            return py::dict("forces"_a = adopt(std::move(r.forces), n, 3),
                            "potential"_a = r.potential, "virial"_a = r.virial);
          },
          "Forces (N, 3) of the current positions, total potential energy and virial "
          "(sum over pairs of r . f), in a dict; atoms in the order given.")
      .def(
          "thermo", [](md::Simulation& s) { return thermo_dict(s.thermo()); },
          "The thermo row of `pairwise run` for the current state: step, temperature, potential, "
          "kinetic, total (per atom), pressure, virial (total), rebuilds. Raises pairwise.Error if "
          "the system blew up.")
      .def(
          "state", [](md::Simulation& s) { return state_dict(s.state()); },
          "The state in the order given: dict of positions (N, 3) wrapped into the box, "
          "velocities (N, 3), images (N, 3) box crossings, ids, types, step, box.")
      .def(
          "set_state",
          [](md::Simulation& s, py::object positions, py::object velocities) {
            const auto n = py::ssize_t(s.size());
            const auto x = doubles(positions, "positions", n, 3);
            const auto v = velocities.is_none() ? std::vector<double>{}
                                                : doubles(velocities, "velocities", n, 3);
            as_value_error([&] { s.set_state(x, v); });
          },
          "positions"_a, "velocities"_a = py::none(),
          "Replaces positions (N, 3) and optionally velocities (N, 3); forces are recomputed.")
      .def(
          "run",
          [](md::Simulation& s, std::int64_t steps, py::object callback, std::int64_t every,
             std::int64_t thermo_every) -> py::object {
            if (steps < 0) throw py::value_error("steps must be >= 0");
            check_callback(callback);
            if (every < 1 || thermo_every < 0)
              throw py::value_error("every must be >= 1 and thermo_every >= 0");
            std::vector<md::ThermoRow> rows;
            const auto observers = step_observers(s, callback, every, thermo_every, rows);
            without_gil([&] { s.run(steps, observers); });
            if (thermo_every == 0) return py::none();
            using Row = md::ThermoRow;
            return row_table<Row>(rows, {{"step", &Row::step},
                                         {"temperature", &Row::temperature},
                                         {"potential", &Row::potential},
                                         {"kinetic", &Row::kinetic},
                                         {"total", &Row::total},
                                         {"pressure", &Row::pressure},
                                         {"rebuilds", &Row::rebuilds}});
          },
          "steps"_a, "callback"_a = py::none(), "every"_a = 1, "thermo_every"_a = 0,
          R"(Advances `steps` steps with the GIL released.

callback(step, positions, velocities) is called after every multiple of `every` (absolute step
count) and after the last step, with read-only (N, 3) float64 numpy views of the state; an
exception it raises stops the run after that step and reaches the caller (the simulation stays
usable). thermo_every > 0 returns the thermo rows (the current one first, then every
thermo_every steps and the last) as a dict of numpy columns: step, temperature, potential,
kinetic, total, pressure, rebuilds. Raises pairwise.Error if the system blows up.)");
}

}  // namespace pairwise::python
