// The host pieces shared by the md domain engines (domain_grid.hpp).
#include "md/domain_grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "md/periodic_images.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

std::array<int, 3> choose_grid(int ranks, const std::array<double, 3>& length, double r_list) {
  std::array<int, 3> best{0, 0, 0};
  double best_surface = std::numeric_limits<double>::infinity();
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py) continue;
      const int pz = ranks / px / py;
      const std::array<int, 3> g{px, py, pz};
      bool fits = true;
      for (int d = 0; d < 3; ++d) fits = fits && length[d] / g[d] >= r_list;
      if (!fits) continue;
      const double wx = length[0] / px, wy = length[1] / py, wz = length[2] / pz;
      const double surface = wx * wy + wy * wz + wx * wz;
      if (surface < best_surface - 1e-12) best_surface = surface, best = g;
    }
  }
  if (best[0] == 0) {
    const double widest = *std::max_element(length.begin(), length.end()) / ranks;
    char text[320];
    std::snprintf(text, sizeof text,
                  "%d ranks cut the %.4g x %.4g x %.4g box into domains thinner than the cutoff "
                  "plus skin (%.4g; the best cut leaves %.4g along the longest axis): use fewer "
                  "ranks or a bigger system",
                  ranks, length[0], length[1], length[2], r_list, widest);
    throw Error(text, "md domain decomposition");
  }
  return best;
}

void refuse_custom_pairs(const PairTable& table) {
  if (table.custom)
    throw Error(
        "custom pair styles (formulas, tables) run on one rank only in this version: the domain "
        "engines of md across ranks compute the lj styles (cut, shift, force_shift)",
        "force_field.style");
}

DomainGrid::DomainGrid(const Box& b, double list_range, int ranks, int rank)
    : box(b), r_list(list_range) {
  for (int d = 0; d < 3; ++d) length[d] = b.length(d);
  n = choose_grid(ranks, length, r_list);
  coord = {rank % n[0], rank / n[0] % n[1], rank / n[0] / n[1]};
  for (int d = 0; d < 3; ++d) {
    lo[d] = box.lo[d] + length[d] * coord[d] / n[d];
    hi[d] = box.lo[d] + length[d] * (coord[d] + 1) / n[d];
  }
}

void DomainGrid::wrap(double& x, double& y, double& z, int& ix, int& iy, int& iz) const {
  double* xs[3] = {&x, &y, &z};
  int* im[3] = {&ix, &iy, &iz};
  for (int d = 0; d < 3; ++d) {
    const double k = std::floor((*xs[d] - box.lo[d]) / length[d]);
    if (k != 0) *xs[d] -= k * length[d], *im[d] = add_images(*im[d], k);
    if (*xs[d] >= box.hi[d]) *xs[d] = box.lo[d];  // -tiny + L rounded up to L
  }
}

std::array<int, 3> DomainGrid::owner(double x, double y, double z) const {
  const double xs[3] = {x, y, z};
  std::array<int, 3> c{};
  for (int d = 0; d < 3; ++d)
    c[d] = std::clamp(int(std::floor((xs[d] - box.lo[d]) / length[d] * n[d])), 0, n[d] - 1);
  return c;
}

int DomainGrid::rank_at(std::array<int, 3> c) const {
  for (int d = 0; d < 3; ++d) c[d] = (c[d] + n[d]) % n[d];
  return c[0] + n[0] * (c[1] + n[1] * c[2]);
}

int DomainGrid::neighbour(int d, int step) const {
  std::array<int, 3> c = coord;
  c[d] += step;
  return rank_at(c);
}

double DomainGrid::shift(int d, int side) const {
  if (side == 0 && coord[d] == 0) return length[d];
  if (side == 1 && coord[d] == n[d] - 1) return -length[d];
  return 0;
}

bool rebuild_needed_on_any_rank(parallel::Communicator& comm, double d1, double d2, double skin) {
  const auto all = parallel::allgather_vectors(comm, std::vector<double>{d1, d2});
  double g1 = 0, g2 = 0;
  for (double d : all) {
    if (d > g1)
      g2 = g1, g1 = d;
    else if (d > g2)
      g2 = d;
  }
  return g1 + g2 > skin;
}

std::string describe_domains(parallel::Communicator& comm, const DomainGrid& grid,
                             std::size_t local_atoms) {
  std::int64_t counts[2] = {std::int64_t(local_atoms), -std::int64_t(local_atoms)};
  comm.allreduce_max(std::span<std::int64_t>(counts, 2));
  return "domains " + std::to_string(grid.n[0]) + "x" + std::to_string(grid.n[1]) + "x" +
         std::to_string(grid.n[2]) + ", atoms per rank " + std::to_string(-counts[1]) + " to " +
         std::to_string(counts[0]);
}

void gather_state(parallel::Communicator& comm, const std::vector<AtomState>& mine, System& s) {
  auto& a = s.atoms;
  for (const AtomState& o : parallel::allgather_vectors(comm, mine)) {
    const std::size_t i = std::size_t(o.slot);
    a.x[i] = o.x, a.y[i] = o.y, a.z[i] = o.z, a.vx[i] = o.vx, a.vy[i] = o.vy, a.vz[i] = o.vz;
    a.ix[i] = o.ix, a.iy[i] = o.iy, a.iz[i] = o.iz;
  }
}

void gather_forces(parallel::Communicator& comm, const std::vector<AtomForce>& mine,
                   std::size_t total, std::vector<double>& fx, std::vector<double>& fy,
                   std::vector<double>& fz) {
  fx.assign(total, 0), fy.assign(total, 0), fz.assign(total, 0);
  for (const AtomForce& o : parallel::allgather_vectors(comm, mine)) {
    const std::size_t i = std::size_t(o.slot);
    fx[i] = o.fx, fy[i] = o.fy, fz[i] = o.fz;
  }
}

std::vector<std::pair<int, int>> gather_pairs(parallel::Communicator& comm,
                                              std::vector<std::pair<int, int>> mine) {
  for (auto& p : mine)
    if (p.first > p.second) std::swap(p.first, p.second);
  auto all = parallel::allgather_vectors(comm, mine);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

std::uint32_t first_bad_on_any_rank(parallel::Communicator& comm, std::int64_t slot,
                                    std::uint32_t id) {
  const auto all =
      parallel::allgather_vectors(comm, std::vector<std::int64_t>{slot, std::int64_t(id)});
  std::int64_t best = std::numeric_limits<std::int64_t>::max(), best_id = 0;
  for (std::size_t q = 0; q + 1 < all.size(); q += 2)
    if (all[q] < best) best = all[q], best_id = all[q + 1];
  return std::uint32_t(best_id);
}

}  // namespace pairwise::md
