// Formula outputs of one input x = r² as a short straight-line program for GPU pair kernels
// (issue 13): the graph's outputs are brought into a product normal form (sums of c · Π Aₖ^(hₖ/2):
// atoms A are x, sums and function calls, exponents half-integers), so that the r/r, √x·√x and
// x^(a)·x^(b) left by symbolic differentiation cancel exactly, and every half-integer power of an
// atom comes from one rsqrt (negative powers) or sqrt (positive) and multiplies. The derivative of
// Plummer's φ = −1/√(r² + ε²) then costs what the hand-written kernel does: one rsqrt and two
// multiplies for G = φ′/r. When x enters only through one sum x + c (a softening shift), the
// program takes s = x + c as its input (RadialProgram::shift), so a kernel can fold c into its r²
// FMAs.
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
  };
  std::vector<Instruction> code;
  std::vector<int> outputs;  // slots of the outputs
  // The input is x + shift (shifted == true), else x.
  bool shifted = false;
  double shift = 0;

  // The outputs at x (the program's input is x + shift when shifted), in double.
  std::vector<double> evaluate(double x) const;
  // `__device__ __forceinline__ void <name>(const T s, T* out)`, s the program's input.
  std::string cuda_function(const std::string& name, const std::string& type) const;
};

// The outputs (functions of variable `input` alone) as a RadialProgram.
RadialProgram radial_program(const Graph& g, const std::vector<NodeId>& outputs, int input = 0);

}  // namespace pairwise::formula
