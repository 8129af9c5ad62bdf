// The glue that the Simulation classes of pairwise.md, pairwise.ljc and pairwise.nbody share: the
// read-only views a run's callback receives, the observers of a step-counted run() and the dict of
// numpy columns that the collected thermo or diagnostic rows become.
#pragma once

#include <functional>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

#include "arrays.hpp"

namespace pairwise::python {

using namespace pybind11::literals;

// Raises ValueError unless `callback` is None or callable.
inline void check_callback(const py::object& callback) {
  if (!callback.is_none() && !PyCallable_Check(callback.ptr()))
    throw py::value_error("callback must be callable");
}

// callback(at, positions, velocities) with read-only (N, 3) float64 views that keep the state's
// vectors alive (no copy). Call it with the GIL held.
template <class At>
void call_with_views(const py::object& callback, At at, std::vector<double>&& positions,
                     std::vector<double>&& velocities) {
  const auto n = py::ssize_t(positions.size() / 3);
  auto x = std::make_shared<std::vector<double>>(std::move(positions));
  auto v = std::make_shared<std::vector<double>>(std::move(velocities));
  callback(at, view(x, n, 3), view(v, n, 3));
}

// The observers of Simulation.run(steps, callback, every, thermo_every) (md, ljc): the thermo row
// now and after every thermo_every steps into `rows` (none when thermo_every is 0), and
// callback(step, positions, velocities) after every `every` steps (none when it is None).
template <class Simulation, class Row>
Observers step_observers(Simulation& s, const py::object& callback, std::int64_t every,
                         std::int64_t thermo_every, std::vector<Row>& rows) {
  Observers observers;
  if (thermo_every > 0) {
    rows.push_back(s.thermo());
    observers.push_back({thermo_every, [&](std::int64_t) { rows.push_back(s.thermo()); }});
  }
  if (!callback.is_none())
    observers.push_back(python_observer(every, [&s, &callback](std::int64_t step) {
      auto st = s.state();
      call_with_views(callback, step, std::move(st.positions), std::move(st.velocities));
    }));
  return observers;
}

// The docstrings of a Simulation's shared members, which each workload words for its own units.
struct SimulationDocs {
  const char* from_config;
  const char* size;
  const char* backend;
  const char* precision;
  const char* device_name;
};

// Simulation.from_config(path) (a bad file raises ValueError), size and len(), and the backend,
// precision and device_name properties: the members every workload's Simulation has.
template <class Simulation>
void def_simulation_basics(py::class_<Simulation>& cls, const SimulationDocs& docs) {
  cls.def_static(
         "from_config",
         [](const std::string& path) {
           return as_value_error([&] { return Simulation::from_config(path); });
         },
         "path"_a, docs.from_config)
      .def_property_readonly("size", &Simulation::size, docs.size)
      .def("__len__", &Simulation::size)
      .def_property_readonly(
          "backend", [](const Simulation& s) { return std::string(to_string(s.backend())); },
          docs.backend)
      .def_property_readonly(
          "precision", [](const Simulation& s) { return std::string(to_string(s.precision())); },
          docs.precision)
      .def_property_readonly("device_name", &Simulation::device_name, docs.device_name);
}

// One numpy column of a table of rows: its name and the member of Row it holds (as float64).
template <class Row>
struct Column {
  const char* name;
  std::function<double(const Row&)> get;
  template <class T>
  Column(const char* column_name, T Row::*member)
      : name(column_name), get([member](const Row& r) { return double(r.*member); }) {}
};

// The rows as a dict of 1-D float64 columns, in the order of `columns`.
template <class Row>
py::dict row_table(const std::vector<Row>& rows, std::initializer_list<Column<Row>> columns) {
  py::dict table;
  for (const auto& column : columns) {
    std::vector<double> values;
    values.reserve(rows.size());
    for (const auto& r : rows) values.push_back(column.get(r));
    table[column.name] = adopt(std::move(values), py::ssize_t(rows.size()));
  }
  return table;
}

}  // namespace pairwise::python
