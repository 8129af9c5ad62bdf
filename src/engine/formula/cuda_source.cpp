#include "engine/formula/cuda_source.hpp"

#include <map>
#include <sstream>

namespace pairwise::formula {

namespace {

std::string literal(double v, const std::string& type) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  std::string t = s.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";  // nan/inf never reach here
  return type == "float" ? "float(" + t + ")" : t;
}

// The CUDA math function of a call node (nullptr: an operator or step/select): the formula's own
// name (op_name) except where CUDA's differs.
const char* function_name(Op op) {
  switch (op) {
    case Op::abs:
      return "fabs";
    case Op::min:
      return "fmin";
    case Op::max:
      return "fmax";
    case Op::pow:
      return "pow";
    case Op::sqrt:
    case Op::exp:
    case Op::log:
    case Op::erf:
    case Op::erfc:
    case Op::sin:
    case Op::cos:
    case Op::tan:
    case Op::sinh:
    case Op::cosh:
    case Op::tanh:
      return op_name(op);
    default:
      return nullptr;
  }
}

}  // namespace

std::string cuda_call(Op op, const std::string& a, const std::string& b, const std::string& c,
                      const std::string& type) {
  if (op == Op::step) return "(" + a + " >= " + type + "(0) ? " + type + "(1) : " + type + "(0))";
  if (op == Op::select) return "(" + a + " != " + type + "(0) ? " + b + " : " + c + ")";
  const char* f = function_name(op);
  if (!f) throw Error(std::string("no CUDA call for the operation ") + op_name(op));
  return std::string(f) + "(" + a + (b.empty() ? "" : ", " + b) + ")";
}

std::string cuda_device_function(const Graph& g, const std::vector<NodeId>& outputs, int inputs,
                                 const std::string& name, const std::string& type) {
  std::ostringstream src;
  src << "__device__ inline void " << name << "(";
  for (int v = 0; v < inputs; ++v) src << "const " << type << " x" << v << ", ";
  src << type << "* out) {\n";
  std::map<NodeId, std::string> var;
  int next = 0;
  auto visit = [&](auto&& self, NodeId id) -> std::string {
    if (auto it = var.find(id); it != var.end()) return it->second;
    const Node& n = g[id];
    std::string expr;
    if (n.op == Op::constant) {
      return var[id] = literal(n.value, type);
    } else if (n.op == Op::variable) {
      return var[id] = "x" + std::to_string(n.n);
    }
    const std::string a = self(self, n.a);
    const std::string b = n.b >= 0 ? self(self, n.b) : "";
    const std::string c = n.c >= 0 ? self(self, n.c) : "";
    switch (n.op) {
      case Op::add:
        expr = a + " + " + b;
        break;
      case Op::sub:
        expr = a + " - " + b;
        break;
      case Op::mul:
        expr = a + " * " + b;
        break;
      case Op::div:
        expr = a + " / " + b;
        break;
      case Op::neg:
        expr = "-" + a;
        break;
      case Op::powi: {
        // Binary powering, the same multiplication order as the cpu program.
        const bool inverse = n.n < 0;
        unsigned e = unsigned(inverse ? -n.n : n.n);
        std::string result, base = a;
        while (e) {
          if (e & 1u) {
            if (result.empty()) {
              result = base;
            } else {
              const std::string t = "v" + std::to_string(next++);
              src << "  const " << type << " " << t << " = " << result << " * " << base << ";\n";
              result = t;
            }
          }
          e >>= 1;
          if (e) {
            const std::string t = "v" + std::to_string(next++);
            src << "  const " << type << " " << t << " = " << base << " * " << base << ";\n";
            base = t;
          }
        }
        expr = inverse ? type + "(1) / " + result : result;
        break;
      }
      default:
        expr = cuda_call(n.op, a, b, c, type);
    }
    const std::string t = "v" + std::to_string(next++);
    src << "  const " << type << " " << t << " = " << expr << ";\n";
    return var[id] = t;
  };
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const std::string v = visit(visit, outputs[k]);
    src << "  out[" << k << "] = " << v << ";\n";
  }
  src << "}\n";
  return src.str();
}

std::string cuda_pair_eval_kernel(const Graph& g, NodeId energy, NodeId force_over_r,
                                  const std::string& name, const std::string& type) {
  std::ostringstream src;
  src << cuda_device_function(g, {energy, force_over_r}, 1, name + "_pair", type) << "\n"
      << "extern \"C\" __global__ void " << name << "(const " << type << "* r2, " << type << "* e, "
      << type << "* fr, int n) {\n"
      << "  const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      << "  if (i >= n) return;\n"
      << "  " << type << " out[2];\n"
      << "  " << name << "_pair(r2[i], out);\n"
      << "  e[i] = out[0];\n"
      << "  fr[i] = out[1];\n"
      << "}\n";
  return src.str();
}

}  // namespace pairwise::formula
