// The cpu backend: OpenMP over targets, the j loop vectorized with `omp simd` over
// structure-of-arrays copies of the sources made once per evaluation. Precisions (DESIGN.md):
//   single  float positions, pair arithmetic and sums;
//   mixed   positions and velocities as double-single pairs (x = hi + lo, both float), so the pair
//           offset d = (hi_j - hi_i) + (lo_j - lo_i) is exact to float rounding of d itself however
//           far the pair is from the origin; float pair arithmetic; float partial sums over blocks
//           of kBlock sources added into double;
//   double  double throughout.
// The pair of a target with itself is left out by splitting the j range at it (no self term to
// subtract, no mask). Each target's sum is computed by one thread in a fixed order, so results do
// not depend on the thread count (the order does depend on the vector width of the clone chosen for
// the CPU, so a binary gives the same bits run to run on one machine).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "nbody/backends.hpp"
#include "nbody/host_kernel.hpp"
#include "pairwise/physics/gravity.hpp"

// We cannot build with -march=native (binaries travel), so the pair loops are compiled for AVX-512,
// AVX2+FMA and baseline x86-64, and the loader picks the best the CPU supports (GCC ifunc).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define PW_CPU_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define PW_CPU_CLONES __attribute__((flatten))
#endif

namespace pairwise::nbody {
namespace {

// Sources per partial sum in float (mixed, single): 256 terms spread over 8-16 vector lanes keep
// each lane's float rounding error at ~16-32 ulp before the partial is added into the total.
constexpr long kBlock = 256;
constexpr long kParallelPairs = 1 << 16;

template <Precision P>
struct Types {
  using Pair = std::conditional_t<P == Precision::double_, double, float>;  // pair arithmetic
  using Sum = std::conditional_t<P == Precision::single, float, double>;    // totals over blocks
  static constexpr bool kSplit = P == Precision::mixed;                     // double-single inputs
};

// A double as hi + lo floats: hi = fl(x), lo = fl(x - hi); hi + lo carries ~48 significant bits.
struct Split {
  float hi, lo;
};
inline Split split(double x) {
  const float hi = static_cast<float>(x);
  return {hi, static_cast<float>(x - static_cast<double>(hi))};
}

// Source arrays in the pair type; the lo arrays are filled for mixed only.
template <class T>
struct Sources {
  std::vector<T> m, x, y, z, vx, vy, vz, xl, yl, zl, vxl, vyl, vzl;
};

// Raw, restrict-qualified views of Sources for the vector loop.
template <class T>
struct SourceView {
  const T* __restrict m;
  const T* __restrict pos[3];
  const T* __restrict vel[3];
  const T* __restrict pos_lo[3];
  const T* __restrict vel_lo[3];
};

// One target: position and velocity (hi and lo parts for mixed).
template <class T>
struct Target {
  T pos[3], vel[3], pos_lo[3] = {}, vel_lo[3] = {};
};

template <Precision P>
void fill_sources(const Particles& p, Sources<typename Types<P>::Pair>& s) {
  using T = typename Types<P>::Pair;
  const std::size_t n = p.size();
  const std::vector<double>* in[6] = {&p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  std::vector<T>* hi[6] = {&s.x, &s.y, &s.z, &s.vx, &s.vy, &s.vz};
  std::vector<T>* lo[6] = {&s.xl, &s.yl, &s.zl, &s.vxl, &s.vyl, &s.vzl};
  s.m.assign(p.m.begin(), p.m.end());
  for (int c = 0; c < 6; ++c) {
    hi[c]->resize(n);
    lo[c]->resize(Types<P>::kSplit ? n : 0);
    for (std::size_t j = 0; j < n; ++j) {
      if constexpr (Types<P>::kSplit) {
        const Split v = split((*in[c])[j]);
        (*hi[c])[j] = v.hi, (*lo[c])[j] = v.lo;
      } else {
        (*hi[c])[j] = static_cast<T>((*in[c])[j]);
      }
    }
  }
}

template <class T>
SourceView<T> view(const Sources<T>& s) {
  return {s.m.data(),
          {s.x.data(), s.y.data(), s.z.data()},
          {s.vx.data(), s.vy.data(), s.vz.data()},
          {s.xl.data(), s.yl.data(), s.zl.data()},
          {s.vxl.data(), s.vyl.data(), s.vzl.data()}};
}

template <Precision P>
Target<typename Types<P>::Pair> target(const Particles& t, std::size_t k) {
  using T = typename Types<P>::Pair;
  const double in[6] = {t.x[k], t.y[k], t.z[k], t.vx[k], t.vy[k], t.vz[k]};
  Target<T> out;
  for (int c = 0; c < 6; ++c) {
    T& hi = c < 3 ? out.pos[c] : out.vel[c - 3];
    T& lo = c < 3 ? out.pos_lo[c] : out.vel_lo[c - 3];
    if constexpr (Types<P>::kSplit) {
      const Split v = split(in[c]);
      hi = v.hi, lo = v.lo;
    } else {
      hi = static_cast<T>(in[c]);
    }
  }
  return out;
}

// Adds the pairs of target t with sources [j0, j1) to p; the vectorized loop of this backend.
// Everything the loop reads is hoisted into local scalars and restrict pointers, and the reduction
// variables are plain scalars (copied in and out of the evaluator's struct per pair), so
// `omp simd reduction` gives each vector lane its own partial sums.
template <Precision P, bool kJerk, bool kGuardZero, class T = typename Types<P>::Pair>
inline void accumulate_range(const SourceView<T>& s, const Target<T>& t, long j0, long j1, T eps2,
                             physics::AccelJerk<T>& p) {
  const T* __restrict m = s.m;
  const T* __restrict x = s.pos[0], * __restrict y = s.pos[1], * __restrict z = s.pos[2];
  const T* __restrict vx = s.vel[0], * __restrict vy = s.vel[1], * __restrict vz = s.vel[2];
  const T* __restrict xl = s.pos_lo[0], * __restrict yl = s.pos_lo[1], * __restrict zl = s.pos_lo[2];
  const T* __restrict vxl = s.vel_lo[0], * __restrict vyl = s.vel_lo[1], * __restrict vzl = s.vel_lo[2];
  const T tx = t.pos[0], ty = t.pos[1], tz = t.pos[2], tvx = t.vel[0], tvy = t.vel[1],
          tvz = t.vel[2];
  const T txl = t.pos_lo[0], tyl = t.pos_lo[1], tzl = t.pos_lo[2], tvxl = t.vel_lo[0],
          tvyl = t.vel_lo[1], tvzl = t.vel_lo[2];
  T ax = p.ax, ay = p.ay, az = p.az, jx = p.jx, jy = p.jy, jz = p.jz, pot = p.pot;
#pragma omp simd reduction(+ : ax, ay, az, jx, jy, jz, pot)
  for (long j = j0; j < j1; ++j) {
    // Source minus target; for double-single the hi and lo differences are added.
    T dx = x[j] - tx, dy = y[j] - ty, dz = z[j] - tz;
    if constexpr (Types<P>::kSplit) dx += xl[j] - txl, dy += yl[j] - tyl, dz += zl[j] - tzl;
    if constexpr (kJerk) {
      T dvx = vx[j] - tvx, dvy = vy[j] - tvy, dvz = vz[j] - tvz;
      if constexpr (Types<P>::kSplit) {
        dvx += vxl[j] - tvxl, dvy += vyl[j] - tvyl, dvz += vzl[j] - tvzl;
      }
      physics::AccelJerk<T> a{ax, ay, az, jx, jy, jz, pot};
      physics::accumulate_accel_jerk<kGuardZero>(dx, dy, dz, dvx, dvy, dvz, m[j], eps2, a);
      ax = a.ax, ay = a.ay, az = a.az, jx = a.jx, jy = a.jy, jz = a.jz, pot = a.pot;
    } else {
      physics::Accel<T> a{ax, ay, az, pot};
      physics::accumulate_accel<true, kGuardZero>(dx, dy, dz, m[j], eps2, a);
      ax = a.ax, ay = a.ay, az = a.az, pot = a.pot;
    }
  }
  p = {ax, ay, az, jx, jy, jz, pot};
}

// Forces on one target from sources [0, n) except `self` (-1: none): partial sums in the pair type
// over blocks of kBlock sources, each added into the total in the sum type.
template <Precision P, bool kJerk, bool kGuardZero, class T = typename Types<P>::Pair,
          class S = typename Types<P>::Sum>
PW_CPU_CLONES void target_forces(const SourceView<T>& s, long n, const Target<T>& t, long self,
                                 T eps2, physics::AccelJerk<S>& total) {
  total = {};
  for (long b = 0; b < n; b += kBlock) {
    const long e = std::min(b + kBlock, n);
    physics::AccelJerk<T> p;
    if (self >= b && self < e) {
      accumulate_range<P, kJerk, kGuardZero>(s, t, b, self, eps2, p);
      accumulate_range<P, kJerk, kGuardZero>(s, t, self + 1, e, eps2, p);
    } else {
      accumulate_range<P, kJerk, kGuardZero>(s, t, b, e, eps2, p);
    }
    total.ax += p.ax, total.ay += p.ay, total.az += p.az, total.pot += p.pot;
    if constexpr (kJerk) total.jx += p.jx, total.jy += p.jy, total.jz += p.jz;
  }
}

class CpuGravityKernel final : public HostGravityKernel {
 public:
  explicit CpuGravityKernel(const KernelOptions& options) : HostGravityKernel(options) {}
  std::string device_name() const override {
    return "cpu: host, " + std::to_string(cpu_threads()) + " OpenMP threads, " +
           std::string(to_string(options_.precision)) + ", vectorized";
  }
  BackendKind backend() const override { return BackendKind::cpu; }
  Precision precision() const override { return options_.precision; }

 protected:
  void evaluate(const Particles& s, const Particles& t, std::span<const int> self, ForceKind kind,
                Forces& out) override {
    switch (options_.precision) {
      case Precision::single:
        return evaluate_as<Precision::single>(s, t, self, kind, out);
      case Precision::mixed:
        return evaluate_as<Precision::mixed>(s, t, self, kind, out);
      case Precision::double_:
        return evaluate_as<Precision::double_>(s, t, self, kind, out);
    }
  }

 private:
  template <Precision P>
  void evaluate_as(const Particles& s, const Particles& t, std::span<const int> self,
                   ForceKind kind, Forces& out) {
    using T = typename Types<P>::Pair;
    using S = typename Types<P>::Sum;
    Sources<T>& sources = buffers<T>();
    fill_sources<P>(s, sources);
    const SourceView<T> v = view(sources);
    const long n = static_cast<long>(s.size());
    const long n_targets = static_cast<long>(t.size());
    const bool jerk = kind == ForceKind::accel_jerk;
    const T eps2 = static_cast<T>(options_.eps2);
    // ε = 0: a zero offset (two coincident particles, or distinct ones a float rounds together)
    // contributes nothing instead of inf.
    using Fn =
        void (*)(const SourceView<T>&, long, const Target<T>&, long, T, physics::AccelJerk<S>&);
    const Fn fn = jerk
                      ? (eps2 > 0 ? target_forces<P, true, false> : target_forces<P, true, true>)
                      : (eps2 > 0 ? target_forces<P, false, false> : target_forces<P, false, true>);
    out.resize(t.size(), jerk);
    // Block steps with few active targets: a parallel region costs more than it saves below ~64k
    // pairs (tens of µs), and far more when OpenMP threads outnumber free cores.
#pragma omp parallel for schedule(static) if (n_targets * n >= kParallelPairs)
    for (long k = 0; k < n_targets; ++k) {
      physics::AccelJerk<S> a;
      fn(v, n, target<P>(t, static_cast<std::size_t>(k)), self[k], eps2, a);
      out.ax[k] = a.ax, out.ay[k] = a.ay, out.az[k] = a.az, out.pot[k] = a.pot;
      if (jerk) out.jx[k] = a.jx, out.jy[k] = a.jy, out.jz[k] = a.jz;
    }
  }

  template <class T>
  Sources<T>& buffers() {
    if constexpr (std::is_same_v<T, float>)
      return float_sources_;
    else
      return double_sources_;
  }

  Sources<float> float_sources_;
  Sources<double> double_sources_;
};

}  // namespace

std::unique_ptr<GravityKernel> make_cpu_gravity_kernel(const KernelOptions& options) {
  return std::make_unique<CpuGravityKernel>(options);
}

}  // namespace pairwise::nbody
