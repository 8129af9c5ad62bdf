// A custom non-bonded term of the ljc workload from a formula (issue 13, docs/formulas.md):
//
//   [forcefield]
//   custom = "4*eps*((sig/r)^12 - (sig/r)^6); eps = sqrt(epsilon1*epsilon2); sig = (sigma1 +
//   sigma2)/2" custom_replaces = false     # true: instead of LJ + Coulomb (bonds stay)
//
// U(r) over every pair, with the two atoms' q1 q2 sigma1 sigma2 epsilon1 epsilon2 (per-atom
// parameters combined in the formula) and constants; 1-2/1-3 and explicit exclusions skip it and
// 1-4 pairs scale it by scale14_lj, as the LJ term. Its energy is LjcForces::custom. Evaluated in
// double on the reference (graph walk) and cpu (compiled program over batches of partners)
// backends (a decorator around the built-in kernel, so the rest of ljc is unchanged); on cuda,
// inside the built-in Newton-3 tile kernel with a pair functor generated from the formula
// (ljc/cuda_custom_term.hpp).
//
// Or a LAMMPS pair_style table (the same reader and interpolation as md's style = "table",
// engine/table_pair.hpp), the same for every pair, zero beyond the table's cutoff:
//   table_file = "lj.table"   table_keyword = "LJ"   table_style = "linear"   table_n = 1000
//   table_cutoff = 12.0       # default: the table's last r;  custom_replaces as above
#pragma once

#include <memory>
#include <string>

#include "core/config.hpp"
#include "engine/formula/expression.hpp"
#include "engine/formula/program.hpp"
#include "engine/radial_pair.hpp"
#include "ljc/ljc_kernel.hpp"

namespace pairwise::ljc {

class CustomNonbonded {
 public:
  // Throws pairwise::Error "<what> at column C in <label>, <where>".
  CustomNonbonded(const std::string& energy, bool replaces, const std::string& label,
                  const std::string& where);
  // A table term: E(r) and F/r from `table` (r < its cutoff), 0 beyond.
  CustomNonbonded(std::shared_ptr<const engine::RadialPair> table, bool replaces);
  bool replaces() const { return replaces_; }
  const engine::RadialPair* table() const { return table_.get(); }
  const std::string& text() const { return text_; }
  // Inputs: r², q1, q2, sigma1, sigma2, epsilon1, epsilon2; outputs U and −U′(r)/r.
  const formula::Program& program() const { return program_; }
  // The graph and its two outputs (CUDA source generation: ljc/cuda_custom_term.hpp).
  const formula::Graph& graph() const { return graph_; }
  formula::NodeId energy_node() const { return energy_; }
  formula::NodeId force_node() const { return force_over_r_; }
  void reference(const double* in, double& energy, double& force_over_r) const;

 private:
  formula::Graph graph_;
  formula::NodeId energy_ = -1, force_over_r_ = -1;
  formula::Program program_;
  bool replaces_ = false;
  std::string text_;
  std::shared_ptr<const engine::RadialPair> table_;
};

// [forcefield] table_file (+ table_keyword, table_style, table_n, table_cutoff, custom_replaces):
// the table term; the file is relative to the configuration file.
std::shared_ptr<const CustomNonbonded> make_table_nonbonded(config::Config& config,
                                                            const config::Section& forcefield);

// Wraps `inner` (reference or cpu) so that compute() adds the custom term.
std::unique_ptr<LjcKernel> with_custom_nonbonded(std::unique_ptr<LjcKernel> inner,
                                                 std::shared_ptr<const CustomNonbonded> custom);

}  // namespace pairwise::ljc
