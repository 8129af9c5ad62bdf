// The cpu ljc backend: OpenMP over targets, the j loop vectorized with `omp simd` over
// structure-of-arrays copies of the atoms. Exclusions and 1-4 pairs are per-pair weights: each
// thread keeps two arrays w_lj[j], w_c[j] (all 1), sets the few entries of its target's exclusion
// row (0 for excluded pairs and the target itself, the 1-4 factors for 1-4 pairs) before the loop
// and resets them after, so the vector loop has no lookups and no branches. Precisions:
//   single  float positions, pair arithmetic and sums;
//   mixed   double positions, the offset d formed in double and rounded to float, float pair
//           arithmetic, float partial sums over kBlock sources added into double;
//   double  double throughout.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "ljc/backends.hpp"
#include "ljc/host_kernel.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define PW_LJC_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define PW_LJC_CLONES __attribute__((flatten))
#endif

namespace pairwise::ljc {
namespace {

constexpr long kBlock = 256;

template <Precision P>
struct Types {
  using Pair = std::conditional_t<P == Precision::double_, double, float>;
  using Pos = std::conditional_t<P == Precision::single, float, double>;
  using Sum = std::conditional_t<P == Precision::single, float, double>;
};

template <Precision P>
struct Atoms {
  using T = typename Types<P>::Pair;
  using X = typename Types<P>::Pos;
  std::vector<X> x, y, z;
  std::vector<T> q, hs, se;
};

struct Partial {
  double f[3], lj, c;
};

// Sums of target i over sources [j0, j1), weights applied.
template <physics::DielectricKind D, Precision P>
PW_LJC_CLONES Partial block_sum(
    const typename Types<P>::Pos* __restrict x, const typename Types<P>::Pos* __restrict y,
    const typename Types<P>::Pos* __restrict z, const typename Types<P>::Pair* __restrict q,
    const typename Types<P>::Pair* __restrict hs, const typename Types<P>::Pair* __restrict se,
    const typename Types<P>::Pair* __restrict wl, const typename Types<P>::Pair* __restrict wc,
    long j0, long j1, typename Types<P>::Pos xi, typename Types<P>::Pos yi,
    typename Types<P>::Pos zi, physics::LjcAtom<typename Types<P>::Pair> ai,
    physics::SigmoidalTerms<typename Types<P>::Pair> sig) {
  using T = typename Types<P>::Pair;
  T fx = 0, fy = 0, fz = 0, elj = 0, ec = 0;
#pragma omp simd reduction(+ : fx, fy, fz, elj, ec)
  for (long j = j0; j < j1; ++j) {
    const T dx = static_cast<T>(xi - x[j]);
    const T dy = static_cast<T>(yi - y[j]);
    const T dz = static_cast<T>(zi - z[j]);
    const T r2 = dx * dx + dy * dy + dz * dz;
    const physics::LjcAtom<T> aj{q[j], hs[j], se[j]};
    const auto t = physics::ljc_pair_scaled<D, T>(r2, ai, aj, wl[j], wc[j], sig);
    fx += t.force_over_r * dx, fy += t.force_over_r * dy, fz += t.force_over_r * dz;
    elj += t.lj, ec += t.coulomb;
  }
  return {{double(fx), double(fy), double(fz)}, double(elj), double(ec)};
}

template <Precision P>
class CpuLjcKernel final : public HostLjcKernel {
 public:
  using HostLjcKernel::HostLjcKernel;
  std::string device_name() const override {
    return "cpu: host, OpenMP, " + std::to_string(cpu_threads()) + " threads";
  }
  BackendKind backend() const override { return BackendKind::cpu; }
  Precision precision() const override { return P; }

 protected:
  void nonbonded(LjcForces& out) override {
    with_dielectric(system_.dielectric, [&](auto d) { loop<decltype(d)::value>(out); });
  }

 private:
  using T = typename Types<P>::Pair;
  using X = typename Types<P>::Pos;
  using S = typename Types<P>::Sum;

  template <physics::DielectricKind D>
  void loop(LjcForces& out) {
    const long n = static_cast<long>(system_.n);
    const PreparedSystem& s = system_;
    Atoms<P> a;
    a.x.assign(x_.begin(), x_.end()), a.y.assign(y_.begin(), y_.end());
    a.z.assign(z_.begin(), z_.end());
    a.q.resize(n), a.hs.resize(n), a.se.resize(n);
    for (long i = 0; i < n; ++i) {
      a.q[i] = T(s.atoms[i].q), a.hs[i] = T(s.atoms[i].half_sigma),
      a.se[i] = T(s.atoms[i].sqrt_eps);
    }
    const physics::SigmoidalTerms<T> sig{T(s.sigmoidal.alpha), T(s.sigmoidal.beta),
                                         T(s.sigmoidal.gamma), T(s.sigmoidal.delta)};
    std::vector<double> e_lj(n), e_c(n);
#pragma omp parallel
    {
      std::vector<T> wl(n, T(1)), wc(n, T(1));
#pragma omp for schedule(dynamic, 8)
      for (long i = 0; i < n; ++i) {
        const ScaledPair* begin = s.pairs.data() + s.row[i];
        const ScaledPair* end = s.pairs.data() + s.row[i + 1];
        for (const ScaledPair* p = begin; p != end; ++p)
          wl[p->j] = T(p->lj), wc[p->j] = T(p->coulomb);
        wl[i] = 0, wc[i] = 0;
        const physics::LjcAtom<T> ai{a.q[i], a.hs[i], a.se[i]};
        S f[3] = {0, 0, 0}, elj = 0, ec = 0;
        for (long j0 = 0; j0 < n; j0 += kBlock) {
          const Partial b = block_sum<D, P>(
              a.x.data(), a.y.data(), a.z.data(), a.q.data(), a.hs.data(), a.se.data(), wl.data(),
              wc.data(), j0, std::min(n, j0 + kBlock), a.x[i], a.y[i], a.z[i], ai, sig);
          for (int c = 0; c < 3; ++c) f[c] += S(b.f[c]);
          elj += S(b.lj), ec += S(b.c);
        }
        for (const ScaledPair* p = begin; p != end; ++p) wl[p->j] = 1, wc[p->j] = 1;
        wl[i] = 1, wc[i] = 1;
        out.fx[i] += double(f[0]), out.fy[i] += double(f[1]), out.fz[i] += double(f[2]);
        e_lj[i] = double(elj), e_c[i] = double(ec);
      }
    }
    for (long i = 0; i < n; ++i) out.lj += 0.5 * e_lj[i], out.coulomb += 0.5 * e_c[i];
  }
};

}  // namespace

std::unique_ptr<LjcKernel> make_cpu_ljc_kernel(const LjcKernelOptions& options) {
  switch (options.precision) {
    case Precision::single:
      return std::make_unique<CpuLjcKernel<Precision::single>>(options);
    case Precision::mixed:
      return std::make_unique<CpuLjcKernel<Precision::mixed>>(options);
    case Precision::double_:
      break;
  }
  return std::make_unique<CpuLjcKernel<Precision::double_>>(options);
}

}  // namespace pairwise::ljc
