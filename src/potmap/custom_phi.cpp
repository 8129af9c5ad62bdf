#include "potmap/custom_phi.hpp"

#include <chrono>
#include <cmath>
#include <vector>

#include "engine/formula/parser.hpp"
#include "pairwise/error.hpp"
#include "potmap/cuda_map.hpp"
#include "potmap/map.hpp"

namespace pairwise::potmap {

CustomPhi::CustomPhi(const std::string& phi, double cutoff, const std::string& label,
                     const std::string& where)
    : text_(phi) {
  try {
    formula::Scope scope;
    scope.variables = {"__r2", "r"};
    if (cutoff > 0) scope.parameters["rc"] = cutoff;
    const formula::NodeId f = formula::parse(graph_, phi, scope);
    const double at = cutoff > 0 ? cutoff : 10.0;  // Å: finite at rc (or at 10 Å)
    if (!std::isfinite(graph_.evaluate(f, {at * at, at}, true)))
      throw formula::FormulaError("non-finite value at r = " + std::to_string(at), 0);
    node_ = graph_.substitute(f, 1, graph_.unary(formula::Op::sqrt, graph_.variable(0)));
  } catch (const formula::FormulaError& e) {
    throw Error(e.describe(label), where);
  }
  program_ = formula::Program(graph_, {node_});
}

MapResult custom_map(BackendKind backend, const Atoms& atoms, const Lattice& lattice,
                     const MapOptions& options) {
  if (backend == BackendKind::cuda) return cuda_map(atoms, lattice, options);  // NVRTC kernels
  if (backend != BackendKind::reference && backend != BackendKind::cpu)
    throw Error("custom_map needs a resolved backend, not auto", "backend");
  const auto start = std::chrono::steady_clock::now();
  const CustomPhi& phi = *options.custom;
  const bool reference = backend == BackendKind::reference;
  const bool fp32 = !reference && options.precision != Precision::double_;
  const double rc2 = options.cutoff > 0 ? options.cutoff * options.cutoff : INFINITY;
  MapResult r;
  r.backend = backend;
  r.precision = reference ? Precision::double_ : options.precision;
  r.device = reference ? "reference, custom phi" : "cpu, custom phi";
  const auto& n = lattice.counts;
  r.values.assign(lattice.size(), 0.0);
  const long planes = long(n[0]);
#pragma omp parallel
  {
    constexpr int B = formula::Program::batch;
    std::vector<double> r2(B), v(B), scratch;
    std::vector<float> r2f(B), vf(B), scratchf;
    std::vector<double> q(B);
#pragma omp for schedule(dynamic, 1)
    for (long i = 0; i < planes; ++i)
      for (std::size_t j = 0; j < n[1]; ++j)
        for (std::size_t k = 0; k < n[2]; ++k) {
          const double px = lattice.coord(0, std::size_t(i)), py = lattice.coord(1, j),
                       pz = lattice.coord(2, k);
          double sum = 0;
          int m = 0;
          auto flush = [&] {
            if (reference) {
              for (int s = 0; s < m; ++s) v[std::size_t(s)] = phi.reference(r2[std::size_t(s)]);
            } else if (fp32) {
              for (int s = 0; s < m; ++s) r2f[std::size_t(s)] = float(r2[std::size_t(s)]);
              const float* in = r2f.data();
              float* out = vf.data();
              phi.program().run(&in, m, &out, scratchf);
              for (int s = 0; s < m; ++s) v[std::size_t(s)] = vf[std::size_t(s)];
            } else {
              const double* in = r2.data();
              double* out = v.data();
              phi.program().run(&in, m, &out, scratch);
            }
            for (int s = 0; s < m; ++s) sum += q[std::size_t(s)] * v[std::size_t(s)];
            m = 0;
          };
          for (std::size_t a = 0; a < atoms.size(); ++a) {
            const double dx = px - atoms.x[a], dy = py - atoms.y[a], dz = pz - atoms.z[a];
            const double d2 = dx * dx + dy * dy + dz * dz;
            if (!(d2 < rc2) || d2 == 0) continue;  // a point on an atom gets nothing from it
            r2[std::size_t(m)] = d2, q[std::size_t(m)] = atoms.q[a];
            if (++m == B) flush();
          }
          if (m) flush();
          r.values[(std::size_t(i) * n[1] + j) * n[2] + k] = sum;
        }
  }
  apply_exclusions(atoms, lattice, options.exclusion, r.values);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace pairwise::potmap
