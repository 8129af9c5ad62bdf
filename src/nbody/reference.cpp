// The reference backend: double precision, plain loops over all pairs, the oracle every other
// backend is tested against. Parallel over targets only, so results do not depend on the thread
// count.
#include "nbody/backends.hpp"
#include "nbody/host_kernel.hpp"
#include "pairwise/physics/gravity.hpp"

namespace pairwise::nbody {
namespace {

class ReferenceGravityKernel final : public HostGravityKernel {
 public:
  explicit ReferenceGravityKernel(const KernelOptions& options) : HostGravityKernel(options) {}
  std::string device_name() const override { return "reference: host, double, plain loops"; }
  BackendKind backend() const override { return BackendKind::reference; }
  Precision precision() const override { return Precision::double_; }

 protected:
  void evaluate(const Particles& s, const Particles& t, std::span<const int> self, ForceKind kind,
                Forces& out) override {
    const long n_targets = static_cast<long>(t.size());
    const long n_sources = static_cast<long>(s.size());
    const bool jerk = kind == ForceKind::accel_jerk;
    const double eps2 = options_.eps2;
    out.resize(t.size(), jerk);
#pragma omp parallel for schedule(dynamic, 16)
    for (long k = 0; k < n_targets; ++k) {
      physics::AccelJerk<double> acc;
      for (long j = 0; j < n_sources; ++j) {
        if (j == self[k]) continue;
        physics::accumulate_accel_jerk<false>(s.x[j] - t.x[k], s.y[j] - t.y[k], s.z[j] - t.z[k],
                                              s.vx[j] - t.vx[k], s.vy[j] - t.vy[k],
                                              s.vz[j] - t.vz[k], s.m[j], eps2, acc);
      }
      out.ax[k] = acc.ax, out.ay[k] = acc.ay, out.az[k] = acc.az, out.pot[k] = acc.pot;
      if (jerk) out.jx[k] = acc.jx, out.jy[k] = acc.jy, out.jz[k] = acc.jz;
    }
  }
};

}  // namespace

std::unique_ptr<GravityKernel> make_reference_gravity_kernel(const KernelOptions& options) {
  return std::make_unique<ReferenceGravityKernel>(options);
}

}  // namespace pairwise::nbody
