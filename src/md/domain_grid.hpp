// The host pieces shared by the md domain engines (cpu: domain_engine.cpp, cuda:
// cuda_domain_engine.cu): the grid of domains and this rank's place in it, the global rebuild
// test, the log line, and the gathering of per-atom results into set_state's order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "md/system.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::md {

// The grid of domains: every factorization px·py·pz = ranks whose domains are at least r_list
// wide, the one with the least domain surface (least ghost volume). None: pairwise::Error
// ("... thinner than the cutoff plus skin ...", "md domain decomposition").
std::array<int, 3> choose_grid(int ranks, const std::array<double, 3>& length, double r_list);

// Custom pair styles (formulas, tables: table.custom) are not computed by the domain engines yet:
// pairwise::Error naming the way out (one rank), rather than pairs that never interact.
void refuse_custom_pairs(const PairTable& table);

// The px × py × pz grid and the domain [lo, hi) of rank `rank` (ranks numbered x fastest).
struct DomainGrid {
  Box box;
  std::array<double, 3> length{}, lo{}, hi{};
  std::array<int, 3> n{1, 1, 1}, coord{0, 0, 0};
  double r_list = 0;

  DomainGrid() = default;
  DomainGrid(const Box& b, double list_range, int ranks, int rank);  // throws as choose_grid

  // Into the box [lo, hi) along every axis, counting the crossings in the image flags.
  void wrap(double& x, double& y, double& z, int& ix, int& iy, int& iz) const;
  // The grid coordinates of the domain owning a wrapped position.
  std::array<int, 3> owner(double x, double y, double z) const;
  int rank_at(std::array<int, 3> c) const;  // periodic in c
  int neighbour(int d, int step) const;     // the rank `step` domains away along d
  // The shift along d of atoms sent down (side 0) or up (side 1): +L when the low face is the
  // box's (the copy appears above the top of the receiving domain), -L at the high face, else 0.
  double shift(int d, int side) const;
};

// Liu et al.'s test over every rank: d1 + d2 > skin with d1, d2 the two largest displacements
// since the last build over all ranks (`d1`, `d2`: this rank's).
bool rebuild_needed_on_any_rank(parallel::Communicator& comm, double d1, double d2, double skin);

// "domains 2x1x1, atoms per rank 15980 to 16020" (collective: every rank calls it).
std::string describe_domains(parallel::Communicator& comm, const DomainGrid& grid,
                             std::size_t local_atoms);

// A local atom's state for get_state (position wrapped), `slot` its set_state index.
struct AtomState {
  double x, y, z, vx, vy, vz;
  int ix, iy, iz, slot;
};
// Every rank's atoms into `s` (collective).
void gather_state(parallel::Communicator& comm, const std::vector<AtomState>& mine, System& s);

struct AtomForce {
  double fx, fy, fz;
  std::int64_t slot;
};
// Every rank's forces into fx, fy, fz of `total` atoms in set_state's order (collective).
void gather_forces(parallel::Communicator& comm, const std::vector<AtomForce>& mine,
                   std::size_t total, std::vector<double>& fx, std::vector<double>& fy,
                   std::vector<double>& fz);

// Every rank's neighbour pairs (set_state indices, either order), as sorted unique (i < j) pairs.
std::vector<std::pair<int, int>> gather_pairs(parallel::Communicator& comm,
                                              std::vector<std::pair<int, int>> mine);

// The id of the bad atom with the smallest set_state slot over every rank (`slot`: this rank's
// smallest, INT64_MAX if none; `id` its id); 0 if none.
std::uint32_t first_bad_on_any_rank(parallel::Communicator& comm, std::int64_t slot,
                                    std::uint32_t id);

}  // namespace pairwise::md
