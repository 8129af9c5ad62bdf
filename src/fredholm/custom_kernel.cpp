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

formula::NodeId parse_checked(formula::Graph& g, int dim, bool kernel, std::string text,
                              const std::string& label, const std::string& where) {
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
    throw Error(e.describe(label), where);
  }
}

}  // namespace

CustomKernel::CustomKernel(int dim, const std::string& kernel, const std::string& kernel_label,
                           const std::string& kernel_where, const std::string& rhs,
                           const std::string& rhs_label, const std::string& rhs_where)
    : text_(kernel) {
  kernel_node_ = parse_checked(graph_, dim, true, kernel, kernel_label, kernel_where);
  kernel_program_ = formula::Program(graph_, {kernel_node_});
  if (!rhs.empty()) {
    has_rhs_ = true;
    rhs_node_ = parse_checked(graph_, dim, false, rhs, rhs_label, rhs_where);
    rhs_program_ = formula::Program(graph_, {rhs_node_});
  }
}

double CustomKernel::kernel_reference(const physics::fredholm::Point<double>& t,
                                      const physics::fredholm::Point<double>& s) const {
  return graph_.evaluate(kernel_node_, {t.x, t.y, t.z, s.x, s.y, s.z});
}

bool read_custom_kernel(const config::Section& eq, Spec& spec) {
  if (eq.string("kernel", "exp_ts") != "custom") {
    for (auto key : {"kernel_formula", "rhs_formula"})
      if (eq.has(key)) eq.fail(key, "is used with kernel = 'custom' only");
    return false;
  }
  if (!eq.has("kernel_formula"))
    eq.fail("kernel", "kernel = 'custom' needs kernel_formula = \"K(t, s)\"");
  spec.kernel = KernelKind::exp_ts;  // unused: the custom kernel replaces it
  const std::string rhs = eq.string("rhs_formula", "");
  spec.custom = std::make_shared<const CustomKernel>(
      spec.dim, eq.string("kernel_formula", ""), "[" + eq.name() + "] kernel_formula",
      eq.where("kernel_formula"), rhs, "[" + eq.name() + "] rhs_formula", eq.where("rhs_formula"));
  return true;
}

}  // namespace pairwise::fredholm
