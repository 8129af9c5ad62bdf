// The compiled form of formulas for the cpu backends: a flat register bytecode evaluated over
// batches of inputs (e.g. 256 pair distances). Every instruction is one loop over the batch
// (`r[d][k] = r[a][k] * r[b][k]`), so the compiler vectorizes each op (AVX2 / SSE2 lanes, picked at
// run time), and the interpretive overhead (one switch per instruction) is paid once per batch,
// not per pair. Chosen over generating C++ and calling the system compiler at run time: no
// compiler is needed where pairwise runs, nothing is written to disk, and the compile is
// microseconds; the loss against hand-written loops is the stores of intermediate registers to
// L1, measured in docs/formulas.md.
//
// Built from a Graph and its output nodes: the nodes they reach are numbered in dependency order
// (each node once: common sub-expressions are computed once), constants are hoisted into
// registers filled once per batch, and x^n for integer n becomes multiplies (binary powering).
#pragma once

#include <cstdint>
#include <vector>

#include "engine/formula/expression.hpp"

namespace pairwise::formula {

struct Instruction {
  Op op;
  std::int32_t dst, a, b, c;
  int n;  // powi exponent / variable index
};

template <class T>
class BatchProgram;

class Program {
 public:
  static constexpr int batch = 256;  // inputs per evaluation chunk

  Program() = default;
  Program(const Graph& g, const std::vector<NodeId>& outputs);

  int registers() const { return registers_; }
  int inputs() const { return inputs_; }
  std::size_t outputs() const { return output_reg_.size(); }
  std::size_t size() const { return code_.size(); }

  // Evaluates `count` points: inputs[v][k] is variable v at point k, outputs[o][k] receives output
  // o. Any count; internally in chunks of `batch`. `scratch` is resized as needed (one per thread).
  void run(const double* const* inputs, int count, double* const* outputs,
           std::vector<double>& scratch) const;
  void run(const float* const* inputs, int count, float* const* outputs,
           std::vector<float>& scratch) const;

  // One point, in double: out[o] = output o at inputs in[v] (a plain loop over the instructions on
  // a per-thread register file; for callers that get one pair at a time).
  void run_one(const double* in, double* out) const;

  const std::vector<Instruction>& code() const { return code_; }
  const std::vector<std::pair<int, double>>& constants() const { return constants_; }
  const std::vector<int>& output_registers() const { return output_reg_; }

 private:
  std::vector<Instruction> code_;
  std::vector<std::pair<int, double>> constants_;  // (register, value)
  std::vector<int> input_reg_;                     // register of each variable (-1: unused)
  std::vector<int> output_reg_;
  int registers_ = 0;
  int inputs_ = 0;
};

}  // namespace pairwise::formula
