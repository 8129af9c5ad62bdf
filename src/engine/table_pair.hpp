// A LAMMPS pair_style table potential (core/io/pair_table) as an engine::RadialPair. Below the
// table's inner radius the first bin is extrapolated (LAMMPS stops the run there instead).
#pragma once

#include <memory>
#include <string>

#include "core/io/pair_table.hpp"
#include "engine/radial_pair.hpp"
#include "pairwise/error.hpp"

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

// Reads section `keyword` of the LAMMPS table `file` and builds its interpolator (style "linear" |
// "spline", LAMMPS's N = n, cutoff 0: the table's own): md's style = "table" and ljc's
// table_file. Errors name the file and `label` (the configuration key).
inline std::shared_ptr<const TablePair> make_table_pair(const std::string& file,
                                                        const std::string& keyword,
                                                        const std::string& style, int n,
                                                        double cutoff, const std::string& label) {
  const auto table = io::read_pair_table(file, keyword);
  try {
    return std::make_shared<TablePair>(
        io::PairTableInterpolator(table, io::parse_table_style(style), n, cutoff),
        "table " + keyword + " (" + style + ")");
  } catch (const Error& e) {
    throw Error(e.message(), file + " (" + label + ")");
  }
}

}  // namespace pairwise::engine
