#include "engine/formula/inverse_r.hpp"

#include <map>

namespace pairwise::formula {

NodeId in_r2_and_inverse_r(Graph& g, NodeId root, int r_index, int r2_index, int rinv_index) {
  const NodeId r2 = g.variable(r2_index), rinv = g.variable(rinv_index);
  auto is_r = [&](NodeId id) {
    const Node& n = g[id];
    return n.op == Op::variable && n.n == r_index;
  };
  // k > 0 when `id` is r^k (r itself: 1), else 0.
  auto power_of_r = [&](NodeId id) {
    if (is_r(id)) return 1;
    const Node& n = g[id];
    return n.op == Op::powi && n.n > 0 && is_r(n.a) ? n.n : 0;
  };
  std::map<NodeId, NodeId> memo;  // original node -> rebuilt node
  auto rec = [&](auto&& self, NodeId id) -> NodeId {
    if (auto it = memo.find(id); it != memo.end()) return it->second;
    const Node n = g[id];
    NodeId out = id;
    if (n.op == Op::variable) {
      out = n.n == r_index ? g.mul(r2, rinv) : id;
    } else if (n.op == Op::div && power_of_r(n.b) > 0) {
      const int k = power_of_r(n.b);
      out = g.mul(self(self, n.a), k == 1 ? rinv : g.powi(rinv, k), n.column);
    } else if (n.op == Op::powi && is_r(n.a) && n.n < 0) {
      out = g.powi(rinv, -n.n, n.column);
    } else if (n.op == Op::powi && is_r(n.a) && n.n > 0 && n.n % 2 == 0) {
      out = n.n == 2 ? r2 : g.powi(r2, n.n / 2, n.column);
    } else if (n.op != Op::constant) {
      const NodeId a = self(self, n.a);
      const NodeId b = n.b >= 0 ? self(self, n.b) : -1;
      const NodeId c = n.c >= 0 ? self(self, n.c) : -1;
      if (n.op == Op::powi)
        out = g.powi(a, n.n, n.column);
      else if (n.op == Op::select)
        out = g.select(a, b, c, n.column);
      else
        out = arity(n.op) == 1 ? g.unary(n.op, a, n.column) : g.binary(n.op, a, b, n.column);
    }
    memo[id] = out;
    return out;
  };
  return rec(rec, root);
}

}  // namespace pairwise::formula
