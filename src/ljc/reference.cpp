// The reference ljc backend: double precision, plain loops over every ordered pair (i, j != i), the
// scale of each pair looked up in the atom's sorted exclusion/1-4 row. Parallel over targets only,
// each target's sums in a fixed order, so results do not depend on the thread count.
#include <algorithm>
#include <vector>

#include "ljc/backends.hpp"
#include "ljc/host_kernel.hpp"

namespace pairwise::ljc {
namespace {

class ReferenceLjcKernel final : public HostLjcKernel {
 public:
  using HostLjcKernel::HostLjcKernel;
  std::string device_name() const override { return "reference: host, double, plain loops"; }
  BackendKind backend() const override { return BackendKind::reference; }
  Precision precision() const override { return Precision::double_; }

 protected:
  void nonbonded(LjcForces& out) override {
    with_dielectric(system_.dielectric, [&](auto d) { loop<decltype(d)::value>(out); });
  }

 private:
  template <physics::DielectricKind D>
  void loop(LjcForces& out) {
    const long n = static_cast<long>(system_.n);
    std::vector<double> e_lj(n), e_c(n);
    const PreparedSystem& s = system_;
#pragma omp parallel for schedule(dynamic, 16)
    for (long i = 0; i < n; ++i) {
      double f[3] = {0, 0, 0}, elj = 0, ec = 0;
      const ScaledPair* begin = s.pairs.data() + s.row[i];
      const ScaledPair* end = s.pairs.data() + s.row[i + 1];
      for (long j = 0; j < n; ++j) {
        if (j == i) continue;
        double sl = 1, sc = 1;
        const ScaledPair* p =
            std::lower_bound(begin, end, j, [](const ScaledPair& a, long jj) { return a.j < jj; });
        if (p != end && p->j == j) sl = p->lj, sc = p->coulomb;
        if (sl == 0 && sc == 0) continue;
        const double d[3] = {x_[i] - x_[j], y_[i] - y_[j], z_[i] - z_[j]};
        const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        const auto t =
            physics::ljc_pair_scaled<D, double>(r2, s.atoms[i], s.atoms[j], sl, sc, s.sigmoidal);
        for (int c = 0; c < 3; ++c) f[c] += t.force_over_r * d[c];
        elj += t.lj, ec += t.coulomb;
      }
      out.fx[i] += f[0], out.fy[i] += f[1], out.fz[i] += f[2];
      e_lj[i] = elj, e_c[i] = ec;
    }
    for (long i = 0; i < n; ++i) out.lj += 0.5 * e_lj[i], out.coulomb += 0.5 * e_c[i];
  }
};

}  // namespace

std::unique_ptr<LjcKernel> make_reference_ljc_kernel(const LjcKernelOptions& options) {
  return std::make_unique<ReferenceLjcKernel>(options);
}

}  // namespace pairwise::ljc
