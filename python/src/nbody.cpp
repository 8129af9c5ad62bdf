// pairwise.nbody: direct-summation gravity (include/pairwise/nbody.hpp) from numpy arrays.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "pairwise/nbody.hpp"
#include "run_glue.hpp"

namespace pairwise::python {

namespace {

using namespace pybind11::literals;
namespace nb = pairwise::nbody;

py::dict particles_dict(nb::ParticleArrays&& a) {
  const auto n = py::ssize_t(a.masses.size());
  return py::dict("masses"_a = adopt(std::move(a.masses), n),
                  "positions"_a = adopt(std::move(a.positions), n, 3),
                  "velocities"_a = adopt(std::move(a.velocities), n, 3));
}

py::dict diagnostics_dict(const nb::DiagnosticsRow& d) {
  return py::dict("time"_a = d.time, "steps"_a = d.steps, "kinetic"_a = d.kinetic,
                  "potential"_a = d.potential, "total"_a = d.total,
                  "energy_error"_a = d.energy_error, "momentum"_a = d.momentum,
                  "angular_momentum"_a = d.angular_momentum, "virial_ratio"_a = d.virial_ratio);
}

}  // namespace

void bind_nbody(py::module_& parent) {
  auto m = parent.def_submodule(
      "nbody",
      "Direct-summation N-body gravity in Henon units (G = 1, total mass 1, E = -1/4 for a "
      "virialized system) with Plummer softening; leapfrog, Hermite and block-step Hermite.");
  const char* particles_doc =
      "Returns a dict: masses (N,), positions (N, 3), velocities (N, 3), float64, as `pairwise "
      "run` generates them.";
  m.def(
      "plummer",
      [](std::size_t n, std::uint64_t seed) {
        return particles_dict(as_value_error([&] { return nb::plummer(n, seed); }));
      },
      "n"_a, "seed"_a = 1,
      (std::string("A Plummer sphere of n equal masses in Henon units (virial radius 1). ") +
       particles_doc)
          .c_str());
  m.def(
      "uniform_sphere",
      [](std::size_t n, std::uint64_t seed) {
        return particles_dict(as_value_error([&] { return nb::uniform_sphere(n, seed); }));
      },
      "n"_a, "seed"_a = 1,
      (std::string("A cold homogeneous sphere of radius 1 (n equal masses). ") + particles_doc)
          .c_str());
  m.def(
      "kepler",
      [](double e, double a) {
        return particles_dict(as_value_error([&] { return nb::kepler(e, a); }));
      },
      "eccentricity"_a = 0.5, "semi_major_axis"_a = 1.0,
      (std::string("Two bodies of mass 1/2 on a Kepler orbit started at pericentre. ") +
       particles_doc)
          .c_str());
  m.def(
      "read_table",
      [](const std::string& path) {
        double t = 0;
        auto a = as_value_error([&] { return nb::read_table(path, &t); });
        auto d = particles_dict(std::move(a));
        d["time"] = t;
        return d;
      },
      "path"_a,
      "Reads a particle table (m x y z vx vy vz a line, docs/formats.md): a dict of masses, "
      "positions, velocities and the time of its header.");

  py::class_<nb::Simulation> cls(m, "Simulation",
                                 R"(A direct-summation gravity simulation on one backend.

Build it from numpy arrays (the constructor) or a TOML config (from_config); run_to(t_end,
callback=..., interval=dt) integrates with the GIL released, calling the callback at every
multiple of interval with every particle synchronized.
Errors: bad arrays or parameters raise ValueError; a failed run raises pairwise.Error
(a RuntimeError); out of memory raises MemoryError.)");
  cls.def(
      py::init([](py::object masses, py::object positions, py::object velocities,
                  const std::string& backend, const std::string& precision, double eps,
                  const std::string& integrator, double dt, double eta, double dt_max,
                  double dt_min, const std::string& potential) {
        nb::ParticleArrays a;
        a.masses = doubles(masses, "masses", -1, 0);
        const auto n = py::ssize_t(a.masses.size());
        a.positions = doubles(positions, "positions", n, 3);
        if (!velocities.is_none()) a.velocities = doubles(velocities, "velocities", n, 3);
        nb::Settings s;
        s.run = {backend_arg(backend), precision_arg(precision)};
        s.eps = eps, s.integrator = integrator, s.dt = dt, s.eta = eta, s.dt_max = dt_max;
        s.dt_min = dt_min, s.potential = potential;
        return as_value_error([&] { return std::make_unique<nb::Simulation>(a, s); });
      }),
      "masses"_a, "positions"_a, "velocities"_a = py::none(), py::kw_only(), "backend"_a = "auto",
      "precision"_a = "mixed", "eps"_a = 0.01, "integrator"_a = "hermite_block", "dt"_a = 1.0 / 128,
      "eta"_a = 0.01, "dt_max"_a = 1.0 / 16, "dt_min"_a = 1.0 / double(1ull << 40),
      "potential"_a = "",
      R"(Simulation(masses, positions, velocities=None, *, backend='auto', precision='mixed', eps=0.01, ...)

masses (N,), positions (N, 3), velocities (N, 3): float32/float64 C-contiguous arrays in Henon
units. eps: Plummer softening length. integrator: 'leapfrog' (fixed dt), 'hermite' (shared
adaptive step from eta, at most dt_max) or 'hermite_block' (individual power-of-two steps).
potential: phi(r) per unit masses as a formula in r and eps (docs/formulas.md), e.g.
'-exp(-r/2)/sqrt(r^2 + eps^2)'; '' (default) is Plummer-softened Newton.
backend 'auto' | 'reference' | 'cpu' | 'cuda'; precision 'single' | 'mixed' | 'double'.)");
  def_simulation_basics(
      cls, {"A simulation of a TOML config as `pairwise run` reads it (workload = 'nbody'); "
            "configured_t_end and configured_interval give its [run] t_end and [output] interval.",
            "Number of particles.", "The backend in use.", "The precision in use.",
            "The device in use."});
  cls.def_property_readonly("time", &nb::Simulation::time, "The current (synchronized) time.")
      .def_property_readonly("configured_t_end", &nb::Simulation::configured_t_end,
                             "from_config: [run] t_end (else 1).")
      .def_property_readonly("configured_interval", &nb::Simulation::configured_interval,
                             "from_config: [output] interval (else 0.125).")
      .def(
          "compute_forces",
          [](nb::Simulation& s) {
            nb::ForceResult r = without_gil([&] { return s.compute_forces(); });
            const auto n = py::ssize_t(s.size());
            return py::dict("accelerations"_a = adopt(std::move(r.accelerations), n, 3),
                            "potentials"_a = adopt(std::move(r.potentials), n));
          },
          "Accelerations (N, 3) and potentials phi (N,) of the current state, in a dict.")
      .def(
          "diagnostics", [](nb::Simulation& s) { return diagnostics_dict(s.diagnostics()); },
          "The diagnostic row of `pairwise run`: time, steps, kinetic K, potential W, total E, "
          "energy_error (E - E0)/|E0|, momentum |p|, angular_momentum |L|, virial_ratio 2K/|W|.")
      .def(
          "state", [](const nb::Simulation& s) { return particles_dict(s.state()); },
          "The current state: a dict of masses (N,), positions (N, 3), velocities (N, 3).")
      .def(
          "run_to",
          [](nb::Simulation& s, double t_end, py::object callback, double interval,
             bool diagnostics) -> py::object {
            check_callback(callback);
            TimeObservers observers;
            std::vector<nb::DiagnosticsRow> rows;
            if (diagnostics) {
              rows.push_back(s.diagnostics());
              observers.push_back({interval, [&](double) { rows.push_back(s.diagnostics()); }});
            }
            if (!callback.is_none())
              observers.push_back({interval, [&](double t) {
                                     py::gil_scoped_acquire hold;
                                     auto st = s.state();
                                     call_with_views(callback, t, std::move(st.positions),
                                                     std::move(st.velocities));
                                   }});
            without_gil([&] { s.run_to(t_end, observers); });
            if (!diagnostics) return py::none();
            using Row = nb::DiagnosticsRow;
            return row_table<Row>(rows, {{"time", &Row::time},
                                         {"steps", &Row::steps},
                                         {"kinetic", &Row::kinetic},
                                         {"potential", &Row::potential},
                                         {"total", &Row::total},
                                         {"energy_error", &Row::energy_error},
                                         {"momentum", &Row::momentum},
                                         {"angular_momentum", &Row::angular_momentum},
                                         {"virial_ratio", &Row::virial_ratio}});
          },
          "t_end"_a, "callback"_a = py::none(), "interval"_a = 0.125, "diagnostics"_a = true,
          R"(Integrates to t_end with the GIL released.

callback(t, positions, velocities) is called at every multiple of `interval` (from t = 0) and at
t_end, with read-only (N, 3) float64 views of the synchronized state; an exception it raises stops
the run there and reaches the caller. With diagnostics=True (default) returns the diagnostic rows
(the current one first, then one per interval) as a dict of numpy columns: time, steps, kinetic,
potential, total, energy_error, momentum, angular_momentum, virial_ratio. Block time steps need
t_end and interval to be multiples of dt_max.)");
}

}  // namespace pairwise::python
