// A radial pair interaction given at run time (issue 13): a user formula (formula/pair_potential)
// or a LAMMPS table (core/io/pair_table), behind one interface the host pair loops call per
// batch of pair distances. The loops gather r² of the pairs inside rc (r² < rc²) and get back
// E(r) and F/r (the factor of the displacement d = r_i − r_j in the force on i).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pairwise::engine {

class RadialPair {
 public:
  virtual ~RadialPair() = default;
  double cutoff() const { return cutoff_; }
  double rc2() const { return cutoff_ * cutoff_; }
  // The double reference (the oracle of the tests), one pair at r² < rc².
  virtual void reference(double r2, double& energy, double& force_over_r) const = 0;
  // m pairs at once (the cpu backend). `scratch` is per thread.
  virtual void batch(const double* r2, int m, double* energy, double* force_over_r,
                     std::vector<double>& scratch) const = 0;
  virtual void batch(const float* r2, int m, float* energy, float* force_over_r,
                     std::vector<float>& scratch) const = 0;
  virtual std::string describe() const = 0;

 protected:
  double cutoff_ = 0;
};

}  // namespace pairwise::engine
