#include "arrays.hpp"

#include <new>

namespace pairwise::python {

namespace {

std::string shape_text(py::ssize_t rows, py::ssize_t cols) {
  const std::string r = rows < 0 ? "N" : std::to_string(rows);
  return cols == 0 ? "(" + r + ",)" : "(" + r + ", " + std::to_string(cols) + ")";
}

void check_layout(const py::array& a, const char* name, py::ssize_t rows, py::ssize_t cols) {
  const py::ssize_t ndim = cols == 0 ? 1 : 2;
  const bool shape_ok =
      a.ndim() == ndim && (rows < 0 || a.shape(0) == rows) && (cols == 0 || a.shape(1) == cols);
  if (!shape_ok) {
    std::string got = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) got += (d ? ", " : "") + std::to_string(a.shape(d));
    throw py::value_error(std::string(name) + " must have shape " + shape_text(rows, cols) +
                          ", got " + got + (a.ndim() == 1 ? ",)" : ")"));
  }
  if (!(a.flags() & py::array::c_style))
    throw py::value_error(std::string(name) +
                          " must be C-contiguous (use numpy.ascontiguousarray)");
}

}  // namespace

std::vector<double> doubles(const py::handle& obj, const char* name, py::ssize_t rows,
                            py::ssize_t cols, bool finite) {
  if (!py::isinstance<py::array>(obj))
    throw py::value_error(std::string(name) + " must be a numpy array of float32 or float64");
  const auto a = py::reinterpret_borrow<py::array>(obj);
  const auto dt = a.dtype();
  if (dt.kind() != 'f' || (dt.itemsize() != 4 && dt.itemsize() != 8))
    throw py::value_error(std::string(name) + " must have dtype float32 or float64, got " +
                          py::str(py::handle(dt)).cast<std::string>());
  check_layout(a, name, rows, cols);
  const std::size_t n = std::size_t(a.size());
  std::vector<double> out(n);
  if (dt.itemsize() == 8) {
    const double* p = static_cast<const double*>(a.data());
    std::copy(p, p + n, out.begin());
  } else {
    const float* p = static_cast<const float*>(a.data());
    std::copy(p, p + n, out.begin());
  }
  if (finite)
    for (std::size_t i = 0; i < n; ++i)
      if (!std::isfinite(out[i]))
        throw py::value_error(std::string(name) + " must be finite (NaN or inf at flat index " +
                              std::to_string(i) + ")");
  return out;
}

std::vector<long long> integers(const py::handle& obj, const char* name, py::ssize_t rows) {
  if (!py::isinstance<py::array>(obj))
    throw py::value_error(std::string(name) + " must be a numpy array of integers");
  const auto a = py::reinterpret_borrow<py::array>(obj);
  const auto dt = a.dtype();
  if (dt.kind() != 'i' && dt.kind() != 'u')
    throw py::value_error(std::string(name) + " must have an integer dtype, got " +
                          py::str(py::handle(dt)).cast<std::string>());
  check_layout(a, name, rows, 0);
  const auto converted = py::array_t<long long, py::array::c_style | py::array::forcecast>(a);
  const long long* p = converted.data();
  return std::vector<long long>(p, p + converted.size());
}

py::array_t<double> view(std::shared_ptr<std::vector<double>> data, py::ssize_t rows,
                         py::ssize_t cols) {
  auto* keep = new std::shared_ptr<std::vector<double>>(data);
  py::capsule owner(keep,
                    [](void* p) { delete static_cast<std::shared_ptr<std::vector<double>>*>(p); });
  py::array_t<double> a({rows, cols},
                        {py::ssize_t(sizeof(double)) * cols, py::ssize_t(sizeof(double))},
                        data->data(), owner);
  a.attr("flags").attr("writeable") = false;
  return a;
}

py::array_t<double> adopt(std::vector<double>&& v, py::ssize_t rows, py::ssize_t cols) {
  return adopt_as<double>(std::move(v), rows, cols);
}

BackendKind backend_arg(const std::string& text) {
  return as_value_error([&] { return parse_backend(text); });
}

Precision precision_arg(const std::string& text) {
  return as_value_error([&] { return parse_precision(text); });
}

PeriodicBox box_arg(const py::handle& box) {
  const py::array a = py::array::ensure(box);
  if (!a) throw py::value_error("box must be array-like: (3,) lengths or (2, 3) [lo, hi]");
  PeriodicBox b;
  if (a.ndim() == 1) {
    const auto v =
        doubles(py::array_t<double, py::array::c_style | py::array::forcecast>(a), "box", 3, 0);
    for (int d = 0; d < 3; ++d) b.lo[d] = 0, b.hi[d] = v[d];
  } else {
    const auto v =
        doubles(py::array_t<double, py::array::c_style | py::array::forcecast>(a), "box", 2, 3);
    for (int d = 0; d < 3; ++d) b.lo[d] = v[d], b.hi[d] = v[3 + d];
  }
  for (int d = 0; d < 3; ++d)
    if (!(b.hi[d] > b.lo[d])) throw py::value_error("box hi must exceed lo in every dimension");
  return b;
}

py::tuple box_out(const PeriodicBox& b) {
  return py::make_tuple(py::make_tuple(b.lo[0], b.lo[1], b.lo[2]),
                        py::make_tuple(b.hi[0], b.hi[1], b.hi[2]));
}

Observer python_observer(std::int64_t every, std::function<void(std::int64_t)> with_gil) {
  return Observer{every, [fn = std::move(with_gil)](std::int64_t step) {
                    py::gil_scoped_acquire hold;
                    fn(step);
                  }};
}

bool is_memory_error(const std::string& what) {
  if (what.find("memory") == std::string::npos) return false;
  for (const char* phrase : {"out of", "too large", "needs", "not enough"})
    if (what.find(phrase) != std::string::npos) return true;
  return false;
}

void register_exceptions(py::module_& m) {
  // Created once and kept for the life of the interpreter (no static py::object destructor).
  static PyObject* error = PyErr_NewExceptionWithDoc(
      "pairwise.Error", "A pairwise run failed: a RuntimeError carrying the library's message.",
      PyExc_RuntimeError, nullptr);
  m.attr("Error") = py::reinterpret_borrow<py::object>(error);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      const std::string what = e.what();
      if (is_memory_error(what))
        PyErr_SetString(PyExc_MemoryError, what.c_str());
      else if (dynamic_cast<const InvalidArgument*>(&e))
        PyErr_SetString(PyExc_ValueError, what.c_str());
      else
        PyErr_SetString(error, what.c_str());
    }
  });
}

}  // namespace pairwise::python
