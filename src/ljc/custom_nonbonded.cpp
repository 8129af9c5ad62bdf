#include "ljc/custom_nonbonded.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "engine/formula/parser.hpp"
#include "engine/table_pair.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

namespace {
constexpr int kInputs = 7;  // r², q1, q2, sigma1, sigma2, epsilon1, epsilon2
}

CustomNonbonded::CustomNonbonded(const std::string& energy, bool replaces, const std::string& label,
                                 const std::string& where)
    : replaces_(replaces), text_(energy) {
  formula::Graph& g = graph_;
  try {
    formula::Scope scope;
    // Slot 7 is r itself while differentiating; r is then replaced by √r² (slot 0).
    scope.variables = {"__r2", "q1", "q2", "sigma1", "sigma2", "epsilon1", "epsilon2", "r"};
    const formula::NodeId u = formula::parse(g, energy, scope);
    const formula::NodeId r = g.variable(7);
    const formula::NodeId fr = g.neg(g.div(g.derivative(u, 7), r));
    // Finite at r = 3 Å for typical atoms (q = ±0.5 e, σ = 3 Å, ε = 0.1 kcal/mol).
    std::vector<double> out;
    g.evaluate({u, fr}, {9.0, 0.5, -0.5, 3.0, 3.0, 0.1, 0.1, 3.0}, out, true);
    if (!std::isfinite(out[0]) || !std::isfinite(out[1]))
      throw formula::FormulaError(
          "non-finite value at r = 3 A (q = +-0.5, sigma = 3, epsilon = 0.1)", 0);
    const formula::NodeId sqrt_r2 = g.unary(formula::Op::sqrt, g.variable(0));
    energy_ = g.substitute(u, 7, sqrt_r2);
    force_over_r_ = g.substitute(fr, 7, sqrt_r2);
  } catch (const formula::FormulaError& e) {
    throw Error(e.describe(label), where);
  }
  program_ = formula::Program(g, {energy_, force_over_r_});
}

CustomNonbonded::CustomNonbonded(std::shared_ptr<const engine::RadialPair> table, bool replaces)
    : replaces_(replaces), text_(table->describe()), table_(std::move(table)) {}

std::shared_ptr<const CustomNonbonded> make_table_nonbonded(config::Config& config,
                                                            const config::Section& s) {
  const std::string file = (config.base_directory() / s.string("table_file", "")).string();
  if (!s.has("table_keyword"))
    s.fail("table_keyword", "table_file needs table_keyword = \"<section of the table file>\"");
  const std::string style = s.string("table_style", "linear");
  s.choice("table_style", "linear",
           [](std::string_view t) { return io::parse_table_style(std::string(t)); });
  const int n = int(s.integer("table_n", 1000, 2, 1 << 24));
  const double cutoff = s.number("table_cutoff", 0.0, config::Range::non_negative());
  return std::make_shared<const CustomNonbonded>(
      engine::make_table_pair(file, s.string("table_keyword", ""), style, n, cutoff,
                              "[forcefield] table_file"),
      s.boolean("custom_replaces", false));
}

void CustomNonbonded::reference(const double* in, double& energy, double& force_over_r) const {
  thread_local std::vector<double> out;
  graph_.evaluate({energy_, force_over_r_}, std::vector<double>(in, in + kInputs), out);
  energy = out[0], force_over_r = out[1];
}

namespace {

class CustomTermKernel final : public LjcKernel {
 public:
  CustomTermKernel(std::unique_ptr<LjcKernel> inner, std::shared_ptr<const CustomNonbonded> c)
      : inner_(std::move(inner)), custom_(std::move(c)) {}
  std::string device_name() const override {
    return inner_->device_name() + " + custom term " + custom_->text();
  }
  BackendKind backend() const override { return inner_->backend(); }
  Precision precision() const override { return inner_->precision(); }

