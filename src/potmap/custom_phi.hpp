// A custom pair potential φ(r) for potential maps (issue 13, docs/formulas.md):
//
//   [map]
//   phi = "exp(-r/lambda)/(eps_r*r); lambda = 7.8; eps_r = 78.5"   # Debye–Hückel, e/Å per e
//
// The map is V(p) = Σ_atoms q_a φ(|p − x_a|) (e/Å, then the file's units), over every atom, or
// over the atoms within [map] cutoff (plain truncation: φ is used as written; the formula may use
// `rc`, the cutoff, for its own switching), then the exclusions. Reference (graph walk, double),
// cpu (the compiled program over batches of atoms per point; single and mixed evaluate φ in FP32
// and sum in FP64) and cuda (the built-in direct and cutoff kernels compiled by NVRTC with φ:
// cuda_custom_phi.hpp). A minimal hook into potmap: MapOptions carries the compiled φ and
// compute_map hands such maps to custom_map().
#pragma once

#include <memory>
#include <string>

#include "engine/formula/expression.hpp"
#include "engine/formula/program.hpp"
#include "pairwise/backend.hpp"

namespace pairwise::potmap {

struct Atoms;
struct Lattice;
struct MapOptions;
struct MapResult;

class CustomPhi {
 public:
  // Throws pairwise::Error "<what> at column C in <label>, <where>".
  CustomPhi(const std::string& phi, double cutoff, const std::string& label,
            const std::string& where);
  double reference(double r2) const { return graph_.evaluate(node_, {r2}); }
  const formula::Program& program() const { return program_; }  // input r², output φ
  const std::string& text() const { return text_; }
  // The graph and φ's node, a function of variable 0 = r² alone (for the cuda code generator).
  const formula::Graph& graph() const { return graph_; }
  formula::NodeId node() const { return node_; }

 private:
  formula::Graph graph_;
  formula::NodeId node_ = -1;
  formula::Program program_;
  std::string text_;
};

MapResult custom_map(BackendKind backend, const Atoms& atoms, const Lattice& lattice,
                     const MapOptions& options);

}  // namespace pairwise::potmap
