#include "nbody/custom_gravity.hpp"

#include <cmath>
#include <vector>

#include "engine/formula/parser.hpp"
#include "nbody/backends.hpp"
#include "nbody/host_kernel.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

CustomGravity::CustomGravity(const std::string& potential, double eps, const std::string& label,
                             const std::string& where)
    : text_(potential) {
  using formula::Op;
  formula::Graph& g = graph_;
  try {
    formula::Scope scope;
    scope.variables = {"__r2", "r"};
    scope.parameters = {{"eps", eps}};
    const formula::NodeId phi = formula::parse(g, potential, scope);
    const formula::NodeId r = g.variable(1);
    const formula::NodeId gr = g.div(g.derivative(phi, 1), r);                       // φ′/r
    const formula::NodeId dg = g.div(g.derivative(gr, 1), g.mul(g.constant(2), r));  // dG/d(r²)
    // Finite at a typical distance and at the softening length (a kernel singular everywhere is
    // a bad formula, not a close encounter).
    for (double at : {1.0, eps > 0 ? eps : 0.5}) {
      std::vector<double> out;
      g.evaluate({phi, gr, dg}, {at * at, at}, out, true);
      for (double v : out)
        if (!std::isfinite(v))
          throw formula::FormulaError("non-finite value at r = " + std::to_string(at), 0);
    }
    const formula::NodeId sqrt_r2 = g.unary(Op::sqrt, g.variable(0));
    phi_ = g.substitute(phi, 1, sqrt_r2);
    g_ = g.substitute(gr, 1, sqrt_r2);
    dg_ = g.substitute(dg, 1, sqrt_r2);
  } catch (const formula::FormulaError& e) {
    throw Error(e.describe(label), where);
  }
  program_ = formula::Program(g, {phi_, g_, dg_});
}

void CustomGravity::reference(double r2, double& phi, double& g, double& dg) const {
  thread_local std::vector<double> out;
  graph_.evaluate({phi_, g_, dg_}, {r2}, out);
  phi = out[0], g = out[1], dg = out[2];
}

formula::RadialProgram CustomGravity::radial() const {
  return formula::radial_program(graph_, {phi_, g_, dg_}, 0);
}

namespace {

// Both host backends: per target, the sources' r² in batches; reference walks the graph per pair
// in double, cpu runs the compiled program per batch (double: FP64 arithmetic, single and mixed:
// FP32 kernel values, FP64 sums).
class CustomGravityKernel final : public HostGravityKernel {
 public:
  CustomGravityKernel(const KernelOptions& o, BackendKind backend)
      : HostGravityKernel(o), backend_(backend) {}
  std::string device_name() const override {
    return std::string(backend_ == BackendKind::reference ? "reference" : "cpu") +
           ": host, custom potential " + options_.custom->text();
  }
  BackendKind backend() const override { return backend_; }
  Precision precision() const override {
    return backend_ == BackendKind::reference ? Precision::double_ : options_.precision;
  }

 protected:
  void evaluate(const Particles& s, const Particles& t, std::span<const int> self, ForceKind kind,
                Forces& out) override {
    const long nt = static_cast<long>(t.size());
    const long ns = static_cast<long>(s.size());
    const bool jerk = kind == ForceKind::accel_jerk;
    const bool fp32 = backend_ == BackendKind::cpu && options_.precision != Precision::double_;
    const CustomGravity& cg = *options_.custom;
    out.resize(t.size(), jerk);
#pragma omp parallel
    {
      constexpr int B = formula::Program::batch;
      std::vector<double> r2(B), phi(B), g(B), dg(B), scratch;
      std::vector<float> r2f(B), phif(B), gf(B), dgf(B), scratchf;
      std::vector<long> js(B);
#pragma omp for schedule(dynamic, 16)
      for (long k = 0; k < nt; ++k) {
        double ax = 0, ay = 0, az = 0, jx = 0, jy = 0, jz = 0, pot = 0;
        auto flush = [&](int m) {
          if (backend_ == BackendKind::reference) {
            for (int q = 0; q < m; ++q) cg.reference(r2[q], phi[q], g[q], dg[q]);
          } else if (fp32) {
            for (int q = 0; q < m; ++q) r2f[q] = float(r2[q]);
            const float* in = r2f.data();
            float* o[] = {phif.data(), gf.data(), dgf.data()};
            cg.program().run(&in, m, o, scratchf);
            for (int q = 0; q < m; ++q) phi[q] = phif[q], g[q] = gf[q], dg[q] = dgf[q];
          } else {
            const double* in = r2.data();
            double* o[] = {phi.data(), g.data(), dg.data()};
            cg.program().run(&in, m, o, scratch);
          }
          for (int q = 0; q < m; ++q) {
            const long j = js[std::size_t(q)];
            const double dx = s.x[j] - t.x[k], dy = s.y[j] - t.y[k], dz = s.z[j] - t.z[k];
            const double mg = s.m[j] * g[q];
            ax += mg * dx, ay += mg * dy, az += mg * dz;
            pot += s.m[j] * phi[q];
            if (jerk) {
              const double dvx = s.vx[j] - t.vx[k], dvy = s.vy[j] - t.vy[k],
                           dvz = s.vz[j] - t.vz[k];
              const double c = 2 * s.m[j] * dg[q] * (dx * dvx + dy * dvy + dz * dvz);
              jx += mg * dvx + c * dx, jy += mg * dvy + c * dy, jz += mg * dvz + c * dz;
            }
          }
        };
        int m = 0;
        for (long j = 0; j < ns; ++j) {
          if (j == self[k]) continue;
          const double dx = s.x[j] - t.x[k], dy = s.y[j] - t.y[k], dz = s.z[j] - t.z[k];
          r2[std::size_t(m)] = dx * dx + dy * dy + dz * dz;
          js[std::size_t(m)] = j;
          if (++m == B) flush(m), m = 0;
        }
        if (m) flush(m);
        out.ax[k] = ax, out.ay[k] = ay, out.az[k] = az, out.pot[k] = pot;
        if (jerk) out.jx[k] = jx, out.jy[k] = jy, out.jz[k] = jz;
      }
    }
  }

 private:
  BackendKind backend_;
};

}  // namespace

std::unique_ptr<GravityKernel> make_custom_gravity_kernel(BackendKind backend,
                                                          const KernelOptions& options) {
  if (backend == BackendKind::cuda) {
#ifdef PAIRWISE_HAVE_CUDA
    return make_cuda_gravity_kernel(options);
#else
    throw Error("the cuda backend is not in this build (configure with nvcc present)", "backend");
#endif
  }
  return std::make_unique<CustomGravityKernel>(options, backend);
}

}  // namespace pairwise::nbody
