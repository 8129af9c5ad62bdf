// The cpu engine: OpenMP over atoms, cell list (counting sort along a Morton curve) + half Verlet
// list with skin, rebuilt when the two largest displacements since the last build exceed the skin
// (Liu et al.), atoms reordered along the curve every `sort_every` steps (at the next rebuild).
// Each thread accumulates the Newton's-third-law half of the pair forces in its own buffer; the
// buffers are summed in a fixed order, so a run is deterministic for a given thread count.
//
// Precision: positions and velocities are double for all three modes (the dynamics module's host
// loops); pair arithmetic is P (float for single and mixed, double for double) from minimum-image
// displacements taken in double; forces and energies are accumulated in Acc (float for single,
// double otherwise).
#include <omp.h>
#include <algorithm>
#include <cmath>

#include "engine/cell_list.hpp"
#include "md/host_engine.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {
namespace {

template <class P, class Acc>
class CpuEngine final : public HostEngine {
 public:
  using HostEngine::HostEngine;
  BackendKind backend() const override { return BackendKind::cpu; }
  std::string device_name() const override {
    return "cpu (" + std::to_string(cpu_threads()) + " threads)";
  }
  EngineStats stats() const override {
    EngineStats s = stats_;
    s.rebuilds = list_.rebuilds, s.regrows = list_.regrows, s.capacity = list_.capacity;
    return s;
  }

  std::vector<std::pair<int, int>> neighbor_pairs() override {
    auto pairs = engine::list_pairs(list_);
    for (auto& [i, j] : pairs) {
      i = slot_[std::size_t(i)], j = slot_[std::size_t(j)];
      if (i > j) std::swap(i, j);
    }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

 protected:
  void prepare() override {
    r_list_ = table_.max_cutoff + options_.skin;
    grid_ = engine::make_cell_grid(box_.lo, length_, r_list_);
    params_.resize(table_.params.size());
    any_sf_ = false;
    for (std::size_t k = 0; k < params_.size(); ++k) {
      params_[k] = physics::lj_pair_params_cast<P>(table_.params[k]);
      any_sf_ = any_sf_ || table_.params[k].f_shift != 0;
    }
    if (options_.neighbor_capacity > 0) list_.capacity = options_.neighbor_capacity;
    rebuild(true);
  }

  void compute_forces() override {
    ++steps_since_sort_;
    const auto [d1, d2] = engine::two_largest_displacements(
        n(), x_.data(), y_.data(), z_.data(), x0_.data(), y0_.data(), z0_.data(), length_);
    if (d1 + d2 > options_.skin)
      rebuild(options_.sort_every > 0 && steps_since_sort_ >= options_.sort_every);
    if (any_sf_)
      pair_forces<true>();
    else
      pair_forces<false>();
  }

 private:
  void rebuild(bool sort) {
    engine::build_cell_list(grid_, n(), x_.data(), y_.data(), z_.data(), cells_);
    if (sort) {
      permute(cells_.order);
      engine::build_cell_list(grid_, n(), x_.data(), y_.data(), z_.data(), cells_);
      ++stats_.reorders;
      steps_since_sort_ = 0;
    }
    engine::build_neighbor_list(grid_, cells_, n(), x_.data(), y_.data(), z_.data(), r_list_, true,
                                list_);
    x0_ = x_, y0_ = y_, z0_ = z_;
  }

  template <bool SF>
  void pair_forces() {
    const std::ptrdiff_t count = std::ptrdiff_t(n());
    const int threads = omp_get_max_threads();
    buffer_.resize(std::size_t(threads) * 3 * n());
    const double Lx = length_[0], Ly = length_[1], Lz = length_[2];
    const double* x = x_.data();
    const double* y = y_.data();
    const double* z = z_.data();
    const int* type = type_.data();
    const int T = table_.types;
    const int cap = list_.capacity;
    const int* nb_count = list_.count.data();
    const int* nb = list_.index.data();
    const physics::LjPairParams<P>* params = params_.data();
    Acc pe = 0, vir = 0;
#pragma omp parallel reduction(+ : pe, vir)
    {
      const int t = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      Acc* bx = buffer_.data() + std::size_t(t) * 3 * n();
      Acc* by = bx + n();
      Acc* bz = by + n();
      std::fill(bx, bx + 3 * n(), Acc(0));
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) {
        const double xi = x[i], yi = y[i], zi = z[i];
        const physics::LjPairParams<P>* row = params + std::size_t(type[i] - 1) * T;
        Acc fxi = 0, fyi = 0, fzi = 0;
        const int* list = nb + std::size_t(i) * cap;
        for (int k = 0; k < nb_count[i]; ++k) {
          const int j = list[k];
          const P dx = P(engine::minimum_image(xi - x[j], Lx));
          const P dy = P(engine::minimum_image(yi - y[j], Ly));
          const P dz = P(engine::minimum_image(zi - z[j], Lz));
          const P r2 = dx * dx + dy * dy + dz * dz;
          const physics::LjPairParams<P>& p = row[type[j] - 1];
          if (r2 < p.rc2) {
            const auto term = physics::lj_truncated<SF>(r2, p);
            const P fr = term.force_over_r2;
            fxi += Acc(fr * dx), fyi += Acc(fr * dy), fzi += Acc(fr * dz);
            bx[j] -= Acc(fr * dx), by[j] -= Acc(fr * dy), bz[j] -= Acc(fr * dz);
            pe += Acc(term.energy);
            vir += Acc(fr * r2);
          }
        }
        bx[i] += fxi, by[i] += fyi, bz[i] += fzi;
      }
      // (implicit barrier) sum the per-thread buffers in thread order
#pragma omp for schedule(static)
      for (std::ptrdiff_t i = 0; i < count; ++i) {
        Acc sx = 0, sy = 0, sz = 0;
        for (int u = 0; u < nt; ++u) {
          const Acc* b = buffer_.data() + std::size_t(u) * 3 * n();
          sx += b[i], sy += b[n() + i], sz += b[2 * n() + i];
        }
        fx_[i] = double(sx), fy_[i] = double(sy), fz_[i] = double(sz);
      }
    }
    potential_ = double(pe), virial_ = double(vir);
  }

