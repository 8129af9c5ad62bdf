#include "ljc/host_kernel.hpp"
#include "core/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "pairwise/error.hpp"

namespace pairwise::ljc {

PairKernel parse_pair_kernel(std::string_view text) {
  if (text == "auto") return PairKernel::automatic;
  if (text == "one-sided") return PairKernel::one_sided;
  if (text == "newton3") return PairKernel::newton3;
  throw Error("unknown pair kernel '" + std::string(text) +
              "' (expected auto, one-sided or newton3)");
}

std::string_view to_string(PairKernel k) {
  switch (k) {
    case PairKernel::one_sided:
      return "one-sided";
    case PairKernel::newton3:
      return "newton3";
    case PairKernel::automatic:
      break;
  }
  return "auto";
}

StepKernel parse_step_kernel(std::string_view text) {
  if (text == "auto") return StepKernel::automatic;
  if (text == "graph") return StepKernel::graph;
  if (text == "persistent") return StepKernel::persistent;
  throw Error("unknown step kernel '" + std::string(text) +
              "' (expected auto, graph or persistent)");
}

std::string_view to_string(StepKernel k) {
  switch (k) {
    case StepKernel::graph:
      return "graph";
    case StepKernel::persistent:
      return "persistent";
    case StepKernel::automatic:
      break;
  }
  return "auto";
}

PreparedSystem prepare_system(const Molecule& m, const NonbondedOptions& nb) {
  PreparedSystem s;
  s.n = m.size();
  s.dielectric = nb.dielectric;
  s.sigmoidal = {nb.sigmoidal.alpha, nb.sigmoidal.beta, nb.sigmoidal.gamma, nb.sigmoidal.delta};
  const double charge_scale =
      std::sqrt(physics::coulomb_prefactor(nb.dielectric, nb.epsilon, nb.linear_factor));
  s.atoms.resize(s.n);
  for (std::size_t i = 0; i < s.n; ++i) {
    s.atoms[i] = {m.q[i] * charge_scale, 0.5 * m.sigma[i], std::sqrt(m.epsilon[i])};
  }
  s.lists = derive_pair_lists(m);
  s.scale14_lj = nb.scale14_lj;
  s.scale14_coulomb = nb.scale14_coulomb;
  std::vector<std::vector<ScaledPair>> rows(s.n);
  for (auto [i, j] : s.lists.excluded) {
    rows[i].push_back({j, 0, 0});
    rows[j].push_back({i, 0, 0});
  }
  for (auto [i, j] : s.lists.scaled14) {
    rows[i].push_back({j, nb.scale14_lj, nb.scale14_coulomb});
    rows[j].push_back({i, nb.scale14_lj, nb.scale14_coulomb});
  }
  s.row.assign(s.n + 1, 0);
  for (std::size_t i = 0; i < s.n; ++i) {
    std::sort(rows[i].begin(), rows[i].end(),
              [](const ScaledPair& a, const ScaledPair& b) { return a.j < b.j; });
    s.row[i + 1] = s.row[i] + static_cast<int>(rows[i].size());
    s.pairs.insert(s.pairs.end(), rows[i].begin(), rows[i].end());
  }
  s.bonds = m.bonds;
  return s;
}

void add_bond_forces(const std::vector<Bond>& bonds, const double* x, const double* y,
                     const double* z, LjcForces& out) {
  for (const Bond& b : bonds) {
    const double d[3] = {x[b.i] - x[b.j], y[b.i] - y[b.j], z[b.i] - z[b.j]};
    const double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const double dr = r - b.r0;
    out.bond += 0.5 * b.k * dr * dr;
    const double f = r > 0 ? -b.k * dr / r : 0.0;  // force on i along d
    out.fx[b.i] += f * d[0], out.fy[b.i] += f * d[1], out.fz[b.i] += f * d[2];
    out.fx[b.j] -= f * d[0], out.fy[b.j] -= f * d[1], out.fz[b.j] -= f * d[2];
  }
}

void LjcKernel::advance(Molecule& m, const std::vector<double>& inv_mass,
                        const engine::DynamicsOptions& o, std::uint64_t first_step,
                        std::int64_t steps, LjcForces& f) {
  engine::DynamicsArrays a;
  a.n = m.size();
  a.x = m.x.data(), a.y = m.y.data(), a.z = m.z.data();
  a.vx = m.vx.data(), a.vy = m.vy.data(), a.vz = m.vz.data();
  a.fx = f.fx.data(), a.fy = f.fy.data(), a.fz = f.fz.data();
  a.inv_mass = inv_mass.data();
  for (std::int64_t s = 1; s <= steps; ++s) {
    engine::dynamics_step(a, o, first_step + std::uint64_t(s), [&] {
      set_positions(m.x.data(), m.y.data(), m.z.data());
      compute(f);
    });
  }
}

void HostLjcKernel::set_system(const Molecule& m, const NonbondedOptions& nb) {
  system_ = prepare_system(m, nb);
  x_ = m.x, y_ = m.y, z_ = m.z;
}

void HostLjcKernel::set_positions(const double* x, const double* y, const double* z) {
  std::copy(x, x + system_.n, x_.begin());
  std::copy(y, y + system_.n, y_.begin());
  std::copy(z, z + system_.n, z_.begin());
}

void HostLjcKernel::compute(LjcForces& out) {
  out.resize(system_.n);
  nonbonded(out);
  add_bond_forces(system_.bonds, x_.data(), y_.data(), z_.data(), out);
}

double HostLjcKernel::time_compute(int repeats) {
  LjcForces f;
  return median_wall_seconds([&] { compute(f); }, repeats);
}

}  // namespace pairwise::ljc
