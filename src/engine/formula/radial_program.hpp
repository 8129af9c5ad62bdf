// Formula outputs of one input x = r² as a short straight-line program for GPU pair kernels
// (issue 13): the graph's outputs are brought into a product normal form (normal_form.hpp: sums of
// c · Π Aₖ^(hₖ/2): atoms A are x, sums and function calls, exponents half-integers), so that the
// r/r, √x·√x and x^(a)·x^(b) left by symbolic differentiation cancel exactly, and every
// half-integer power of an atom comes from one rsqrt (negative powers) or sqrt (positive) and
// multiplies. The derivative of Plummer's φ = −1/√(r² + ε²) then costs what the hand-written kernel
// does: one rsqrt and two multiplies for G = φ′/r. When x enters only through one sum x + c (a
// softening shift), the program takes s = x + c as its input (RadialProgram::shift), so a kernel
// can fold c into its r² FMAs.
//
// The program is evaluated on the host in double (tests) and emitted as a CUDA __device__ function
// that calls pairwise::rsqrt (pairwise/math.hpp must precede it in the translation unit).
#pragma once

#include <string>
#include <vector>

#include "engine/formula/expression.hpp"

namespace pairwise::formula {

struct RadialProgram {
  enum class Code { constant, input, add, mul, neg, rsqrt, rcp, sqrt, call };
  struct Instruction {
    Code code = Code::constant;
    int a = -1, b = -1, c = -1;  // operand slots (earlier instructions)
    Op op = Op::constant;        // Code::call: the graph op (exp, erfc, min, select, ...)
    double value = 0;            // Code::constant
    int input = 0;               // Code::input: which input (0: x)
  };
  std::vector<Instruction> code;
  std::vector<int> outputs;  // slots of the outputs
  int inputs = 1;            // x, then the parameters of a pair_program
  // The input is x + shift (shifted == true), else x.
  bool shifted = false;
  double shift = 0;

  // The outputs at x (the program's input is x + shift when shifted), in double.
  std::vector<double> evaluate(double x) const;
  // The same with every input (inputs[0] = x, then the parameters).
  std::vector<double> evaluate(const std::vector<double>& inputs) const;
  // `__device__ __forceinline__ void <name>(const T s, T* out)`, s the program's input; with
  // parameters `(const T x0, const T x1, ..., T* out)`, x0 = x.
  std::string cuda_function(const std::string& name, const std::string& type) const;
};

// The outputs (functions of variable `input` alone) as a RadialProgram.
RadialProgram radial_program(const Graph& g, const std::vector<NodeId>& outputs, int input = 0);

// A pair formula's outputs in x = r² (variable r2_variable) and per-atom parameters (ljc's q1, q2,
// σ1, σ2, ε1, ε2), the program's inputs 1, 2, ... in the order given. The same normal form, with
// the parameters as atoms (sums of them, such as σ1 + σ2, one atom), and each output by Horner's
// rule in the powers of 1/r² (RadialProgram's Emitter::horner): the arithmetic of a hand-written
// LJ + Coulomb pair. side 1: the first atom's parameter (invariant in a kernel's loop over
// partners: its products are formed first, so that the compiler hoists them), 2: the second's;
// nonnegative: its value is never negative (σ, ε: √(ε1 ε2) = √ε1 √ε2).
struct PairParameter {
  int variable = 0;
  int side = 1;
  bool nonnegative = false;
};
RadialProgram pair_program(const Graph& g, const std::vector<NodeId>& outputs, int r2_variable,
                           const std::vector<PairParameter>& params);

}  // namespace pairwise::formula
