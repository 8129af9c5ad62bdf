// The cpu backend of the Fredholm kernel sum: OpenMP over the targets, the sources in
// structure-of-arrays form in the backend's precision (w_j g_j premultiplied), the inner loop over
// j vectorizable (simd reduction). Custom kernels (formulas) run the compiled register program
// (engine/formula/program.hpp) over batches of sources per target, in the backend's precision
// (FP32 kernel in single and mixed, as the built-ins).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <complex>

#include "core/timing.hpp"
#include "engine/formula/program.hpp"
#include "fredholm/matvec.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {
namespace {

// What both cpu products share: the sources in structure-of-arrays form in F, w_j g_j packed per
// product, apply() over the nodes, the backend's name, precision and timing.
template <class S, class F>
class CpuSourceMatvec : public Matvec<S> {
 public:
  CpuSourceMatvec(Precision precision, const Nodes& nodes, std::string device_suffix)
      : precision_(precision), nodes_(nodes), device_suffix_(std::move(device_suffix)) {
    const std::size_t n = nodes.size();
    sx_.resize(n), sy_.resize(n), sz_.resize(n), wr_.resize(n), wi_.resize(n);
    for (std::size_t j = 0; j < n; ++j)
      sx_[j] = F(nodes.p[j].x), sy_[j] = F(nodes.p[j].y), sz_[j] = F(nodes.p[j].z);
  }
  std::string device_name() const override {
    return "cpu: " + std::to_string(cpu_threads()) + " OpenMP threads" + device_suffix_;
  }
  BackendKind backend() const override { return BackendKind::cpu; }
  Precision precision() const override { return precision_; }
  void apply(std::span<const S> g, std::span<S> y) override { apply_at(nodes_.p, g, y); }
  using Matvec<S>::apply_at;
  double time_apply(std::span<const S> g, int repeats) override {
    std::vector<S> y(nodes_.size());
    return median_wall_seconds([&] { apply(g, y); }, repeats);
  }

 protected:
  // w_j g_j in the backend's precision (real and imaginary parts).
  void pack_weights(std::span<const S> g) {
    for (std::size_t j = 0; j < nodes_.size(); ++j) {
      const S wg = nodes_.w[j] * g[j];
      if constexpr (kIsComplex<S>) {
        wr_[j] = F(wg.real()), wi_[j] = F(wg.imag());
      } else {
        wr_[j] = F(wg);
      }
    }
  }

  Precision precision_;
  const Nodes& nodes_;
  std::string device_suffix_;
  std::vector<F> sx_, sy_, sz_, wr_, wi_;
};

template <class S, class K, class F, class A>
class CpuMatvec final : public CpuSourceMatvec<S, F> {
 public:
  CpuMatvec(const K& kernel, Precision precision, const Nodes& nodes)
      : CpuSourceMatvec<S, F>(precision, nodes, ""), kernel_(kernel) {}

  void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) override {
    const std::size_t n = this->nodes_.size();
    this->pack_weights(g);
    const F* sx = this->sx_.data();
    const F* sy = this->sy_.data();
    const F* sz = this->sz_.data();
    const F* wr = this->wr_.data();
    const F* wi = this->wi_.data();
    const K kernel = kernel_;
    const long long m = (long long)targets.size();
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < m; ++i) {
      const ph::Point<F> t{F(targets[i].x), F(targets[i].y), F(targets[i].z)};
      A re = 0, im = 0;
      if constexpr (K::kComplex) {
#pragma omp simd reduction(+ : re, im)
        for (std::size_t j = 0; j < n; ++j) {
          const auto v = kernel(t, ph::Point<F>{sx[j], sy[j], sz[j]});
          re += A(v.re * wr[j] - v.im * wi[j]);
          im += A(v.re * wi[j] + v.im * wr[j]);
        }
      } else {
#pragma omp simd reduction(+ : re)
        for (std::size_t j = 0; j < n; ++j)
          re += A(wr[j] * kernel(t, ph::Point<F>{sx[j], sy[j], sz[j]}));
      }
      if constexpr (kIsComplex<S>) {
        y[i] = S(double(re), double(im));
      } else {
        y[i] = S(double(re));
      }
    }
  }

 private:
  K kernel_;
};