  double r_list_ = 0;
  engine::CellGrid grid_;
  engine::CellList cells_;
  engine::NeighborList list_;
  std::vector<double> x0_, y0_, z0_;
  std::vector<physics::LjPairParams<P>> params_;
  std::vector<Acc> buffer_;
  bool any_sf_ = false;
  int steps_since_sort_ = 0;
  EngineStats stats_;
};

}  // namespace

std::unique_ptr<MdEngine> make_cpu_engine(const EngineOptions& o) {
  switch (o.precision) {
    case Precision::single:
      return std::make_unique<CpuEngine<float, float>>(o);
    case Precision::mixed:
      return std::make_unique<CpuEngine<float, double>>(o);
    case Precision::double_:
      return std::make_unique<CpuEngine<double, double>>(o);
  }
  throw Error("unknown precision");
}

std::unique_ptr<MdEngine> make_md_engine(BackendKind backend, const EngineOptions& o) {
  switch (backend) {
    case BackendKind::reference:
      return make_reference_engine(o);
    case BackendKind::cpu:
      return make_cpu_engine(o);
    case BackendKind::cuda:
      return make_cuda_engine(o);
    case BackendKind::automatic:
      break;
  }
  throw Error("make_md_engine: the backend must be resolved first");
}

#ifndef PAIRWISE_HAVE_CUDA
std::unique_ptr<MdEngine> make_cuda_engine(const EngineOptions&) {
  throw Error("this build has no CUDA backend", "--backend cuda");
}
#endif

}  // namespace pairwise::md
