// A LAMMPS pair_style table potential (core/io/pair_table) as an engine::RadialPair. Below the
// table's inner radius the first bin is extrapolated (LAMMPS stops the run there instead).
#pragma once

#include "core/io/pair_table.hpp"
#include "engine/radial_pair.hpp"

namespace pairwise::engine {

class TablePair final : public RadialPair {
 public:
  TablePair(io::PairTableInterpolator table, std::string description)
      : table_(std::move(table)), description_(std::move(description)) {
    cutoff_ = table_.cutoff();
  }
  void reference(double r2, double& energy, double& force_over_r) const override {
    table_.evaluate(r2, energy, force_over_r);
  }
  void batch(const double* r2, int m, double* energy, double* force_over_r,
             std::vector<double>&) const override {
    for (int k = 0; k < m; ++k) table_.evaluate(r2[k], energy[k], force_over_r[k]);
  }
  void batch(const float* r2, int m, float* energy, float* force_over_r,
             std::vector<float>&) const override {
    for (int k = 0; k < m; ++k) table_.evaluate(r2[k], energy[k], force_over_r[k]);
  }
  std::string describe() const override { return description_; }
  const io::PairTableInterpolator& table() const { return table_; }

 private:
  io::PairTableInterpolator table_;
  std::string description_;
};

}  // namespace pairwise::engine
