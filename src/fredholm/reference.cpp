// The reference backend of the Fredholm kernel sum: double precision, plain loops (the oracle the
// cpu and cuda backends are tested against), and the backend factory.
#include <chrono>
#include <complex>

#include "core/backend_factory.hpp"
#include "core/timing.hpp"
#include "fredholm/matvec.hpp"
#include "fredholm/row_block_matvec.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {
namespace {

template <class S, class K>
class ReferenceMatvec final : public Matvec<S> {
 public:
  ReferenceMatvec(const K& kernel, const Nodes& nodes) : kernel_(kernel), nodes_(nodes) {}
  std::string device_name() const override { return "reference: host, double"; }
  BackendKind backend() const override { return BackendKind::reference; }
  Precision precision() const override { return Precision::double_; }

  void apply(std::span<const S> g, std::span<S> y) override { apply_at(nodes_.p, g, y); }
  void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) override {
    for (std::size_t i = 0; i < targets.size(); ++i) {
      S sum = 0;
      for (std::size_t j = 0; j < nodes_.size(); ++j)
        sum += nodes_.w[j] * kernel_value<S>(kernel_, targets[i], nodes_.p[j]) * g[j];
      y[i] = sum;
    }
  }
  double time_apply(std::span<const S> g, int repeats) override {
    std::vector<S> y(nodes_.size());
    return median_wall_seconds([&] { apply(g, y); }, repeats);
  }

 private:
  K kernel_;
  const Nodes& nodes_;
};

}  // namespace

template <class S>
std::unique_ptr<Matvec<S>> make_reference_matvec(const Spec& spec, const Nodes& nodes) {
  return with_kernel(spec, [&](auto kernel) -> std::unique_ptr<Matvec<S>> {
    using K = decltype(kernel);
    if constexpr (K::kComplex && !kIsComplex<S>) {
      throw Error("a complex kernel needs complex vectors");
    } else {
      return std::make_unique<ReferenceMatvec<S, K>>(kernel, nodes);
    }
  });
}

namespace {
template <class S>
std::unique_ptr<Matvec<S>> make_backend_matvec(const MatvecOptions& options, const Spec& spec,
                                               const Nodes& nodes) {
  return make_for_backend(
      options.backend, "make_matvec", [&] { return make_reference_matvec<S>(spec, nodes); },
      [&] { return make_cpu_matvec<S>(options.precision, spec, nodes); },
      [&] { return make_cuda_matvec<S>(options.precision, options.device, spec, nodes); });
}
}  // namespace

// Many ranks: each computes its row block, the rows are all-gathered (row_block_matvec.hpp).
template <class S>
std::unique_ptr<Matvec<S>> make_matvec(const MatvecOptions& options, const Spec& spec,
                                       const Nodes& nodes) {
  auto rows = make_backend_matvec<S>(options, spec, nodes);
  parallel::Communicator& comm = parallel::world();
  if (comm.size() == 1) return rows;
  return std::make_unique<RowBlockMatvec<S>>(std::move(rows), nodes, comm);
}

template std::unique_ptr<Matvec<double>> make_reference_matvec<double>(const Spec&, const Nodes&);
template std::unique_ptr<Matvec<std::complex<double>>> make_reference_matvec<std::complex<double>>(
    const Spec&, const Nodes&);
template std::unique_ptr<Matvec<double>> make_matvec<double>(const MatvecOptions&, const Spec&,
                                                             const Nodes&);
template std::unique_ptr<Matvec<std::complex<double>>> make_matvec<std::complex<double>>(
    const MatvecOptions&, const Spec&, const Nodes&);

}  // namespace pairwise::fredholm
