#include "engine/table_cuda.hpp"

#include <cmath>
#include <sstream>
#include <vector>

#include "engine/table_pair.hpp"
#include "pairwise/error.hpp"

namespace pairwise::engine {

namespace {

// An exact literal of v in T: hexadecimal (C++17), rounded to float first in FP32.
std::string exact(double v, bool single) {
  const double x = single ? double(float(v)) : v;
  if (!std::isfinite(x))
    throw Error("a table value is not finite in " + std::string(single ? "FP32" : "FP64") + " (" +
                std::to_string(v) + ")");
  std::ostringstream s;
  s << std::hexfloat << x << (single ? "f" : "");
  return s.str();
}

}  // namespace

bool is_table(const RadialPair& pair) {
  return dynamic_cast<const TablePair*>(&pair) != nullptr;
}

std::string table_cuda_function(const RadialPair& pair, int inputs, const std::string& name,
                                const std::string& T, bool zero_beyond_cutoff) {
  const auto* table_pair = dynamic_cast<const TablePair*>(&pair);
  if (!table_pair) throw Error("not a table pair: " + pair.describe(), "table_cuda_function");
  const io::PairTableInterpolator& t = table_pair->table();
  const bool single = T == "float";
  const bool linear = t.style() == io::TableStyle::linear;
  const int bins = t.points() - 1;  // evaluate() clamps the bin to [0, n - 2]
  // Per bin, an energy record and a force record, in two arrays (a force kernel reads only the
  // second): linear {E_k, ΔE_k}, {f_k, Δf_k}; spline {E_k, E_k+1, E''_k, E''_k+1} and the same of
  // f.
  std::vector<double> energy, force;
  for (int k = 0; k < bins; ++k) {
    const std::size_t i = std::size_t(k);
    if (linear) {
      energy.insert(energy.end(), {t.e()[i], t.de()[i]});
      force.insert(force.end(), {t.f()[i], t.df()[i]});
    } else {
      energy.insert(energy.end(), {t.e()[i], t.e()[i + 1], t.e2()[i], t.e2()[i + 1]});
      force.insert(force.end(), {t.f()[i], t.f()[i + 1], t.f2()[i], t.f2()[i + 1]});
    }
  }
  // The vector type of a load: the whole record in FP32 (float2, float4), double2 in FP64.
  const int per_vec = single ? (linear ? 2 : 4) : 2;
  const std::string vec = single ? (linear ? "float2" : "float4") : "double2";
  const int vecs_per_bin = (linear ? 2 : 4) / per_vec;
  auto lit = [&](double v) { return exact(v, single); };

  std::ostringstream src;
  src << "// " << pair.describe() << ": " << (linear ? "linear" : "spline") << " in r^2, "
      << t.points() << " points, r^2 from " << t.inner_squared() << " to " << pair.rc2() << "\n";
  for (const auto& [suffix, values] : {std::pair{"_e", &energy}, {"_f", &force}}) {
    src << "__device__ __align__(32) const " << vec << " " << name << suffix << "["
        << bins * vecs_per_bin << "] = {\n";
    for (std::size_t v = 0; v < values->size(); v += std::size_t(per_vec)) {
      src << "    {";
      for (int c = 0; c < per_vec; ++c)
        src << (c ? ", " : "") << lit((*values)[v + std::size_t(c)]);
      src << "},\n";
    }
    src << "};\n";
  }
  src << "__device__ __forceinline__ void " << name << "(";
  for (int v = 0; v < inputs; ++v) src << "const " << T << (v == 0 ? " r2" : "") << ", ";
  src << T << "* out) {\n";
  if (zero_beyond_cutoff)
    src << "  if (!(r2 < " << lit(pair.rc2()) << ")) {\n"
        << "    out[0] = out[1] = " << T << "(0);\n"
        << "    return;\n  }\n";
  // PairTableInterpolator::evaluate: the bin k, clamped to [0, n - 2], and the fraction b of r²
  // in it (unclamped: the end bins extrapolate).
  const std::string inner = lit(t.inner_squared()), inverse = lit(1.0 / t.delta());
  if (single && bins - 1 < (1 << 22)) {
    // FP32 without the conversions (F2I, I2F: quarter-rate, as many as the built-in LJ's one
    // reciprocal twice over): t = (r² − inner²)/delta, clamped, truncated by adding 1.5·2^23
    // rounding toward zero (the low bits of the sum are then ⌊t⌋), b = t − ⌊t⌋. Rounds as the
    // float r² does (t to 2^-24 relative); the bin may differ from the host's at its edges,
    // where the interpolation is continuous.
    src << "  const float t = (r2 - " << inner << ") * " << inverse << ";\n"
        << "  const float s = __fadd_rz(fminf(fmaxf(t, 0.0f), " << lit(bins - 1)
        << "), 0x1.8p+23f);\n"
        << "  const int k = __float_as_int(s) - 0x4b400000;\n"
        << "  const float b = t - (s - 0x1.8p+23f);\n";
  } else {
    // The host's arithmetic: rsq_k = inner² + k·delta rounded as there (no contraction).
    const std::string mul = single ? "__fmul_rn" : "__dmul_rn",
                      add = single ? "__fadd_rn" : "__dadd_rn";
    src << "  int k = int((r2 - " << inner << ") * " << inverse << ");\n"
        << "  k = k < 0 ? 0 : (k > " << bins - 1 << " ? " << bins - 1 << " : k);\n"
        << "  const " << T << " start = " << add << "(" << inner << ", " << mul << "(" << T
        << "(k), " << lit(t.delta()) << "));\n"
        << "  const " << T << " b = (r2 - start) * " << inverse << ";\n";
  }
  const std::string e = name + "_e + " + std::to_string(vecs_per_bin) + " * k",
                    f = name + "_f + " + std::to_string(vecs_per_bin) + " * k";
  if (linear) {
    src << "  const " << vec << " e = __ldg(" << e << "), f = __ldg(" << f << ");\n"
        << "  out[0] = e.x + b * e.y;\n"
        << "  out[1] = f.x + b * f.y;\n";
  } else {
    const std::string d6 = lit(t.delta() * t.delta() / 6.0);
    src << "  const " << T << " a = " << T << "(1) - b;\n"
        << "  const " << T << " ca = (a * a * a - a) * " << d6 << ", cb = (b * b * b - b) * " << d6
        << ";\n";
    if (single)
      src << "  const float4 e = __ldg(" << e << "), f = __ldg(" << f << ");\n"
          << "  out[0] = a * e.x + b * e.y + ca * e.z + cb * e.w;\n"
          << "  out[1] = a * f.x + b * f.y + ca * f.z + cb * f.w;\n";
    else
      src << "  const double2 e0 = __ldg(" << e << "), e1 = __ldg(" << e << " + 1);\n"
          << "  const double2 f0 = __ldg(" << f << "), f1 = __ldg(" << f << " + 1);\n"
          << "  out[0] = a * e0.x + b * e0.y + ca * e1.x + cb * e1.y;\n"
          << "  out[1] = a * f0.x + b * f0.y + ca * f1.x + cb * f1.y;\n";
  }
  src << "}\n";
  return src.str();
}

}  // namespace pairwise::engine
