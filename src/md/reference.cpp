// The reference engine: double precision, every pair (i < j) with the minimum image, no lists.
// O(N²) per step: the oracle of the tests, not a production path.
#include <algorithm>

#include "engine/cell_list.hpp"
#include "md/custom_force_field.hpp"
#include "md/host_engine.hpp"

namespace pairwise::md {
namespace {

class ReferenceEngine final : public HostEngine {
 public:
  using HostEngine::HostEngine;
  BackendKind backend() const override { return BackendKind::reference; }
  Precision precision() const override { return Precision::double_; }

  std::vector<std::pair<int, int>> neighbor_pairs() override {
    auto pairs = engine::brute_force_pairs(n(), x_.data(), y_.data(), z_.data(), length_,
                                           table_.max_cutoff + options_.skin);
    return pairs;  // slots are set_state indices: the reference never reorders
  }

 protected:
  void compute_forces() override {
    const bool any_sf = std::any_of(table_.params.begin(), table_.params.end(),
                                    [](const auto& p) { return p.f_shift != 0; });
    std::fill(fx_.begin(), fx_.end(), 0.0);
    std::fill(fy_.begin(), fy_.end(), 0.0);
    std::fill(fz_.begin(), fz_.end(), 0.0);
    double pe = 0, vir = 0;
    for (std::size_t i = 0; i < n(); ++i)
      for (std::size_t j = i + 1; j < n(); ++j) {
        const double dx = engine::minimum_image(x_[i] - x_[j], length_[0]);
        const double dy = engine::minimum_image(y_[i] - y_[j], length_[1]);
        const double dz = engine::minimum_image(z_[i] - z_[j], length_[2]);
        const double r2 = dx * dx + dy * dy + dz * dz;
        const auto& p = table_.at(type_[i], type_[j]);
        if (r2 >= p.rc2) continue;
        physics::PairTerms<double> t;
        if (table_.custom)  // a formula (graph walk in double) or a table
          table_.custom->at(type_[i], type_[j]).reference(r2, t.energy, t.force_over_r2);
        else
          t = any_sf ? physics::lj_truncated<true>(r2, p) : physics::lj_truncated<false>(r2, p);
        fx_[i] += t.force_over_r2 * dx, fy_[i] += t.force_over_r2 * dy,
            fz_[i] += t.force_over_r2 * dz;
        fx_[j] -= t.force_over_r2 * dx, fy_[j] -= t.force_over_r2 * dy,
            fz_[j] -= t.force_over_r2 * dz;
        pe += t.energy;
        vir += t.force_over_r2 * r2;
      }
    potential_ = pe, virial_ = vir;
  }
};

}  // namespace

std::unique_ptr<MdEngine> make_reference_engine(const EngineOptions& o) {
  return std::make_unique<ReferenceEngine>(o);
}

}  // namespace pairwise::md
