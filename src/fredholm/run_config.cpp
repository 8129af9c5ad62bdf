#include "fredholm/run_config.hpp"

#include <limits>

#include "core/output_keys.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {

RunConfig read_run_config(config::Config& config) {
  RunConfig rc;
  rc.source = config.source();
  const auto root = config.root();
  const std::string workload = root.string("workload", "fredholm");
  if (workload != "fredholm")
    root.fail("workload", "this command runs workload = \"fredholm\", not '" + workload + "'");
  Spec& sp = rc.spec;
  {
    const auto s = config.section("domain");
    sp.dim = int(s.integer("dim", 1, 1, 3));
    sp.n = s.integer("n", 16, std::numeric_limits<long long>::min(),
                     std::numeric_limits<long long>::max());
    if (const auto issue = check_nodes(sp)) s.fail(issue->key, issue->message);
    sp.lower[0] = s.number("a", 0.0);
    sp.upper[0] = s.number("b", 1.0);
    const char* lo_keys[] = {"a", "a_y", "a_z"};
    const char* hi_keys[] = {"b", "b_y", "b_z"};
    for (int d = 1; d < 3; ++d) {
      if (d < sp.dim) {
        sp.lower[d] = s.number(lo_keys[d], sp.lower[0]);
        sp.upper[d] = s.number(hi_keys[d], sp.upper[0]);
      } else {
        for (const char* key : {lo_keys[d], hi_keys[d]})
          if (s.has(key)) s.fail(key, "is not used with dim = " + std::to_string(sp.dim));
      }
    }
    if (const auto issue = check_domain(sp)) s.fail(issue->key, issue->message);
  }
  {
    const auto s = config.section("equation");
    if (!read_custom_kernel(s, sp))  // kernel = "custom": kernel_formula, rhs_formula
      sp.kernel = s.choice("kernel", "exp_ts", parse_kernel);
    const bool well = sp.kernel == KernelKind::square_well;
    sp.rhs = s.choice("rhs",
                      well                                 ? "riccati_j"
                      : sp.kernel == KernelKind::helmholtz ? "plane_wave"
                                                           : "one",
                      parse_rhs);
    sp.lambda = s.number("lambda", 1.0);
    if (sp.kernel == KernelKind::gaussian) {
      const double sigma = s.number("sigma", 1.0, config::Range::positive());
      sp.params.sigma2 = sigma * sigma;
    }
    if (well || sp.kernel == KernelKind::helmholtz)
      sp.params.k = s.number("k", 1.0, config::Range::positive());
    if (well) {
      sp.params.u0 = s.number("u0", 1.0);
      sp.params.l = int(s.integer("l", 0, 0, 3));
      rc.l_max = int(s.integer("l_max", -1, -1, 3));
      if (rc.l_max >= 0 && s.has("l")) s.fail("l_max", "give either l or l_max");
    }
    try {
      sp.validate();
    } catch (const Error& e) {
      s.fail("kernel", e.message());
    }
  }
  {
    const auto s = config.section("solver");
    rc.method = s.choice("method", "gmres", parse_solver);
    rc.solve.tolerance = s.number("tolerance", rc.solve.tolerance, config::Range::positive());
    rc.solve.max_iterations =
        int(s.integer("max_iterations", rc.solve.max_iterations, 1, 100000000));
    rc.solve.restart = int(s.integer("restart", rc.solve.restart, 1, 10000));
    if (const auto issue = check_solver(sp, rc.method)) s.fail("method", *issue);
  }
  {
    const auto s = config.section("run");
    const RunOptions run = config::read_run_options(s, "double");
    rc.backend = run.backend, rc.precision = run.precision;
  }
  {
    const auto s = config.section("output");
    auto& o = rc.output;
    const config::OutputNames names = config::read_output_names(config, s, "fredholm");
    o.directory = names.directory, o.prefix = names.prefix;
    o.nodes = s.boolean("nodes", true);
    o.grid_points = s.integer("grid_points", 0, 0, 100000000);
    o.grid_a = s.number("grid_a", sp.lower[0]);
    o.grid_b = s.number("grid_b", sp.upper[0]);
    if (o.grid_points > 0 && sp.dim > 1 &&
        double(o.grid_points) *
                (sp.dim == 3 ? double(o.grid_points) * o.grid_points : o.grid_points) >
            1e8)
      s.fail("grid_points", "the grid (grid_points^dim points) is too large");
  }
  config.check_unused();
  return rc;
}

}  // namespace pairwise::fredholm
