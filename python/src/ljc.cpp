// pairwise.ljc: LJ + Coulomb molecules in implicit solvent (include/pairwise/ljc.hpp).
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "pairwise/ljc.hpp"
#include "run_glue.hpp"

namespace pairwise::python {

namespace {

using namespace pybind11::literals;
namespace lj = pairwise::ljc;

py::dict molecule_dict(lj::MoleculeArrays&& a) {
  const auto n = py::ssize_t(a.charges.size());
  std::vector<long long> bond_atoms;
  std::vector<double> bond_params;
  for (const auto& b : a.bonds)
    bond_atoms.push_back(b.i), bond_atoms.push_back(b.j), bond_params.push_back(b.r0),
        bond_params.push_back(b.k);
  std::vector<long long> excl;
  for (const auto& [i, j] : a.exclusions) excl.push_back(i), excl.push_back(j);
  const auto nb = py::ssize_t(a.bonds.size()), ne = py::ssize_t(a.exclusions.size());
  py::dict d(
      "positions"_a = adopt(std::move(a.positions), n, 3),
      "charges"_a = adopt(std::move(a.charges), n), "sigmas"_a = adopt(std::move(a.sigmas), n),
      "epsilons"_a = adopt(std::move(a.epsilons), n), "masses"_a = adopt(std::move(a.masses), n),
      "bonds"_a = adopt_as(std::move(bond_atoms), nb, 2),
      "bond_params"_a = adopt(std::move(bond_params), nb, 2),
      "exclusions"_a = adopt_as(std::move(excl), ne, 2));
  d["velocities"] = a.velocities.empty() ? py::object(py::none())
                                         : py::object(adopt(std::move(a.velocities), n, 3));
  return d;
}

std::vector<std::pair<int, int>> index_pairs(const py::object& obj, const char* name) {
  std::vector<std::pair<int, int>> out;
  if (obj.is_none()) return out;
  const auto a = py::array::ensure(obj);
  if (!a || (a.size() > 0 && (a.ndim() != 2 || a.shape(1) != 2)))
    throw py::value_error(std::string(name) + " must have shape (M, 2)");
  const auto flat = integers(a.attr("reshape")(-1), name, -1);
  for (std::size_t k = 0; k + 1 < flat.size(); k += 2)
    out.emplace_back(int(flat[k]), int(flat[k + 1]));
  return out;
}

}  // namespace

void bind_ljc(py::module_& parent) {
  auto m = parent.def_submodule(
      "ljc",
      "All-pairs Lennard-Jones + Coulomb molecules in implicit solvent (Angstrom, kcal/mol, e, "
      "amu, fs): harmonic bonds, exclusions and scaled 1-4 pairs from the bonds, constant, "
      "linear or sigmoidal dielectric, velocity Verlet or BAOAB Langevin (docs/ljc.md).");
  const char* molecule_doc =
      "Returns a dict: positions (N, 3), velocities (N, 3) or None, charges, sigmas, epsilons, "
      "masses (N,), bonds (B, 2) atom indices, bond_params (B, 2) r0 and k, exclusions (E, 2).";
  m.def(
      "globule",
      [](std::size_t n, std::uint64_t seed, double charge) {
        return molecule_dict(as_value_error([&] { return lj::globule(n, seed, charge); }));
      },
      "n"_a, "seed"_a = 1, "charge"_a = 0.4,
      (std::string("The test globule of `pairwise run` (an n-bead chain folded compactly, "
                   "charges +-charge). ") +
       molecule_doc)
          .c_str());
  m.def(
      "read_molecule",
      [](const std::string& path, double pqr_epsilon, double pqr_bond_k) {
        return molecule_dict(
            as_value_error([&] { return lj::read_molecule(path, pqr_epsilon, pqr_bond_k); }));
      },
      "path"_a, "pqr_epsilon"_a = 0.1, "pqr_bond_k"_a = 300.0,
      (std::string("A topology file (.toml/.json) or a PQR file (bonds by distance). ") +
       molecule_doc)
          .c_str());

  py::class_<lj::Simulation> cls(m, "Simulation",
                                 R"(An LJ + Coulomb molecule simulation on one backend.

Simulation(positions, charges, sigmas, epsilons, masses, *, velocities=None, bonds=None,
           bond_params=None, exclusions=None, backend='auto', precision='mixed',
           dielectric='constant', epsilon=1.0, linear_factor=1.0, scale14_lj=0.5,
           scale14_coulomb=1/1.2, thermostat='none', dt=1.0, temperature=300.0, friction=1.0,
           seed=1)
or Simulation.from_config(path). Arrays are float32/float64 C-contiguous; bonds (B, 2) integer
atom indices with bond_params (B, 2) r0 (Angstrom), k (kcal/(mol A^2)); exclusions (E, 2).
Without velocities, thermal ones at `temperature` are drawn (zero momentum). run(steps,
callback=..., every=K, thermo_every=K) releases the GIL.
Errors: ValueError for bad input, pairwise.Error (RuntimeError) for a failed run, MemoryError.)");
  cls.def(
      py::init([](py::object positions, py::object charges, py::object sigmas, py::object epsilons,
                  py::object masses, py::object velocities, py::object bonds,
                  py::object bond_params, py::object exclusions, const std::string& backend,
                  const std::string& precision, const std::string& dielectric, double epsilon,
                  double linear_factor, double scale14_lj, double scale14_coulomb,
                  const std::string& thermostat, double dt, double temperature, double friction,
                  std::uint64_t seed, const std::string& custom, bool custom_replaces) {
        lj::MoleculeArrays a;
        a.positions = doubles(positions, "positions", -1, 3);
        const auto n = py::ssize_t(a.positions.size() / 3);
        a.charges = doubles(charges, "charges", n, 0);
        a.sigmas = doubles(sigmas, "sigmas", n, 0);
        a.epsilons = doubles(epsilons, "epsilons", n, 0);
        a.masses = doubles(masses, "masses", n, 0);
        if (!velocities.is_none()) a.velocities = doubles(velocities, "velocities", n, 3);
        const auto bond_pairs = index_pairs(bonds, "bonds");
        if (!bond_pairs.empty()) {
          if (bond_params.is_none())
            throw py::value_error("bonds need bond_params (B, 2): r0 and k per bond");
          const auto p = doubles(bond_params, "bond_params", py::ssize_t(bond_pairs.size()), 2);
          for (std::size_t b = 0; b < bond_pairs.size(); ++b)
            a.bonds.push_back({bond_pairs[b].first, bond_pairs[b].second, p[2 * b], p[2 * b + 1]});
        }
        a.exclusions = index_pairs(exclusions, "exclusions");
        lj::Settings s;
        s.run = {backend_arg(backend), precision_arg(precision)};
        s.dielectric = dielectric, s.epsilon = epsilon, s.linear_factor = linear_factor;
        s.scale14_lj = scale14_lj, s.scale14_coulomb = scale14_coulomb;
        s.thermostat = thermostat, s.dt = dt, s.temperature = temperature;
        s.friction = friction, s.seed = seed;
        s.custom = custom, s.custom_replaces = custom_replaces;
        return as_value_error([&] { return std::make_unique<lj::Simulation>(a, s); });
      }),
      "positions"_a, "charges"_a, "sigmas"_a, "epsilons"_a, "masses"_a, py::kw_only(),
      "velocities"_a = py::none(), "bonds"_a = py::none(), "bond_params"_a = py::none(),
      "exclusions"_a = py::none(), "backend"_a = "auto", "precision"_a = "mixed",
      "dielectric"_a = "constant", "epsilon"_a = 1.0, "linear_factor"_a = 1.0, "scale14_lj"_a = 0.5,
      "scale14_coulomb"_a = 1.0 / 1.2, "thermostat"_a = "none", "dt"_a = 1.0,
      "temperature"_a = 300.0, "friction"_a = 1.0, "seed"_a = 1, "custom"_a = "",
      "custom_replaces"_a = false,
      "Builds a simulation from numpy arrays (see the class docstring). custom: a non-bonded term "
      "U(r) (kcal/mol) as a formula in r (A), q1, q2, sigma1, sigma2, epsilon1, epsilon2 "
      "(docs/formulas.md), beside LJ + Coulomb or, with custom_replaces=True, instead of them.");
  def_simulation_basics(
      cls,
      {"A simulation of a TOML config as `pairwise run` reads it (workload = 'ljc'); "
       "configured_steps and configured_interval give [run] steps and [output] interval.",
       "Number of atoms.", "The backend in use.", "The precision in use.", "The device in use."});
  cls.def_property_readonly("step", &lj::Simulation::step, "Steps taken so far.")
      .def_property_readonly("configured_steps", &lj::Simulation::configured_steps,
                             "from_config: [run] steps (else 0).")
      .def_property_readonly("configured_interval", &lj::Simulation::configured_interval,
                             "from_config: [output] interval (else 100).")
      .def(
          "compute_forces",
          [](const lj::Simulation& s) {
            lj::ForceResult r = s.compute_forces();
            const auto n = py::ssize_t(s.size());
            return py::dict("forces"_a = adopt(std::move(r.forces), n, 3), "lj"_a = r.lj,
                            "coulomb"_a = r.coulomb, "bond"_a = r.bond, "custom"_a = r.custom);
          },
          "Forces (N, 3) in kcal/(mol A) at the current positions and the energy terms lj, "
          "coulomb, bond, custom (kcal/mol), in a dict.")
      .def(
          "thermo",
          [](lj::Simulation& s) {
            const lj::ThermoRow r = s.thermo();
            return py::dict("step"_a = r.step, "time_ps"_a = r.time_ps,
                            "temperature"_a = r.temperature, "kinetic"_a = r.kinetic, "lj"_a = r.lj,
                            "coulomb"_a = r.coulomb, "bond"_a = r.bond, "custom"_a = r.custom,
                            "total"_a = r.total, "drift"_a = r.drift);
          },
          "The thermo row of `pairwise run`: step, time_ps, temperature (K), kinetic, lj, "
          "coulomb, bond, custom, total (kcal/mol), drift (E - E0)/|E0|.")
      .def(
          "state",
          [](const lj::Simulation& s) {
            lj::State st = s.state();
            const auto n = py::ssize_t(s.size());
            return py::dict("step"_a = st.step,
                            "positions"_a = adopt(std::move(st.positions), n, 3),
                            "velocities"_a = adopt(std::move(st.velocities), n, 3));
          },
          "The state: a dict of step, positions (N, 3) in A and velocities (N, 3) in A/fs.")
      .def(
          "run",
          [](lj::Simulation& s, std::int64_t steps, py::object callback, std::int64_t every,
             std::int64_t thermo_every) -> py::object {
            if (steps < 0 || every < 1 || thermo_every < 0)
              throw py::value_error("steps >= 0, every >= 1 and thermo_every >= 0 are needed");
            check_callback(callback);
            std::vector<lj::ThermoRow> rows;
            const auto observers = step_observers(s, callback, every, thermo_every, rows);
            without_gil([&] { s.run(steps, observers); });
            if (thermo_every == 0) return py::none();
            using Row = lj::ThermoRow;
            return row_table<Row>(rows, {{"step", &Row::step},
                                         {"time_ps", &Row::time_ps},
                                         {"temperature", &Row::temperature},
                                         {"kinetic", &Row::kinetic},
                                         {"lj", &Row::lj},
                                         {"coulomb", &Row::coulomb},
                                         {"bond", &Row::bond},
                                         {"custom", &Row::custom},
                                         {"total", &Row::total},
                                         {"drift", &Row::drift}});
          },
          "steps"_a, "callback"_a = py::none(), "every"_a = 1, "thermo_every"_a = 0,
          R"(Advances `steps` steps with the GIL released.

callback(step, positions, velocities) is called after every multiple of `every` and after the
last step with read-only (N, 3) float64 views; an exception it raises stops the run there and
reaches the caller. thermo_every > 0 returns the thermo rows (the current one first) as a dict of
numpy columns: step, time_ps, temperature, kinetic, lj, coulomb, bond, total, drift.)");
}

}  // namespace pairwise::python