  void set_system(const Molecule& m, const NonbondedOptions& nb) override {
    mol_ = m;
    system_ = prepare_system(m, nb);
    if (custom_->replaces()) {
      Molecule bonds_only = m;  // LJ + Coulomb switched off, bonds kept
      std::fill(bonds_only.q.begin(), bonds_only.q.end(), 0.0);
      std::fill(bonds_only.epsilon.begin(), bonds_only.epsilon.end(), 0.0);
      inner_->set_system(bonds_only, nb);
    } else {
      inner_->set_system(m, nb);
    }
    x_ = m.x, y_ = m.y, z_ = m.z;
  }
  void set_positions(const double* x, const double* y, const double* z) override {
    inner_->set_positions(x, y, z);
    x_.assign(x, x + mol_.size()), y_.assign(y, y + mol_.size()), z_.assign(z, z + mol_.size());
  }
  void compute(LjcForces& out) override {
    inner_->compute(out);
    add_custom(out);
  }
  // The whole evaluation (built-in kernel + the term, transfers included), median of `repeats`.
  double time_compute(int repeats) override {
    LjcForces f;
    f.resize(mol_.size());
    compute(f);  // warm-up
    std::vector<double> t;
    for (int k = 0; k < std::max(1, repeats); ++k) {
      f.resize(mol_.size());
      const auto start = std::chrono::steady_clock::now();
      compute(f);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::nth_element(t.begin(), t.begin() + long(t.size() / 2), t.end());
    return t[t.size() / 2];
  }

 private:
  void add_custom(LjcForces& out) {
    const long n = static_cast<long>(mol_.size());
    const bool reference = inner_->backend() == BackendKind::reference;
    std::vector<double> energy(std::size_t(n), 0.0);
    const PreparedSystem& s = system_;
#pragma omp parallel
    {
      constexpr int B = formula::Program::batch;
      std::vector<double> in[kInputs], e(B), fr(B), scale(B), scratch;
      for (auto& v : in) v.resize(B);
      std::vector<long> js(B);
#pragma omp for schedule(dynamic, 16)
      for (long i = 0; i < n; ++i) {
        double f[3] = {0, 0, 0}, ei = 0;
        const ScaledPair* begin = s.pairs.data() + s.row[std::size_t(i)];
        const ScaledPair* end = s.pairs.data() + s.row[std::size_t(i) + 1];
        int m = 0;
        auto flush = [&] {
          if (const engine::RadialPair* table = custom_->table()) {
            for (int k = 0; k < m; ++k) {
              const double r2 = in[0][k];
              if (r2 < table->rc2())
                table->reference(r2, e[std::size_t(k)], fr[std::size_t(k)]);
              else
                e[std::size_t(k)] = fr[std::size_t(k)] = 0;
            }
          } else if (reference) {
            for (int k = 0; k < m; ++k) {
              const double point[kInputs] = {in[0][k], in[1][k], in[2][k], in[3][k],
                                             in[4][k], in[5][k], in[6][k]};
              custom_->reference(point, e[std::size_t(k)], fr[std::size_t(k)]);
            }
          } else {
            const double* inputs[kInputs];
            for (int v = 0; v < kInputs; ++v) inputs[v] = in[v].data();
            double* outputs[] = {e.data(), fr.data()};
            custom_->program().run(inputs, m, outputs, scratch);
          }
          for (int k = 0; k < m; ++k) {
            const long j = js[std::size_t(k)];
            const double d[3] = {x_[i] - x_[j], y_[i] - y_[j], z_[i] - z_[j]};
            const double sf = scale[std::size_t(k)] * fr[std::size_t(k)];
            for (int c = 0; c < 3; ++c) f[c] += sf * d[c];
            ei += scale[std::size_t(k)] * e[std::size_t(k)];
          }
          m = 0;
        };
        for (long j = 0; j < n; ++j) {
          if (j == i) continue;
          double sl = 1;
          const ScaledPair* p = std::lower_bound(
              begin, end, j, [](const ScaledPair& a, long jj) { return a.j < jj; });
          if (p != end && p->j == j) {
            if (p->lj == 0 && p->coulomb == 0) continue;  // excluded
            sl = p->lj;                                   // a 1-4 pair: scaled like LJ
          }
          const double dx = x_[i] - x_[j], dy = y_[i] - y_[j], dz = z_[i] - z_[j];
          const std::size_t k = std::size_t(m);
          in[0][k] = dx * dx + dy * dy + dz * dz;
          in[1][k] = mol_.q[std::size_t(i)], in[2][k] = mol_.q[std::size_t(j)];
          in[3][k] = mol_.sigma[std::size_t(i)], in[4][k] = mol_.sigma[std::size_t(j)];
          in[5][k] = mol_.epsilon[std::size_t(i)], in[6][k] = mol_.epsilon[std::size_t(j)];
          scale[k] = sl, js[k] = j;
          if (++m == B) flush();
        }
        if (m) flush();
        out.fx[std::size_t(i)] += f[0], out.fy[std::size_t(i)] += f[1],
            out.fz[std::size_t(i)] += f[2];
        energy[std::size_t(i)] = ei;
      }
    }
    for (long i = 0; i < n; ++i) out.custom += 0.5 * energy[std::size_t(i)];
  }

  std::unique_ptr<LjcKernel> inner_;
  std::shared_ptr<const CustomNonbonded> custom_;
  Molecule mol_;
  PreparedSystem system_;
  std::vector<double> x_, y_, z_;
};

}  // namespace

std::unique_ptr<LjcKernel> with_custom_nonbonded(std::unique_ptr<LjcKernel> inner,
                                                 std::shared_ptr<const CustomNonbonded> custom) {
  return std::make_unique<CustomTermKernel>(std::move(inner), std::move(custom));
}

}  // namespace pairwise::ljc
