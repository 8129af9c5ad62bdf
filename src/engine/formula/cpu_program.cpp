// Compiled with -fno-math-errno -fno-trapping-math (src/CMakeLists.txt: every cpu*.cpp), so the
// per-instruction loops vectorize, sqrt included.
#include <algorithm>
#include <cmath>
#include <map>

#include "engine/formula/program.hpp"

namespace pairwise::formula {

Program::Program(const Graph& g, const std::vector<NodeId>& outputs) {
  std::map<NodeId, int> reg;
  // Depth-first post-order over the nodes the outputs reach: operands before their users.
  std::vector<char> seen(g.size(), 0);
  auto visit = [&](auto&& self, NodeId id) -> int {
    if (seen[std::size_t(id)]) return reg.at(id);
    const Node& n = g[id];
    int a = -1, b = -1, c = -1;
    if (n.a >= 0) a = self(self, n.a);
    if (n.b >= 0) b = self(self, n.b);
    if (n.c >= 0) c = self(self, n.c);
    const int r = registers_++;
    seen[std::size_t(id)] = 1;
    reg[id] = r;
    if (n.op == Op::constant) {
      constants_.push_back({r, n.value});
    } else if (n.op == Op::variable) {
      inputs_ = std::max(inputs_, n.n + 1);
      if (input_reg_.size() <= std::size_t(n.n)) input_reg_.resize(std::size_t(n.n) + 1, -1);
      input_reg_[std::size_t(n.n)] = r;
    } else if (n.op == Op::powi) {
      // x^n by binary powering into fresh registers, then 1/x^n for negative n.
      const bool inverse = n.n < 0;
      unsigned e = unsigned(inverse ? -n.n : n.n);
      int result = -1, base = a;
      while (e) {
        if (e & 1u) {
          if (result < 0) {
            result = base;
          } else {
            const int t = registers_++;
            code_.push_back({Op::mul, t, result, base, -1, 0});
            result = t;
          }
        }
        e >>= 1;
        if (e) {
          const int t = registers_++;
          code_.push_back({Op::mul, t, base, base, -1, 0});
          base = t;
        }
      }
      if (inverse) {
        int one = -1;
        for (auto& [rr, v] : constants_)
          if (v == 1.0) one = rr;
        if (one < 0) constants_.push_back({one = registers_++, 1.0});
        code_.push_back({Op::div, r, one, result, -1, 0});
      } else {
        code_.push_back({Op::add, r, result, -1, -1, 0});  // copy (b = -1: a + 0)
      }
    } else {
      code_.push_back({n.op, r, a, b, c, n.n});
    }
    return r;
  };
  for (NodeId o : outputs) output_reg_.push_back(visit(visit, o));
}

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PW_CLONES
#endif

// One chunk of m <= batch points; R is the register file, R + reg * batch is register reg.
template <class T>
inline void run_chunk_impl(const std::vector<Instruction>& code, T* __restrict__ R, int m) {
  constexpr int B = Program::batch;
  for (const Instruction& in : code) {
    T* __restrict__ d = R + std::size_t(in.dst) * B;
    const T* __restrict__ a = R + std::size_t(in.a) * B;
    const T* __restrict__ b = in.b >= 0 ? R + std::size_t(in.b) * B : nullptr;
    const T* __restrict__ c = in.c >= 0 ? R + std::size_t(in.c) * B : nullptr;
    switch (in.op) {
      case Op::add:
        if (b)
          for (int k = 0; k < m; ++k) d[k] = a[k] + b[k];
        else
          for (int k = 0; k < m; ++k) d[k] = a[k];
        break;
      case Op::sub:
        for (int k = 0; k < m; ++k) d[k] = a[k] - b[k];
        break;
      case Op::mul:
        for (int k = 0; k < m; ++k) d[k] = a[k] * b[k];
        break;
      case Op::div:
        for (int k = 0; k < m; ++k) d[k] = a[k] / b[k];
        break;
      case Op::neg:
        for (int k = 0; k < m; ++k) d[k] = -a[k];
        break;
      case Op::pow:
        for (int k = 0; k < m; ++k) d[k] = std::pow(a[k], b[k]);
        break;
      case Op::sqrt:
        for (int k = 0; k < m; ++k) d[k] = std::sqrt(a[k]);
        break;
      case Op::exp:
        for (int k = 0; k < m; ++k) d[k] = std::exp(a[k]);
        break;
      case Op::log:
        for (int k = 0; k < m; ++k) d[k] = std::log(a[k]);
        break;
      case Op::erf:
        for (int k = 0; k < m; ++k) d[k] = std::erf(a[k]);
        break;
      case Op::erfc:
        for (int k = 0; k < m; ++k) d[k] = std::erfc(a[k]);
        break;
      case Op::sin:
        for (int k = 0; k < m; ++k) d[k] = std::sin(a[k]);
        break;
      case Op::cos:
        for (int k = 0; k < m; ++k) d[k] = std::cos(a[k]);
        break;
      case Op::tan:
        for (int k = 0; k < m; ++k) d[k] = std::tan(a[k]);
        break;
      case Op::sinh:
        for (int k = 0; k < m; ++k) d[k] = std::sinh(a[k]);
        break;
      case Op::cosh:
        for (int k = 0; k < m; ++k) d[k] = std::cosh(a[k]);
        break;
      case Op::tanh:
        for (int k = 0; k < m; ++k) d[k] = std::tanh(a[k]);
        break;
      case Op::abs:
        for (int k = 0; k < m; ++k) d[k] = std::abs(a[k]);
        break;
      case Op::step:
        for (int k = 0; k < m; ++k) d[k] = a[k] >= T(0) ? T(1) : T(0);
        break;
      case Op::min:
        for (int k = 0; k < m; ++k) d[k] = a[k] < b[k] ? a[k] : b[k];
        break;
      case Op::max:
        for (int k = 0; k < m; ++k) d[k] = a[k] > b[k] ? a[k] : b[k];
        break;
      case Op::select:
        for (int k = 0; k < m; ++k) d[k] = a[k] != T(0) ? b[k] : c[k];
        break;
      case Op::powi:
      case Op::constant:
      case Op::variable:
        break;  // lowered at compile time
    }
  }
}

PW_CLONES void run_chunk(const std::vector<Instruction>& code, double* R, int m) {
  run_chunk_impl(code, R, m);
}
PW_CLONES void run_chunk(const std::vector<Instruction>& code, float* R, int m) {
  run_chunk_impl(code, R, m);
}

template <class T>
void run_program(const std::vector<Instruction>& code,
                 const std::vector<std::pair<int, double>>& constants,
                 const std::vector<int>& input_reg, const std::vector<int>& output_reg,
                 int registers, const T* const* inputs, int count, T* const* outputs,
                 std::vector<T>& scratch) {
  constexpr int B = Program::batch;
  if (scratch.size() < std::size_t(registers) * B) scratch.assign(std::size_t(registers) * B, T(0));
  T* R = scratch.data();
  for (const auto& [r, v] : constants)
    std::fill(R + std::size_t(r) * B, R + std::size_t(r + 1) * B, T(v));
  for (int start = 0; start < count; start += B) {
    const int m = std::min(B, count - start);
    for (std::size_t v = 0; v < input_reg.size(); ++v)
      if (input_reg[v] >= 0)
        std::copy(inputs[v] + start, inputs[v] + start + m, R + std::size_t(input_reg[v]) * B);
    run_chunk(code, R, m);
    for (std::size_t o = 0; o < output_reg.size(); ++o)
      std::copy(R + std::size_t(output_reg[o]) * B, R + std::size_t(output_reg[o]) * B + m,
                outputs[o] + start);
  }
}

}  // namespace

