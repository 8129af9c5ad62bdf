// numpy <-> the public API's vectors, with the checks the package documents: float32 or float64,
// C-contiguous, the expected shape, finite values. Violations raise ValueError naming the argument.
// Library errors: pairwise::Error from building or configuring raises ValueError (bad input); from
// a run, RuntimeError; "out of memory" (host or device) raises MemoryError.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pairwise/types.hpp"

namespace pairwise::python {

namespace py = pybind11;

// The shape the caller must pass: rows (-1: any) × cols (0: a 1-D array).
std::vector<double> doubles(const py::handle& obj, const char* name, py::ssize_t rows,
                            py::ssize_t cols, bool finite = true);
// A 1-D integer array (any integer dtype, C-contiguous), length `rows` (-1: any).
std::vector<long long> integers(const py::handle& obj, const char* name, py::ssize_t rows);

// A read-only (rows, cols) float64 view of `data`, which the array keeps alive (no copy).
py::array_t<double> view(std::shared_ptr<std::vector<double>> data, py::ssize_t rows,
                         py::ssize_t cols);
// A float64 array that takes the vector over (no copy): (rows, cols), or 1-D when cols == 0.
py::array_t<double> adopt(std::vector<double>&& v, py::ssize_t rows, py::ssize_t cols = 0);
template <class T>
py::array_t<T> adopt_as(std::vector<T>&& v, py::ssize_t rows, py::ssize_t cols = 0) {
  auto* owner = new std::vector<T>(std::move(v));
  py::capsule free_it(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  if (cols == 0) return py::array_t<T>({rows}, {py::ssize_t(sizeof(T))}, owner->data(), free_it);
  return py::array_t<T>({rows, cols}, {py::ssize_t(sizeof(T)) * cols, py::ssize_t(sizeof(T))},
                        owner->data(), free_it);
}

BackendKind backend_arg(const std::string& text);
Precision precision_arg(const std::string& text);
PeriodicBox box_arg(const py::handle& box);  // (3,) lengths from 0, or (2, 3) [lo, hi]
py::tuple box_out(const PeriodicBox& b);     // ((lo...), (hi...))

// Whether a library message reports memory exhaustion (host or GPU): "out of memory", "out of
// GPU memory: needed N bytes", "problem too large for GPU memory", "lattice ... needs N bytes of
// host memory", "not enough device memory ...". These raise MemoryError.
bool is_memory_error(const std::string& what);

// Runs f, turning pairwise::Error into ValueError (for constructors and setters).
template <class F>
auto as_value_error(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (is_memory_error(e.what())) throw;
    throw py::value_error(e.what());
  }
}

// Runs a long computation with the GIL released; an exception from a Python callback inside comes
// back with its original type.
template <class F>
auto without_gil(F&& f) -> decltype(f()) {
  py::gil_scoped_release release;
  return f();
}

// An observer's callback that calls `fn` with the GIL held (the run releases it).
Observer python_observer(std::int64_t every, std::function<void(std::int64_t)> with_gil);

void register_exceptions(py::module_& m);

}  // namespace pairwise::python
