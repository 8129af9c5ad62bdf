// The extension module pairwise._pairwise: one submodule per workload (bound in <workload>.cpp),
// each a thin client of the public C++ API (include/pairwise/).
#include <pybind11/stl.h>

#include "arrays.hpp"

namespace pairwise::python {
void bind_md(py::module_& m);
void bind_nbody(py::module_& m);
void bind_fredholm(py::module_& m);
void bind_ljc(py::module_& m);
void bind_potmap(py::module_& m);
}  // namespace pairwise::python

PYBIND11_MODULE(_pairwise, m) {
  namespace pw = pairwise::python;
  m.doc() = "pairwise: pair-interaction simulations (nbody, md, ljc, potmap, fredholm).";
  m.attr("__version__") = PAIRWISE_VERSION;
  pw::register_exceptions(m);
  m.def(
      "cuda_available", [] { return !pairwise::cuda_devices().empty(); },
      "True when this build has the CUDA backend and a usable device.");
  pw::bind_md(m);
  pw::bind_nbody(m);
  pw::bind_fredholm(m);
  pw::bind_ljc(m);
  pw::bind_potmap(m);
}
