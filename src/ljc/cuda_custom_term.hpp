// The ljc custom non-bonded term (a formula, ljc/custom_nonbonded.hpp) on the GPU (issue 13): an
// all-pairs kernel generated from the formula and compiled at run time by NVRTC (formula/
// nvrtc_loader), beside the built-in cuda kernel (which keeps LJ + Coulomb and the bonds, or the
// bonds alone with custom_replaces). One thread per target i, sources staged 256 at a time in
// shared memory; the displacements in float (single) or double, the term in T (float in single
// and mixed, double in double), sums in float (single) or double; the exclusions and
// 1-4 scales by a merge walk along the target's sorted row of scaled pairs, so every excluded pair
// is skipped exactly (no subtraction afterwards). Plain C++: the CPU tests check the source and
// that it compiles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/formula/nvrtc_loader.hpp"
#include "ljc/custom_nonbonded.hpp"
#include "ljc/ljc_kernel.hpp"

namespace pairwise::ljc {

// The kernel `pw_ljc_custom` for `custom` in precision p.
std::string ljc_custom_term_source(const CustomNonbonded& custom, Precision p);

class CudaCustomTerm {
 public:
  CudaCustomTerm(const CustomNonbonded& custom, Precision p);
  ~CudaCustomTerm();
  CudaCustomTerm(const CudaCustomTerm&) = delete;
  CudaCustomTerm& operator=(const CudaCustomTerm&) = delete;
  // Topology and per-atom parameters (q, σ, ε as the formula sees them) of the loaded molecule.
  void set_system(const Molecule& m, const PreparedSystem& s);
  // Adds the term's forces to out.fx/fy/fz and its energy to out.custom.
  void add(const double* x, const double* y, const double* z, LjcForces& out);
  double compile_seconds() const { return compiled_.seconds; }
  bool from_cache() const { return compiled_.from_cache; }

 private:
  formula::CompiledProgram compiled_;
  std::unique_ptr<formula::DeviceKernel> kernel_;
  int n_ = 0;
  Precision precision_ = Precision::single;
  unsigned long long d_x_ = 0, d_par_ = 0, d_row_ = 0, d_j_ = 0, d_scale_ = 0, d_f_ = 0, d_e_ = 0;
  std::vector<double> xyz_, f_, e_;
  std::vector<float> xyz_f_;  // single: float positions
  void release();
};

}  // namespace pairwise::ljc