// A formula kernel: per target, the program's inputs are the target's coordinates (repeated over
// a batch) and the sources' own arrays; outputs K (real) or Re K, Im K.
template <class S, class F, class A>
class CpuFormulaMatvec final : public CpuSourceMatvec<S, F> {
 public:
  CpuFormulaMatvec(const CustomKernel& kernel, Precision precision, const Nodes& nodes)
      : CpuSourceMatvec<S, F>(precision, nodes, ", formula kernel"), kernel_(kernel) {}

  void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) override {
    const std::size_t n = this->nodes_.size();
    this->pack_weights(g);
    const bool complex = kernel_.is_complex();
    const formula::Program& program = kernel_.program();
    const long long m = (long long)targets.size();
#pragma omp parallel
    {
      constexpr std::size_t B = formula::Program::batch;
      std::vector<F> tx(B), ty(B), tz(B), kr(B), ki(B), scratch;
#pragma omp for schedule(static)
      for (long long i = 0; i < m; ++i) {
        std::fill(tx.begin(), tx.end(), F(targets[std::size_t(i)].x));
        std::fill(ty.begin(), ty.end(), F(targets[std::size_t(i)].y));
        std::fill(tz.begin(), tz.end(), F(targets[std::size_t(i)].z));
        A re = 0, im = 0;
        for (std::size_t j0 = 0; j0 < n; j0 += B) {
          const std::size_t b = std::min(B, n - j0);
          const F* in[6] = {tx.data(),
                            ty.data(),
                            tz.data(),
                            this->sx_.data() + j0,
                            this->sy_.data() + j0,
                            this->sz_.data() + j0};
          F* out[2] = {kr.data(), ki.data()};
          program.run(in, int(b), out, scratch);
          const F* wr = this->wr_.data() + j0;
          const F* wi = this->wi_.data() + j0;
          if (complex) {
            for (std::size_t k = 0; k < b; ++k) {
              re += A(kr[k] * wr[k] - ki[k] * wi[k]);
              im += A(kr[k] * wi[k] + ki[k] * wr[k]);
            }
          } else {
            for (std::size_t k = 0; k < b; ++k) {
              re += A(wr[k] * kr[k]);
              if constexpr (kIsComplex<S>) im += A(wi[k] * kr[k]);
            }
          }
        }
        if constexpr (kIsComplex<S>) {
          y[std::size_t(i)] = S(double(re), double(im));
        } else {
          y[std::size_t(i)] = S(double(re));
        }
      }
    }
  }

 private:
  const CustomKernel& kernel_;
};

}  // namespace

template <class S>
std::unique_ptr<Matvec<S>> make_cpu_matvec(Precision precision, const Spec& spec,
                                           const Nodes& nodes) {
  if (spec.custom) {
    if (spec.custom->is_complex() && !kIsComplex<S>)
      throw Error("a complex kernel needs complex vectors");
    switch (precision) {
      case Precision::single:
        return std::make_unique<CpuFormulaMatvec<S, float, float>>(*spec.custom, precision, nodes);
      case Precision::mixed:
        return std::make_unique<CpuFormulaMatvec<S, float, double>>(*spec.custom, precision, nodes);
      case Precision::double_:
        break;
    }
    return std::make_unique<CpuFormulaMatvec<S, double, double>>(*spec.custom, precision, nodes);
  }
  return with_kernel(spec, [&](auto kernel) -> std::unique_ptr<Matvec<S>> {
    using K = decltype(kernel);
    if constexpr (K::kComplex && !kIsComplex<S>) {
      throw Error("a complex kernel needs complex vectors");
    } else {
      switch (precision) {
        case Precision::single:
          return std::make_unique<CpuMatvec<S, K, float, float>>(kernel, precision, nodes);
        case Precision::mixed:
          return std::make_unique<CpuMatvec<S, K, float, double>>(kernel, precision, nodes);
        case Precision::double_:
          break;
      }
      return std::make_unique<CpuMatvec<S, K, double, double>>(kernel, precision, nodes);
    }
  });
}

template std::unique_ptr<Matvec<double>> make_cpu_matvec<double>(Precision, const Spec&,
                                                                 const Nodes&);
template std::unique_ptr<Matvec<std::complex<double>>> make_cpu_matvec<std::complex<double>>(
    Precision, const Spec&, const Nodes&);

}  // namespace pairwise::fredholm
