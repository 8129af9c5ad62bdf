// Formulas (engine/formula, issue 13) as the workloads take them: parse, symbolic derivatives,
// simplification, the compiled cpu program, the GPU normal form (radial_program, pair_program) and
// the CUDA source generators (no device needed). The first byte picks the path; the rest is the
// formula text:
//   0: md's pair potential (compile_pair_potential; parameters for every free name, truncation
//      from the byte's higher bits), evaluated by the program and the reference, as a radial
//      program and as CUDA source (cuda_device_function, cuda_pair_eval_kernel, cuda_function)
//   1: nbody's custom gravity (φ, G, dG), its radial program and its CUDA function
//   2: ljc's custom non-bonded term over r², q, σ, ε: pair_program (both variants) and the tiles'
//      NVRTC source
//   3: the bare graph: parse over r, t, s with parameters, derivatives, substitution, to_string
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "engine/formula/cuda_source.hpp"
#include "engine/formula/pair_potential.hpp"
#include "engine/formula/parser.hpp"
#include "engine/formula/program.hpp"
#include "engine/formula/radial_program.hpp"
#include "fuzz_target.hpp"
#include "ljc/cuda_custom_term.hpp"
#include "ljc/custom_nonbonded.hpp"
#include "nbody/custom_gravity.hpp"

namespace {

using namespace pairwise;
using namespace pairwise::formula;

constexpr std::array<double, 5> kR2 = {0.25, 0.81, 1.0, 2.25, 6.0};

// Every name the formula leaves free gets a value (1, 1.5, 2, ...), as md's [force_field] would
// give it from the pair's parameters.
std::map<std::string, double> parameters_for(const std::string& text) {
  std::map<std::string, double> p;
  double v = 1;
  for (const auto& name : free_names(text))
    if (name != "r") p[name] = v, v += 0.5;
  return p;
}

void exercise(const RadialProgram& rp) {
  for (double x : kR2) {
    std::vector<double> in(std::size_t(rp.inputs), 1.0);
    in[0] = x;
    (void)rp.evaluate(in);
  }
  (void)rp.cuda_function("pw_fuzz", "float");
  (void)rp.cuda_function("pw_fuzz", "double");
}

void md_pair(const std::string& text, int truncation) {
  PairPotentialSpec spec;
  spec.energy = text;
  spec.parameters = parameters_for(text);
  spec.cutoff = 2.5;
  spec.truncation = Truncation(truncation % 3);
  const PairPotential p = compile_pair_potential(spec);
  std::vector<double> e(kR2.size()), f(kR2.size()), scratch;
  const double* in[] = {kR2.data()};
  double* out[] = {e.data(), f.data()};
  p.program.run(in, int(kR2.size()), out, scratch);
  std::vector<float> r2f(kR2.begin(), kR2.end()), ef(kR2.size()), ff(kR2.size()), scratchf;
  const float* inf[] = {r2f.data()};
  float* outf[] = {ef.data(), ff.data()};
  p.program.run(inf, int(kR2.size()), outf, scratchf);
  double one[2];
  for (double x : kR2) {
    p.program.run_one(&x, one);
    p.reference(x, one[0], one[1]);
  }
  exercise(radial_program(p.graph, {p.energy, p.force_over_r}, 0));
  (void)cuda_device_function(p.graph, {p.energy, p.force_over_r}, 1, "pw_pair", "float");
  (void)cuda_pair_eval_kernel(p.graph, p.energy, p.force_over_r, "pw_eval", "double");
}

void nbody_gravity(const std::string& text) {
  const nbody::CustomGravity g(text, 0.05, "[gravity] potential", "fuzz.toml");
  double phi = 0, gr = 0, dg = 0;
  for (double x : kR2) g.reference(x, phi, gr, dg);
  exercise(g.radial());
}

void ljc_term(const std::string& text) {
  const ljc::CustomNonbonded custom(text, false, "[forcefield] custom", "fuzz.toml");
  exercise(ljc::ljc_pair_program(custom, false));
  exercise(ljc::ljc_pair_program(custom, true));
  (void)ljc::ljc_custom_tiles_program(custom, Precision::single, 1, 90);
}

void bare_graph(const std::string& text) {
  Graph g;
  Scope scope;
  scope.variables = {"r", "t", "s"};
  scope.parameters = {{"eps", 1.0}, {"sigma", 1.0}, {"q", -0.5}};
  const NodeId value = parse(g, text, scope);
  std::vector<NodeId> outputs = {value};
  for (int v = 0; v < 3; ++v) outputs.push_back(g.derivative(value, v));
  outputs.push_back(g.derivative(outputs[1], 0));
  outputs.push_back(g.substitute(value, 0, g.unary(Op::sqrt, g.variable(1))));
  std::vector<double> out;
  g.evaluate(outputs, {1.5, 0.5, 2.0}, out);
  (void)g.to_string(outputs[1], scope.variables);
  const Program program(g, outputs);
  std::vector<double> result(outputs.size());
  const double in[] = {1.5, 0.5, 2.0};
  program.run_one(in, result.data());
  (void)cuda_device_function(g, outputs, 3, "pw_graph", "double");
}

}  // namespace

PAIRWISE_FUZZ_TARGET(data, size) {
  if (size < 1) return;
  const std::string text = pairwise::fuzz::text(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      md_pair(text, data[0] / 4);
      break;
    case 1:
      nbody_gravity(text);
      break;
    case 2:
      ljc_term(text);
      break;
    default:
      bare_graph(text);
  }
}
