// The persistent MD-step kernel of the ljc workload (cuda_persistent.cu; host launcher taking a
// plain struct, compiles with g++). Many velocity-Verlet / BAOAB steps inside one cooperative
// launch, as Liu et al. did: block b owns atoms [b·T, (b+1)·T) and keeps their double x, v, f in
// registers across the steps; per step every block
//   1. ends the last step and starts this one for its own atoms (half kick, half kick, drift or
//      BAOAB's drift-O-drift: the PW_HD steps of pairwise/physics/dynamics.hpp) and writes their
//      new positions into one of two global buffers (double-buffered: no block overwrites what
//      another still reads),
//   2. grid.sync(),
//   3. loads all N positions (and the constant σ/2, sqrt ε) into shared memory and evaluates the
//      one-sided pair sum of its own atoms with physics::ljc_pair (ljc.hpp): warps take contiguous
//      ranges of (target, 32-source tile) units, lanes the 32 sources of a tile, exclusions and
//      1-4 pairs from the per-target tile rows of tile_masks.hpp (RowMasks, a cursor per target);
//      warp partial sums are reduced by shuffles and summed over warps in a fixed order, the bonds
//      and 1-4 pairs of the atom added (each atom computes its own side): no atomics, bitwise
//      deterministic in every precision.
// One grid synchronization per step. Shared memory holds the whole system (24, 40, 48 bytes per
// atom in single, mixed, double), so the kernel serves N up to what fits (plan_persistent).
#pragma once

#include <cstddef>
#include <string>

#include "pairwise/physics/dielectric.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::ljc::cuda {

struct PersistentPlan {
  bool ok = false;
  std::string why;  // when not ok
  int blocks = 0, threads = 0, targets_per_block = 0;
  std::size_t smem = 0;  // dynamic shared memory per block
};
// The launch shape for n atoms on the current device: one block per SM, T = ceil(n / SMs) atoms
// per block; not ok when the system does not fit in shared memory or the device cannot run a
// cooperative grid of that many blocks.
PersistentPlan plan_persistent(Precision p, physics::DielectricKind d, int n);

struct PersistentArgs {
  Precision precision = Precision::single;
  physics::DielectricKind dielectric = physics::DielectricKind::constant;
  PersistentPlan plan;
  int n = 0;
  const void* par = nullptr;        // float4 / double4 [>= 32·ceil(n/32)]: q (scaled), σ/2, √ε
  const int* row_start = nullptr;   // [n + 1] (RowMasks)
  const void* row_masks = nullptr;  // int2 {J, bits}
  const int* bond_start = nullptr;  // [n + 1]: bonds of each atom (both ends list the bond)
  const int* bond_j = nullptr;      // partner
  const double* bond_rk = nullptr;  // [2 per entry]: r0, k
  const int* p14_start = nullptr;   // [n + 1]: 1-4 pairs of each atom
  const int* p14_j = nullptr;
  double scale14_lj = 0, scale14_coulomb = 0;
  double sig[4] = {};
  double* x = nullptr;  // [3][n] in/out
  double* v = nullptr;  // [3][n] in/out
  double* f = nullptr;  // [3][n] in: forces at x; out: forces at the final x
  const double* inv_mass = nullptr;
  double dt = 1;
  bool langevin = false;
  double kT = 0, c1 = 1, c2 = 0;
  unsigned long long seed = 0;
  unsigned long long* step = nullptr;  // device: the last step's index; += steps
  long long steps = 0;
  double* xbuf = nullptr;   // [2][3][n] double positions (bonded terms)
  void* pbuf = nullptr;     // float4 / double4 [2][32·ceil(n/32)]: x, y, z, q
  void* pbuf_lo = nullptr;  // float4 [2][..], mixed only
  void* stream = nullptr;
};
void launch_persistent(const PersistentArgs& a);

}  // namespace pairwise::ljc::cuda