void Program::run_one(const double* in, double* out) const {
  thread_local std::vector<double> R;
  if (R.size() < std::size_t(registers_)) R.resize(std::size_t(registers_));
  for (const auto& [r, v] : constants_) R[std::size_t(r)] = v;
  for (std::size_t v = 0; v < input_reg_.size(); ++v)
    if (input_reg_[v] >= 0) R[std::size_t(input_reg_[v])] = in[v];
  for (const Instruction& i : code_) {
    const double a = R[std::size_t(i.a)];
    const double b = i.b >= 0 ? R[std::size_t(i.b)] : 0.0;
    const double c = i.c >= 0 ? R[std::size_t(i.c)] : 0.0;
    R[std::size_t(i.dst)] = i.op == Op::add && i.b < 0 ? a : apply(i.op, a, b, c, i.n);
  }
  for (std::size_t o = 0; o < output_reg_.size(); ++o) out[o] = R[std::size_t(output_reg_[o])];
}

void Program::run(const double* const* inputs, int count, double* const* outputs,
                  std::vector<double>& scratch) const {
  run_program(code_, constants_, input_reg_, output_reg_, registers_, inputs, count, outputs,
              scratch);
}

void Program::run(const float* const* inputs, int count, float* const* outputs,
                  std::vector<float>& scratch) const {
  run_program(code_, constants_, input_reg_, output_reg_, registers_, inputs, count, outputs,
              scratch);
}

}  // namespace pairwise::formula
