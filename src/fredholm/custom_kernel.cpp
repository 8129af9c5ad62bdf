#include "fredholm/custom_kernel.hpp"

#include <algorithm>

#include "engine/formula/parser.hpp"
#include "fredholm/problem.hpp"

namespace pairwise::fredholm {

namespace {

// Input slots 0..5 are t_x, t_y, t_z, s_x, s_y, s_z; in 1-D the formula calls them t and s.
formula::Scope scope_of(int dim, bool kernel) {
  formula::Scope scope;
  if (dim == 1)
    scope.variables = {"t", "", "", kernel ? "s" : "", "", ""};
  else
    scope.variables = {"tx",
                       "ty",
                       dim == 3 ? "tz" : "",
                       kernel ? "sx" : "",
                       kernel ? "sy" : "",
                       kernel && dim == 3 ? "sz" : ""};
  return scope;
}

formula::NodeId parse_checked(formula::Graph& g, int dim, bool kernel, const FormulaText& f) {
  std::string text = f.text;
  try {
    // r = |t − s| for 2-D and 3-D kernels, unless the formula defines its own r.
    if (kernel && dim > 1) {
      const auto names = formula::free_names(text);
      if (std::count(names.begin(), names.end(), "r"))
        text += dim == 2 ? "; r = sqrt((tx - sx)^2 + (ty - sy)^2)"
                         : "; r = sqrt((tx - sx)^2 + (ty - sy)^2 + (tz - sz)^2)";
    }
    return formula::parse(g, text, scope_of(dim, kernel));
  } catch (const formula::FormulaError& e) {
    throw Error(e.describe(f.label), f.where);
  }
}

}  // namespace

CustomKernel::CustomKernel(int dim, const FormulaText& kernel, const FormulaText& kernel_imag,
                           const FormulaText& rhs, const FormulaText& rhs_imag)
    : dim_(dim),
      complex_(!kernel_imag.text.empty()),
      text_(kernel.text),
      formulas_{kernel.text, kernel_imag.text, rhs.text, rhs_imag.text} {
  if (!complex_ && !rhs_imag.text.empty())
    throw Error(
        "a complex right-hand side needs a complex kernel (kernel_formula_real and "
        "kernel_formula_imag)",
        rhs_imag.where);
  kernel_node_ = parse_checked(graph_, dim, true, kernel);
  if (complex_) {
    kernel_imag_node_ = parse_checked(graph_, dim, true, kernel_imag);
    text_ = "(" + kernel.text + ") + i (" + kernel_imag.text + ")";
  }
  kernel_program_ = formula::Program(graph_, kernel_outputs());
  if (!rhs.text.empty() || !rhs_imag.text.empty()) {
    has_rhs_ = true;
    const formula::NodeId re =
        rhs.text.empty() ? graph_.constant(0) : parse_checked(graph_, dim, false, rhs);
    if (rhs_imag.text.empty()) {
      rhs_program_ = formula::Program(graph_, {re});
    } else {
      rhs_program_ = formula::Program(graph_, {re, parse_checked(graph_, dim, false, rhs_imag)});
    }
  }
}

double CustomKernel::kernel_reference(const physics::fredholm::Point<double>& t,
                                      const physics::fredholm::Point<double>& s) const {
  return graph_.evaluate(kernel_node_, {t.x, t.y, t.z, s.x, s.y, s.z});
}

std::complex<double> CustomKernel::complex_kernel_reference(
    const physics::fredholm::Point<double>& t, const physics::fredholm::Point<double>& s) const {
  const std::vector<double> in = {t.x, t.y, t.z, s.x, s.y, s.z};
  return {graph_.evaluate(kernel_node_, in),
          complex_ ? graph_.evaluate(kernel_imag_node_, in) : 0.0};
}

bool read_custom_kernel(const config::Section& eq, Spec& spec) {
  static const char* const kKeys[] = {"kernel_formula",      "kernel_formula_real",
                                      "kernel_formula_imag", "rhs_formula",
                                      "rhs_formula_real",    "rhs_formula_imag"};
  if (eq.string("kernel", "exp_ts") != "custom") {
    for (auto key : kKeys)
      if (eq.has(key)) eq.fail(key, "is used with kernel = 'custom' only");
    return false;
  }
  auto text = [&](const char* key) {
    return FormulaText{eq.string(key, ""), "[" + eq.name() + "] " + key, eq.where(key)};
  };
  const bool complex = eq.has("kernel_formula_real") || eq.has("kernel_formula_imag");
  if (complex) {
    if (eq.has("kernel_formula"))
      eq.fail("kernel_formula",
              "give either kernel_formula (a real kernel) or kernel_formula_real and "
              "kernel_formula_imag (a complex one)");
    for (auto key : {"kernel_formula_real", "kernel_formula_imag"})
      if (!eq.has(key))
        eq.fail("kernel", std::string("a complex kernel needs both kernel_formula_real and "
                                      "kernel_formula_imag (") +
                              key + " is missing)");
  } else if (!eq.has("kernel_formula")) {
    eq.fail("kernel",
            "kernel = 'custom' needs kernel_formula = \"K(t, s)\" (or kernel_formula_real and "
            "kernel_formula_imag)");
  }
  const bool complex_rhs = eq.has("rhs_formula_real") || eq.has("rhs_formula_imag");
  if (complex_rhs && eq.has("rhs_formula"))
    eq.fail("rhs_formula",
            "give either rhs_formula (a real h) or rhs_formula_real / rhs_formula_imag");
  if (complex_rhs && !complex)
    eq.fail(eq.has("rhs_formula_imag") ? "rhs_formula_imag" : "rhs_formula_real",
            "a complex right-hand side needs a complex kernel (kernel_formula_real and "
            "kernel_formula_imag)");
  spec.kernel = KernelKind::exp_ts;  // unused: the custom kernel replaces it
  if (complex) {
    spec.custom = std::make_shared<const CustomKernel>(
        spec.dim, text("kernel_formula_real"), text("kernel_formula_imag"),
        complex_rhs ? text("rhs_formula_real") : text("rhs_formula"), text("rhs_formula_imag"));
  } else {
    spec.custom = std::make_shared<const CustomKernel>(spec.dim, text("kernel_formula"),
                                                       FormulaText{}, text("rhs_formula"));
  }
  return true;
}

}  // namespace pairwise::fredholm
