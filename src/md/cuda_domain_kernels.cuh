// The kernels of the md cuda domain engine (cuda_domain_engine.cu, which describes the step):
// the integrator halves, the rebuild test's displacement top-2, migration records, ghost
// selection and packing, the cell list and full neighbour list over the domain and its ghost
// shell, forces and thermo sums. Positions are not wrapped between rebuilds (a local atom may
// drift out of its domain and the box until the next migration), so no kernel takes a minimum
// image: ghosts carry their periodic shift. Included by cuda_domain_engine.cu only.
#pragma once

#include <cstdint>
#include <type_traits>

#include "md/cuda_md_common.cuh"
#include "md/quotient_floor.hpp"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/lj_styles.hpp"

namespace pairwise::md {
namespace {

constexpr int kDomainBlock = 128;

// An atom crossing to another rank at a rebuild (the force is recomputed before it is used).
template <class R4>
struct MoveRecord {
  R4 pos, vel;  // pos.w: type index, vel.w: 1 / mass
  int4 image;
  unsigned id;
  int slot;  // set_state index
};

// The domain's geometry for the kernels, in double as the cpu domain engine's tests.
struct DomainP {
  double box_lo[3], box_hi[3], length[3];
  double inv_length[3];  // 1 / length (quotient_floor)
  int n[3], coord[3];
};

// The cell grid over the domain plus its ghost shell (cells at least r_list wide).
struct ShellCellsP {
  double origin[3], width[3];
  double inv_width[3];  // 1 / width (quotient_floor)
  int n[3];
};

template <class R4>
__device__ __forceinline__ double coordinate(const R4& p, int d) {
  return d == 0 ? double(p.x) : d == 1 ? double(p.y) : double(p.z);
}

constexpr int kKickBlock = 512;  // domain_kick_drift: 4× fewer block pairs for the merge

// The two largest of the block's pairs (a1 ≥ a2 in each thread) into *out and, returned, in
// thread 0 (every thread of the block calls it). The top-2 of a set of values does not depend on
// the order they are merged in.
template <int Block>
__device__ __forceinline__ double2 block_top2_pairs(double a1, double a2, double2* out) {
  for (int o = 16; o > 0; o >>= 1)
    merge_top2(a1, a2, __shfl_down_sync(0xffffffffu, a1, o), __shfl_down_sync(0xffffffffu, a2, o));
  __shared__ double s1[Block / 32], s2[Block / 32];
  if ((threadIdx.x & 31) == 0) s1[threadIdx.x >> 5] = a1, s2[threadIdx.x >> 5] = a2;
  __syncthreads();
  double2 top = make_double2(0, 0);
  if (threadIdx.x == 0) {
    for (int w = 1; w < Block / 32; ++w) merge_top2(s1[0], s2[0], s1[w], s2[w]);
    top = make_double2(s1[0], s2[0]);
    *out = top;
  }
  return top;
}

// The two largest of the block's d2 into *out (every thread of the block calls it).
template <int Block>
__device__ __forceinline__ void block_top2(double d2, double2* out) {
  block_top2_pairs<Block>(d2, 0, out);
}

// Half kick with the forces of the last step (unless domain_forces applied it ahead:
// `kick_first` false), then the drift (none, Andersen) or BAOAB's half drift, O step, half drift
// (Langevin), with the random stream keyed by atom id and `step`; the
// fixed-point copy of the new position when `fixed` is set (mixed, fixed_positions); and the
// block's two largest |r − r_build|² for the rebuild test into block_top2[blockIdx.x] (in double;
// a NaN counts as huge: the run then rebuilds and the driver reports the atom). With `x0_fixed`
// (mixed's fixed-point positions) r_build is the fixed-point copy taken at the rebuild and
// r − r_build the difference of the two copies in quanta (within a quantum, 2.6e-9 σ at
// r_list = 2.8 σ, of the double difference; 16 bytes read an atom instead of 32).
template <class R, int Thermostat>
__global__ void __launch_bounds__(kKickBlock)
    domain_kick_drift(int n, typename Vec4<R>::type* __restrict__ pos,
                      typename Vec4<R>::type* __restrict__ vel,
                      const typename Vec4<R>::type* __restrict__ force,
                      const unsigned* __restrict__ id, DynP dyn, unsigned long long step,
                      int4* __restrict__ fixed, FixedP fp,
                      const typename Vec4<R>::type* __restrict__ x0,
                      const int4* __restrict__ x0_fixed, double2* __restrict__ block_top,
                      bool kick_first, const int* __restrict__ stop = nullptr) {
  if (stop && *stop) return;  // the device rebuild test fired earlier in the batch (whole grid)
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double d2 = 0;
  if (i < n) {
    auto p = pos[i], v = vel[i];
    if (kick_first) {
      const auto f = force[i];
      const R h = R(0.5 * dyn.dt * double(v.w));
      physics::kick(v.x, f.x, h), physics::kick(v.y, f.y, h), physics::kick(v.z, f.z, h);
    }
    if (Thermostat == 1) {
      const R hd = R(0.5 * dyn.dt);
      physics::drift(p.x, v.x, hd), physics::drift(p.y, v.y, hd), physics::drift(p.z, v.z, hd);
      physics::langevin_o_step(v.x, v.y, v.z, double(v.w), dyn.kT, {dyn.c1, dyn.c2}, dyn.seed, step,
                               id[i]);
      physics::drift(p.x, v.x, hd), physics::drift(p.y, v.y, hd), physics::drift(p.z, v.z, hd);
    } else {
      const R dt = R(dyn.dt);
      physics::drift(p.x, v.x, dt), physics::drift(p.y, v.y, dt), physics::drift(p.z, v.z, dt);
    }
    pos[i] = p;
    if (kick_first || Thermostat == 1) vel[i] = v;
    if (x0_fixed) {
      const int4 u = fixed_of(p, fp), q = x0_fixed[i];
      fixed[i] = u;
      // The differences wrap modulo 2^32 quanta (the period, 4 r_list ≫ a move between builds).
      const double dx = double(int(unsigned(u.x) - unsigned(q.x))) *
                        (double(fp.quantum_hi[0]) + double(fp.quantum_lo[0]));
      const double dy = double(int(unsigned(u.y) - unsigned(q.y))) *
                        (double(fp.quantum_hi[1]) + double(fp.quantum_lo[1]));
      const double dz = double(int(unsigned(u.z) - unsigned(q.z))) *
                        (double(fp.quantum_hi[2]) + double(fp.quantum_lo[2]));
      d2 = dx * dx + dy * dy + dz * dz;
      const double sum = double(p.x) + double(p.y) + double(p.z);
      if (!(sum - sum == 0)) d2 = 1e300;  // a NaN or infinite position
    } else {
      if (fixed) fixed[i] = fixed_of(p, fp);
      const auto q = x0[i];
      const double dx = double(p.x) - double(q.x), dy = double(p.y) - double(q.y),
                   dz = double(p.z) - double(q.z);
      d2 = dx * dx + dy * dy + dz * dz;
      if (!(d2 == d2)) d2 = 1e300;
    }
  }
  block_top2<kKickBlock>(d2, block_top + blockIdx.x);
}

// merge_block_top2 and merge_and_test run as one block of kMergeBlock threads (a block of 128
// took 19 µs over the 4,000 block pairs of 2 M atoms, its thread 0 merging 128 in a row).
constexpr int kMergeBlock = 1024;

// One block: the two largest over the blocks' pairs into out[0], returned in thread 0.
__device__ __forceinline__ double2 merge_blocks_top2(int blocks,
                                                     const double2* __restrict__ block_top2,
                                                     double2* out) {
  double a1 = 0, a2 = 0;
  for (int b = threadIdx.x; b < blocks; b += kMergeBlock)
    merge_top2(a1, a2, block_top2[b].x, block_top2[b].y);
  return block_top2_pairs<kMergeBlock>(a1, a2, out);
}

__global__ void __launch_bounds__(kMergeBlock)
    merge_block_top2(int blocks, const double2* __restrict__ block_top2, double2* out) {
  merge_blocks_top2(blocks, block_top2, out);
}

// The batched steps' rebuild test on the device (one domain on every axis: no other rank's
// top-2 to gather): merge_block_top2, then Liu et al.'s d1 + d2 > skin in double as
// rebuild_needed_on_any_rank; when it fires, stop[0] = 1 (every later kernel of the batch returns
// at once) and stop[1] = `k`, the step's index in the batch. Nothing once stop[0] is set.
__global__ void __launch_bounds__(kMergeBlock)
    merge_and_test(int blocks, const double2* __restrict__ block_top2, double2* out, double skin,
                   int k, int* stop) {
  if (*stop) return;
  const double2 top = merge_blocks_top2(blocks, block_top2, out);
  if (threadIdx.x == 0 && sqrt(top.x) + sqrt(top.y) > skin) stop[0] = 1, stop[1] = k;
}

// The batched steps' rebuild test across ranks (PAIRWISE_MD_BATCH_RANKS=1): every rank's merged
// top-2 (merge_block_top2, all-gathered: `ranks` pairs of squared displacements) merged again,
// then Liu et al.'s d1 + d2 > skin as rebuild_needed_on_any_rank takes it on the host (the two
// largest of all ranks' values: the same numbers, so the same decision, on every rank); the stop
// flag as merge_and_test's. One thread: a few ranks' pairs.
__global__ void ranks_top2_test(int ranks, const double2* __restrict__ rank_top2, double skin,
                                int k, int* stop) {
  if (*stop) return;
  double a1 = 0, a2 = 0;
  for (int r = 0; r < ranks; ++r) merge_top2(a1, a2, rank_top2[r].x, rank_top2[r].y);
  if (sqrt(a1) + sqrt(a2) > skin) stop[0] = 1, stop[1] = k;
}

// Into the box [lo, hi) along every axis (DomainGrid::wrap in double): x wrapped in place, the
// crossings of each axis into shift (image flags to add). Returns whether anything changed.
__device__ __forceinline__ bool wrap_coordinates(double (&x)[3], int (&shift)[3],
                                                 const DomainP& g) {
  bool moved = false;
  for (int d = 0; d < 3; ++d) {
    shift[d] = 0;
    const double k = quotient_floor(x[d] - g.box_lo[d], g.length[d], g.inv_length[d]);
    if (k != 0 && k == k) x[d] -= k * g.length[d], shift[d] = int(k), moved = true;
    if (x[d] >= g.box_hi[d]) x[d] = g.box_lo[d], moved = true;  // -tiny + L rounded up to L
  }
  return moved;
}

// The atoms wrapped (wrap_coordinates) and packed as records for the re-sort.
template <class R4>
__global__ void wrap_and_pack(int n, const R4* __restrict__ pos, const R4* __restrict__ vel,
                              const int4* __restrict__ image, const unsigned* __restrict__ id,
                              const int* __restrict__ slot, DomainP g,
                              MoveRecord<R4>* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  MoveRecord<R4> r;
  r.pos = pos[i], r.vel = vel[i], r.image = image[i], r.id = id[i], r.slot = slot[i];
  double x[3] = {double(r.pos.x), double(r.pos.y), double(r.pos.z)};
  int shift[3];
  wrap_coordinates(x, shift, g);
  r.image.x += shift[0], r.image.y += shift[1], r.image.z += shift[2];
  using R = decltype(r.pos.x);
  r.pos.x = R(x[0]), r.pos.y = R(x[1]), r.pos.z = R(x[2]);
  out[i] = r;
}

// wrap_coordinates of local atom i in place (p: its position, updated): its position and
// image flags written only when it moved, the flags read only then (a rebuild reads 16 bytes an
// atom instead of 32).
template <class R4>
__device__ __forceinline__ void wrap_atom(int i, R4& p, R4* __restrict__ pos,
                                          int4* __restrict__ image, const DomainP& g) {
  double x[3] = {double(p.x), double(p.y), double(p.z)};
  int shift[3];
  if (!wrap_coordinates(x, shift, g)) return;
  using R = decltype(p.x);
  p.x = R(x[0]), p.y = R(x[1]), p.z = R(x[2]);
  pos[i] = p;
  int4 m = image[i];
  m.x += shift[0], m.y += shift[1], m.z += shift[2];
  image[i] = m;
}

// The local atoms wrapped in place (a rebuild with one domain on every axis and no re-sort).
template <class R4>
__global__ void wrap_in_place(int n, R4* __restrict__ pos, int4* __restrict__ image, DomainP g) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  R4 p = pos[i];
  wrap_atom(i, p, pos, image, g);
}

// The selections' ranks in index order (ghost_stage_place, leaver_place): for a thread flagged
// a and/or b, how many threads of the grid before it are flagged a and b, from its block's
// exclusive offsets (scan_block_counts) plus the flagged lanes of the warps and lanes before it
// (ballots). Every thread of the block calls it (a __syncthreads inside).
template <int Block>
__device__ __forceinline__ int2 flagged_before(bool a, bool b, int2 block_offset) {
  const unsigned ma = __ballot_sync(0xffffffffu, a), mb = __ballot_sync(0xffffffffu, b);
  __shared__ int2 warp_counts[Block / 32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (lane == 0) warp_counts[w] = make_int2(__popc(ma), __popc(mb));
  __syncthreads();
  int2 before = block_offset;
  for (int k = 0; k < w; ++k) before.x += warp_counts[k].x, before.y += warp_counts[k].y;
  const unsigned below = (1u << lane) - 1u;
  before.x += __popc(ma & below), before.y += __popc(mb & below);
  return before;
}

// One block of 1,024 threads: block_counts[0, blocks) → exclusive offsets (in place); returns
// the totals (to every thread).
__device__ __forceinline__ int2 scan_block_counts(int2* __restrict__ block_counts, int blocks) {
  // Chunks of 1,024 consecutive entries, one a thread (coalesced loads), each scanned by warp
  // shuffles and a second-level scan of the 32 warp sums, plus the running carry (a thread
  // walking 1/1,024 of the entries took 41 µs at 16,000 entries, its loads strided).
  __shared__ int2 warp_sums[32];
  __shared__ int2 carry;
  const int t = threadIdx.x, lane = t & 31, w = t >> 5;
  if (t == 0) carry = make_int2(0, 0);
  __syncthreads();
  for (int base = 0; base < blocks; base += 1024) {
    const int b = base + t;
    const int2 v = b < blocks ? block_counts[b] : make_int2(0, 0);
    int2 x = v;  // inclusive warp scan
    for (int o = 1; o < 32; o <<= 1) {
      const int ya = __shfl_up_sync(0xffffffffu, x.x, o), yb = __shfl_up_sync(0xffffffffu, x.y, o);
      if (lane >= o) x.x += ya, x.y += yb;
    }
    if (lane == 31) warp_sums[w] = x;
    __syncthreads();
    if (w == 0) {
      const int2 ws = warp_sums[lane];
      int2 y = ws;
      for (int o = 1; o < 32; o <<= 1) {
        const int za = __shfl_up_sync(0xffffffffu, y.x, o),
                  zb = __shfl_up_sync(0xffffffffu, y.y, o);
        if (lane >= o) y.x += za, y.y += zb;
      }
      warp_sums[lane] = make_int2(y.x - ws.x, y.y - ws.y);  // exclusive
    }
    __syncthreads();
    const int2 c = carry;
    if (b < blocks)
      block_counts[b] =
          make_int2(c.x + warp_sums[w].x + x.x - v.x, c.y + warp_sums[w].y + x.y - v.y);
    __syncthreads();  // every thread has read carry and warp_sums
    if (t == 1023) carry = make_int2(c.x + warp_sums[31].x + x.x, c.y + warp_sums[31].y + x.y);
    __syncthreads();
  }
  return carry;
}

// The migration across ranks, every decomposed axis on the device with no host decision in
// between (as the ghost stages'). Step k of a rebuild moves atoms along one axis d: leaver_flags
// (each local atom's way: 0 stays, 1 down to coord − 1, 2 up to coord + 1; the down and up counts
// of each block), leaver_scan (one block: the blocks' exclusive offsets, the totals),
// leaver_place (each leaver's entry in its way's list and, below the new count kept = n −
// leavers, in the holes; each stayer at or above it in the fillers, the k-th from the end at k),
// pack_leaver_messages (each way's records into a message of fixed size, its count last),
// fill_holes, the messages to the neighbours, unpack_arrivals (theirs after the kept atoms, from
// above then from below: the cpu engine's order). Every list in index order: deterministic. The
// local count before step k is n[k] (MigrationCounts; the host's for step 0), after it n[k + 1].
// A way longer than the message skips the whole step on that rank (nothing leaves, the
// neighbours take nothing from it), and the host redoes the migration with larger messages: what
// moved stays moved, what did not is found again.
constexpr int kLeaverBlock = 512;

struct MigrationCounts {
  int n[4];           // the local atoms before step k (n[0]: the host's), after the last
  int way[3][2];      // step k's leavers down and up
  int arrived[3][2];  // step k's arrivals from above and from below
  int skipped[3];     // 1: a way of step k did not fit its message
  int holes[3];       // step k's holes (as many as the fillers)
  int overflow;       // the longest way that did not fit a message (0: none)
  unsigned far;       // an atom owned by a domain further away: its id + 1 (0: none)
};

// One step's parameters: the step, its axis, the local count at its start (`first_n` ≥ 0: the
// host's, step 0; −1: counts->n[k]) and the records a way's message holds.
struct MigrationStepP {
  int k, d, first_n, message;
};

__device__ __forceinline__ int step_count(const MigrationStepP& p, const MigrationCounts* c) {
  return p.first_n >= 0 ? p.first_n : c->n[p.k];
}

// `wrap` (the first axis with several domains): the atom wrapped into the box first (wrap_atom).
// An atom owned by a domain further away sets counts->far to its id + 1 (a clear error on the
// host). g is __grid_constant__: read in place from the parameter bank. Indexed by the run-time
// axis d (g.box_lo[d] ...), a plain by-value parameter was copied whole (120 bytes) to every
// thread's stack: 242 µs a rebuild at 8,192,000 atoms for a pass that reads 16 bytes an atom. A
// grid over the step's largest count; the blocks past its count return.
template <class R4>
__global__ void __launch_bounds__(kLeaverBlock)
    leaver_flags(MigrationStepP p, MigrationCounts* counts, R4* __restrict__ pos,
                 int4* __restrict__ image, const unsigned* __restrict__ id,
                 const __grid_constant__ DomainP g, bool wrap, unsigned char* __restrict__ way,
                 int2* __restrict__ block_counts) {
  const int n = step_count(p, counts), d = p.d;
  if (int(blockIdx.x) * kLeaverBlock >= n) return;
  const int i = blockIdx.x * kLeaverBlock + threadIdx.x;
  bool lo = false, hi = false;
  if (i < n) {
    R4 q = pos[i];
    if (wrap) wrap_atom(i, q, pos, image, g);
    const double x = coordinate(q, d);
    int c = int(quotient_floor(x - g.box_lo[d], g.length[d], g.inv_length[d], g.n[d]));
    c = c < 0 ? 0 : (c > g.n[d] - 1 ? g.n[d] - 1 : c);
    const int me = g.coord[d];
    const bool stays = c == me;
    lo = !stays && c == (me + g.n[d] - 1) % g.n[d];
    hi = !stays && !lo && c == (me + 1) % g.n[d];
    way[i] = (unsigned char)(lo ? 1 : (hi ? 2 : 0));
    if (!stays && !lo && !hi) atomicMax(&counts->far, id[i] + 1u);
  }
  const int n_lo = __syncthreads_count(lo), n_hi = __syncthreads_count(hi);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = make_int2(n_lo, n_hi);
}

// One block of 1,024 threads: the offsets in place; the step's ways, and whether they fit.
__global__ void __launch_bounds__(1024)
    leaver_scan(MigrationStepP p, MigrationCounts* counts, int2* __restrict__ block_counts) {
  const int n = step_count(p, counts);
  const int2 total = scan_block_counts(block_counts, (n + kLeaverBlock - 1) / kLeaverBlock);
  if (threadIdx.x == 0) {
    counts->n[p.k] = n;
    counts->way[p.k][0] = total.x, counts->way[p.k][1] = total.y;
    const int longest = total.x > total.y ? total.x : total.y;
    if (longest > p.message) {
      counts->skipped[p.k] = 1;
      if (counts->overflow < longest) counts->overflow = longest;
    }
  }
}

// The lists (see above), unless the step is skipped.
__global__ void __launch_bounds__(kLeaverBlock)
    leaver_place(MigrationStepP p, MigrationCounts* counts, const unsigned char* __restrict__ way,
                 const int2* __restrict__ offsets, int* __restrict__ down, int* __restrict__ up,
                 int* __restrict__ holes, int* __restrict__ fillers) {
  const int n = counts->n[p.k];
  if (int(blockIdx.x) * kLeaverBlock >= n || counts->skipped[p.k]) return;
  const int i = blockIdx.x * kLeaverBlock + threadIdx.x;
  const int s = i < n ? way[i] : 0;
  const bool lo = s == 1, hi = s == 2;
  // The down and up leavers below i.
  const int2 before = flagged_before<kLeaverBlock>(lo, hi, offsets[blockIdx.x]);
  if (i >= n) return;
  const int leavers = counts->way[p.k][0] + counts->way[p.k][1], kept = n - leavers;
  const int leavers_below = before.x + before.y;
  if (lo) down[before.x] = i;
  if (hi) up[before.y] = i;
  if ((lo || hi) && i < kept) holes[leavers_below] = i;
  if (!lo && !hi && i >= kept) {
    const int k = (n - 1 - i) - (leavers - leavers_below);  // the stayers above i
    fillers[k] = i;
    atomicMax(&counts->holes[p.k], k + 1);
  }
}

// Each way's leavers as records into its message, way w at out[w · (message + 1) + j], its count
// in the last record's slot (−1: the step is skipped, nothing leaves). A grid of 2 · message + 2
// threads, before fill_holes refills the leavers' slots.
template <class R4>
__global__ void pack_leaver_messages(MigrationStepP p, const MigrationCounts* counts,
                                     const int* __restrict__ down, const int* __restrict__ up,
                                     const R4* __restrict__ pos, const R4* __restrict__ vel,
                                     const int4* __restrict__ image,
                                     const unsigned* __restrict__ id, const int* __restrict__ slot,
                                     MoveRecord<R4>* __restrict__ out) {
  const int m = p.message, t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= 2 * (m + 1)) return;
  const int w = t >= m + 1 ? 1 : 0, j = t - w * (m + 1);
  const bool skipped = counts->skipped[p.k] != 0;
  const int count = counts->way[p.k][w];
  if (j == m) {  // the way's count
    MoveRecord<R4> r{};
    r.slot = skipped ? -1 : count;
    out[t] = r;
    return;
  }
  if (skipped || j >= count) return;
  const int i = (w == 0 ? down : up)[j];
  MoveRecord<R4> r;
  r.pos = pos[i], r.vel = vel[i], r.image = image[i], r.id = id[i], r.slot = slot[i];
  out[t] = r;
}

// The neighbours' messages (laid out as pack_leaver_messages': way 0, the atoms arriving from
// above, then way 1, from below) after the kept atoms, in that order; the step's arrivals and the
// count after it into `counts`. A grid of 2 · message threads.
template <class R4>
__global__ void unpack_arrivals(MigrationStepP p, MigrationCounts* counts,
                                const MoveRecord<R4>* __restrict__ rec, R4* __restrict__ pos,
                                R4* __restrict__ vel, int4* __restrict__ image,
                                unsigned* __restrict__ id, int* __restrict__ slot) {
  const int m = p.message, n = counts->n[p.k];
  const int leavers = counts->skipped[p.k] ? 0 : counts->way[p.k][0] + counts->way[p.k][1];
  const int kept = n - leavers;
  const int in0 = max(rec[m].slot, 0), in1 = max(rec[2 * m + 1].slot, 0);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    counts->arrived[p.k][0] = in0, counts->arrived[p.k][1] = in1;
    counts->n[p.k + 1] = kept + in0 + in1;
  }
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= 2 * m) return;
  const int w = t >= m ? 1 : 0, j = t - w * m;
  if (j >= (w ? in1 : in0)) return;
  const MoveRecord<R4> r = rec[w * (m + 1) + j];
  const int i = kept + (w ? in0 : 0) + j;
  pos[i] = r.pos, vel[i] = r.vel, image[i] = r.image, id[i] = r.id, slot[i] = r.slot;
}

// The leavers' slots below the new count refilled by the staying atoms above it, pair i: the i-th
// hole (ascending) takes fillers[i] (the i-th such stayer from the end); counts->holes[k] pairs
// (as many holes as stayers above; holes below and fillers above the new count: no slot is both
// read and written). None in a skipped step.
template <class R4>
__global__ void fill_holes(MigrationStepP p, const MigrationCounts* counts,
                           const int* __restrict__ holes, const int* __restrict__ fillers,
                           R4* __restrict__ pos, R4* __restrict__ vel, int4* __restrict__ image,
                           unsigned* __restrict__ id, int* __restrict__ slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= counts->holes[p.k]) return;
  const int h = holes[i], f = fillers[i];
  pos[h] = pos[f], vel[h] = vel[f], image[h] = image[f], id[h] = id[f], slot[h] = slot[f];
}

// The local arrays from the records, record order[i] into slot i (record i when order is null).
template <class R4>
__global__ void unpack_records(int n, const MoveRecord<R4>* __restrict__ rec,
                               const int* __restrict__ order, R4* __restrict__ pos,
                               R4* __restrict__ vel, int4* __restrict__ image,
                               unsigned* __restrict__ id, int* __restrict__ slot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const MoveRecord<R4> r = rec[order ? order[i] : i];
  pos[i] = r.pos, vel[i] = r.vel, image[i] = r.image, id[i] = r.id, slot[i] = r.slot;
}

__global__ void fill_iota(int n, int* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// The atoms (local and earlier ghosts) within r_list of the low face (to the low neighbour) and
// of the high face (to the high one) along d.
template <class R4>
__global__ void ghost_flags(int n, const R4* __restrict__ pos, int d, double low_edge,
                            double high_edge, unsigned char* __restrict__ to_low,
                            unsigned char* __restrict__ to_high) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double x = coordinate(pos[i], d);
  to_low[i] = x < low_edge, to_high[i] = x >= high_edge;
}

// The positions (type in w) of the listed atoms shifted by `shift` along d, and their slots when
// slot_out is set (at a rebuild).
template <class R4, class R>
__global__ void pack_ghosts(int n, const int* __restrict__ list, const R4* pos, int d, R shift,
                            R4* out, const int* slot_in, int* slot_out,
                            const int* __restrict__ stop = nullptr) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n || (stop && *stop)) return;
  const int j = list[k];
  R4 p = pos[j];
  if (d == 0) p.x += shift;
  if (d == 1) p.y += shift;
  if (d == 2) p.z += shift;
  out[k] = p;
  if (slot_out) slot_out[k] = slot_in[j];
}

// The forward communication's packing of one stage: both sides' kept send lists in one launch
// (pack_ghosts' positions without slots; between rebuilds the six launches of 3.3 µs each, at 2 M
// atoms, were mostly launch and tail): item k < n0 of list0 shifted by shift0 into out0[k], the
// others of list1 by shift1 into out1[k − n0].
template <class R4, class R>
__global__ void pack_ghost_sides(int n0, int n1, const int* __restrict__ list0,
                                 const int* __restrict__ list1, const R4* pos, int d, R shift0,
                                 R shift1, R4* out0, R4* out1, const int* __restrict__ stop) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n0 + n1 || (stop && *stop)) return;
  const bool high = k >= n0;
  if (high) k -= n0;
  const int j = (high ? list1 : list0)[k];
  const R shift = high ? shift1 : shift0;
  R4 p = pos[j];
  if (d == 0) p.x += shift;
  if (d == 1) p.y += shift;
  if (d == 2) p.z += shift;
  (high ? out1 : out0)[k] = p;
}

// ---- device ghost stages (every axis; across ranks with fixed-size messages, see
// ghost_stage_pack). A stage of a domain's own periodic images (one domain along the stage's
// axis) is three launches and no host round trip: ghost_stage_flags
// (each held atom's sides, the count of each side per block), ghost_stage_scan (one block: the
// blocks' exclusive offsets and the stage's totals, kept on the device), ghost_stage_place (each
// kept atom's rank in its block by ballots: its entry in the send list and its shifted copy and
// slot in the ghost slots, side 0 then side 1, each in index order: the ghosts of ghost_flags +
// DeviceSelect + pack_ghosts, in the same slots). The counts are read back once after the last
// device stage. The grids cover the capacity; the blocks past the stage's held atoms return.

constexpr int kGhostBlock = 512;  // atoms a block of ghost_stage_flags and ghost_stage_place

// Device counts of the ghost stages: held[s] (the atoms, local and ghosts, at the start of stage
// s; held[3] at the end), sent[s][side], received[s][side] (a stage across ranks: what arrived,
// side 0 from the high neighbour, side 1 from the low one), the largest held count that did not
// fit the ghost slots and the largest side that did not fit a message (0: none).
struct GhostCounts {
  int held[4];
  int sent[3][2];
  int received[3][2];
  int overflow;
  int message_overflow;
};

// One stage's parameters: the axis, the faces' edges (as ghost_flags), the shifts of the two
// sides, the capacity of the ghost slots (pos and slot), `first_held` (≥ 0: the held count at
// the start, the first device stage; −1: counts->held[stage]), and `message`: 0 for a stage
// whose ghosts are the domain's own images, else the atoms a side's message holds (the stage
// goes to the neighbours: ghost_stage_pack, ghost_stage_receive).
template <class R>
struct GhostStageP {
  int stage, d, capacity, first_held;
  double low_edge, high_edge;
  R shift0, shift1;
  int locals;  // the local atoms (ghost slots start there)
  int message;
};

template <class R>
__device__ __forceinline__ int stage_held(const GhostStageP<R>& p, const GhostCounts* counts) {
  const int held = p.first_held >= 0 ? p.first_held : counts->held[p.stage];
  return held < p.capacity ? held : p.capacity;  // after an overflow: redone, never read past
}

// side bits (1: to the low neighbour, 2: to the high one) of held atom i; block counts of each.
template <class R4, class R>
__global__ void __launch_bounds__(kGhostBlock)
    ghost_stage_flags(const R4* __restrict__ pos, GhostStageP<R> p, const GhostCounts* counts,
                      unsigned char* __restrict__ sides, int2* __restrict__ block_counts) {
  const int held = stage_held(p, counts);
  if (int(blockIdx.x) * kGhostBlock >= held) return;
  const int i = blockIdx.x * kGhostBlock + threadIdx.x;
  bool low = false, high = false;
  if (i < held) {
    const double x = coordinate(pos[i], p.d);
    low = x < p.low_edge, high = x >= p.high_edge;
    sides[i] = (unsigned char)(int(low) | (int(high) << 1));
  }
  const int n_low = __syncthreads_count(low), n_high = __syncthreads_count(high);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = make_int2(n_low, n_high);
}

// One block of 1,024 threads: block_counts → exclusive offsets (in place), the stage's sent
// counts and the next stage's held count; an overflow of the ghost slots recorded.
template <class R>
__global__ void __launch_bounds__(1024)
    ghost_stage_scan(GhostStageP<R> p, GhostCounts* counts, int2* __restrict__ block_counts) {
  const int held = stage_held(p, counts);
  const int blocks = (held + kGhostBlock - 1) / kGhostBlock;
  const int2 y = scan_block_counts(block_counts, blocks);
  if (threadIdx.x == 0) {
    counts->sent[p.stage][0] = y.x, counts->sent[p.stage][1] = y.y;
    if (p.first_held >= 0) counts->held[p.stage] = held;
    if (p.message > 0) {  // the held count after it: ghost_stage_receive's
      const int side = y.x > y.y ? y.x : y.y;
      if (side > p.message && counts->message_overflow < side) counts->message_overflow = side;
      return;
    }
    const long long next = (long long)held + y.x + y.y;
    counts->held[p.stage + 1] = int(next);
    if (next > p.capacity && counts->overflow < next) counts->overflow = int(next);
  }
}

// The kept atoms of the stage into the send lists and the ghost slots (see above).
template <class R4, class R>
__global__ void __launch_bounds__(kGhostBlock)
    ghost_stage_place(R4* pos, int* slot, GhostStageP<R> p, const GhostCounts* counts,
                      const unsigned char* __restrict__ sides, const int2* __restrict__ offsets,
                      int* __restrict__ send0, int* __restrict__ send1, int2* origin) {
  const int held = stage_held(p, counts);
  if (int(blockIdx.x) * kGhostBlock >= held || counts->overflow) return;
  const int i = blockIdx.x * kGhostBlock + threadIdx.x;
  const int s = i < held ? sides[i] : 0;
  const bool low = s & 1, high = s & 2;
  const int2 before = flagged_before<kGhostBlock>(low, high, offsets[blockIdx.x]);
  if (!low && !high) return;
  const int out0 = counts->sent[p.stage][0];
  const R4 q = pos[i];
  // origin (when set): the ghost's local atom and its shifts (forward_own_ghosts).
  int2 from = make_int2(i, 0);
  if (origin && i >= p.locals) from = origin[i - p.locals];
  auto place = [&](int k, int* send, int ghost, R shift, int side) {
    send[k] = i;
    R4 g = q;
    if (p.d == 0) g.x += shift;
    if (p.d == 1) g.y += shift;
    if (p.d == 2) g.z += shift;
    pos[held + ghost] = g;
    slot[held + ghost] = slot[i];
    if (origin) origin[held + ghost - p.locals] = make_int2(from.x, from.y | (side + 1) << 2 * p.d);
  };
  if (low) place(before.x, send0, before.x, p.shift0, 0);
  if (high) place(before.y, send1, out0 + before.y, p.shift1, 1);
}

// A stage across ranks (p.message > 0): the send lists, as ghost_stage_place writes them, and each
// side's message of p.message atoms, the shifted positions at send_pos[side · message + k] and the
// slots at send_slot[side · (message + 1) + k], the side's count in its last word (a side longer
// than the message sends its first p.message and the count that tells the receiver so; the
// host sees message_overflow and every rank redoes the stages).
template <class R4, class R>
__global__ void __launch_bounds__(kGhostBlock)
    ghost_stage_pack(const R4* __restrict__ pos, const int* __restrict__ slot, GhostStageP<R> p,
                     const GhostCounts* counts, const unsigned char* __restrict__ sides,
                     const int2* __restrict__ offsets, int* __restrict__ send0,
                     int* __restrict__ send1, R4* __restrict__ send_pos,
                     int* __restrict__ send_slot) {
  const int m = p.message;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    send_slot[m] = counts->sent[p.stage][0];
    send_slot[2 * m + 1] = counts->sent[p.stage][1];
  }
  const int held = stage_held(p, counts);
  if (int(blockIdx.x) * kGhostBlock >= held) return;
  const int i = blockIdx.x * kGhostBlock + threadIdx.x;
  const int s = i < held ? sides[i] : 0;
  const bool low = s & 1, high = s & 2;
  const int2 before = flagged_before<kGhostBlock>(low, high, offsets[blockIdx.x]);
  if (!low && !high) return;
  const R4 q = pos[i];
  const int from_slot = slot[i];
  auto pack = [&](int k, int* send, int side, R shift) {
    send[k] = i;
    if (k >= m) return;
    R4 g = q;
    if (p.d == 0) g.x += shift;
    if (p.d == 1) g.y += shift;
    if (p.d == 2) g.z += shift;
    send_pos[side * m + k] = g;
    send_slot[side * (m + 1) + k] = from_slot;
  };
  if (low) pack(before.x, send0, 0, p.shift0);
  if (high) pack(before.y, send1, 1, p.shift1);
}

// The neighbours' messages of a stage across ranks (laid out as ghost_stage_pack's: side 0, the
// high neighbour's ghosts for this domain, then side 1, the low one's) into the ghost slots at
// the stage's held count, side 0 then side 1 (the host stages' order); the received counts and
// the held count after the stage into `counts`. A grid of 2 · p.message threads.
template <class R4, class R>
__global__ void ghost_stage_receive(R4* __restrict__ pos, int* __restrict__ slot, GhostStageP<R> p,
                                    GhostCounts* counts, const R4* __restrict__ recv_pos,
                                    const int* __restrict__ recv_slot) {
  const int m = p.message, held = stage_held(p, counts);
  const int in0 = min(recv_slot[m], m), in1 = min(recv_slot[2 * m + 1], m);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    counts->received[p.stage][0] = in0, counts->received[p.stage][1] = in1;
    const long long next = (long long)held + in0 + in1;
    counts->held[p.stage + 1] = int(next);
    if (next > p.capacity && counts->overflow < next) counts->overflow = int(next);
  }
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= 2 * m) return;
  const int side = t >= m ? 1 : 0, k = t - side * m;
  if (k >= (side ? in1 : in0)) return;
  const long long to = (long long)held + (side ? in0 : 0) + k;
  if (to >= p.capacity) return;
  pos[to] = recv_pos[t];
  slot[to] = recv_slot[side * (m + 1) + k];
}

// The shifts of the device ghost stages: along axis d, shift[d][side] (GhostStageP's shift0,
// shift1).
template <class R>
struct OwnShifts {
  R shift[3][2];
};

// The forward positions of the device stages' ghosts (one domain along their axes: the domain's
// own periodic images) in one launch instead of one a stage: ghost k (slot locals + k) is local
// atom origin[k].x shifted along each axis d whose 2-bit field (origin[k].y >> 2 d) & 3 is set,
// by shift[d][field − 1]. Each axis takes at most one addition, in the same R arithmetic as the
// stage that made the ghost (pack_ghost_sides): the same positions to the bit.
template <class R4, class R>
__global__ void forward_own_ghosts(int count, int locals, const int2* __restrict__ origin, R4* pos,
                                   const __grid_constant__ OwnShifts<R> s,
                                   const int* __restrict__ stop) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count || (stop && *stop)) return;
  const int2 o = origin[k];
  R4 g = pos[o.x];
  const int fx = o.y & 3, fy = o.y >> 2 & 3, fz = o.y >> 4 & 3;
  if (fx) g.x += s.shift[0][fx - 1];
  if (fy) g.y += s.shift[1][fy - 1];
  if (fz) g.z += s.shift[2][fz - 1];
  pos[locals + k] = g;
}

template <class R4>
__device__ __forceinline__ int shell_cell(const R4& p, const ShellCellsP& c, int d) {
  // int() truncates: below the origin (a < 0) the cell is 0 either way (clamped).
  const double a = coordinate(p, d) - c.origin[d];
  const int k = a < 0 ? 0 : int(quotient_floor(a, c.width[d], c.inv_width[d]));
  return k < 0 ? 0 : (k >= c.n[d] ? c.n[d] - 1 : k);
}

// The exact band of mixed's float list tests (domain_list).
struct DomainBand {
  const Double4* pos = nullptr;  // the held atoms' double positions (Exact)
  float lo2 = 0;                 // (r_list − m)²: float hits below it need no double test
  double r_list2 = 0;            // the double build's test
};

// The list build's coordinates of a held position: itself, or (C4 float4 of a double position:
// mixed's float lists) the float of its offset from the shell's corner, rounded once.
template <class C4, class R4>
__device__ __forceinline__ C4 shell_coordinates(const R4& p, const ShellCellsP& c) {
  if constexpr (std::is_same_v<C4, R4>) {
    return p;
  } else {
    C4 q;
    q.x = float(double(p.x) - c.origin[0]), q.y = float(double(p.y) - c.origin[1]);
    q.z = float(double(p.z) - c.origin[2]), q.w = 0;
    return q;
  }
}

// The shell-grid cell of each record (the local atoms are stored in cell order).
template <class R4>
__global__ void record_cell_keys(int n, const MoveRecord<R4>* __restrict__ rec, ShellCellsP c,
                                 int* __restrict__ key, int* __restrict__ index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = rec[i].pos;
  key[i] = shell_cell(p, c, 0) + c.n[0] * (shell_cell(p, c, 1) + c.n[1] * shell_cell(p, c, 2));
  index[i] = i;
}

// The held atoms' positions in cell order, each with its index in w (the list build's candidates).
template <class R4, class C4>
__global__ void gather_positions(int n, const int* __restrict__ order, const R4* __restrict__ pos,
                                 ShellCellsP c, C4* __restrict__ out) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  const int j = order[k];
  C4 p = shell_coordinates<C4>(pos[j], c);
  p.w = index_as<decltype(p.w)>(j);
  out[k] = p;
}

template <class R4>
__global__ void shell_cell_keys(int n, const R4* __restrict__ pos, ShellCellsP c,
                                int* __restrict__ key, int* __restrict__ index) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = pos[i];
  key[i] = shell_cell(p, c, 0) + c.n[0] * (shell_cell(p, c, 1) + c.n[1] * shell_cell(p, c, 2));
  index[i] = i;
}

// start[c] = the first entry of cell c in the sorted keys (start[cells] = n).
__global__ void shell_cell_starts(int cells, int n, const int* __restrict__ sorted_key,
                                  int* __restrict__ start) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c > cells) return;
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (sorted_key[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  start[c] = lo;
}

// ---- the cell list by counting sort (the single-GPU engine's scheme, cuda_md_lists.cuh):
// shell_cell_count (each item's cell and its arrival rank there, by atomics), an exclusive scan
// of the counts (the cell starts), shell_cell_scatter, then shell_cell_order sorts each cell's
// items by index (whatever order the atomics gave: the same order as a stable radix sort of the
// cell keys) and, for the list build, gathers their positions with the index in w.

// The cell of item i: held position pos[i], or record rec[i] (pos null).
template <class R4>
__global__ void shell_cell_count(int n, const R4* __restrict__ pos,
                                 const MoveRecord<R4>* __restrict__ rec, ShellCellsP c,
                                 int* __restrict__ cell, int* __restrict__ rank,
                                 int* __restrict__ count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = pos ? pos[i] : rec[i].pos;
  const int k = shell_cell(p, c, 0) + c.n[0] * (shell_cell(p, c, 1) + c.n[1] * shell_cell(p, c, 2));
  cell[i] = k;
  rank[i] = atomicAdd(&count[k], 1);
}

__global__ void shell_cell_scatter(int n, const int* __restrict__ cell,
                                   const int* __restrict__ rank, const int* __restrict__ start,
                                   int* __restrict__ order) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) order[start[cell[i]] + rank[i]] = i;
}

// A warp per cell: its items (up to kOrderStage, staged in shared memory) ranked by index, each
// lane counting the smaller ones; larger cells by lane 0's insertion sort. With cpos set, the
// items' positions in cell order, the index in w.
constexpr int kOrderStage = 128;
template <class R4, class C4>
__global__ void __launch_bounds__(kDomainBlock)
    shell_cell_order(int cells, const int* __restrict__ start, int* __restrict__ order,
                     const R4* __restrict__ pos, ShellCellsP sc, C4* __restrict__ cpos) {
  __shared__ int staged[kDomainBlock / 32][kOrderStage];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int c = blockIdx.x * (kDomainBlock / 32) + w;
  if (c >= cells) return;
  const int b = start[c], e = start[c + 1], cnt = e - b;
  int* mine = staged[w];
  if (cnt <= kOrderStage) {
    for (int k = lane; k < cnt; k += 32) mine[k] = order[b + k];
    __syncwarp();
    for (int k = lane; k < cnt; k += 32) {
      const int v = mine[k];
      int r = 0;
      for (int m = 0; m < cnt; ++m) r += mine[m] < v;
      order[b + r] = v;
      if (cpos) {
        C4 q = shell_coordinates<C4>(pos[v], sc);
        q.w = index_as<decltype(q.w)>(v);
        cpos[b + r] = q;
      }
    }
  } else {
    if (lane == 0)
      for (int k = b + 1; k < e; ++k) {
        const int v = order[k];
        int q = k - 1;
        while (q >= b && order[q] > v) order[q + 1] = order[q], --q;
        order[q + 1] = v;
      }
    __syncwarp();
    if (cpos)
      for (int k = b + lane; k < e; k += 32) {
        const int j = order[k];
        C4 q = shell_coordinates<C4>(pos[j], sc);
        q.w = index_as<decltype(q.w)>(j);
        cpos[k] = q;
      }
  }
}

// The full neighbour lists of the local atoms (every other local atom and every ghost within
// r_list; r² < r_list² taken in R: double for mixed and double, as the cpu domain engine's, float
// for single), row-major, rows `capacity` ints apart (a multiple of 8). A warp per cell of the
// shell grid: its local atoms (stored first in each cell: the stable sort keeps index order, and
// the local atoms have the lowest indices) 32 at a time, one per lane. The warp walks the cell's 27
// neighbour cells as 9 rows of three cells consecutive along x (z, y, x order; the grid's edges
// clip them: no periodic images, the ghosts carry their shift) 32 candidates at a time (one
// coalesced load of cell_pos, the next chunk loaded while the current one is screened); a candidate
// is kept only if it lies within r_list (+ a margin far above the rounding of the screen) of the
// bounding box of the warp's home atoms (≈ a quarter of the 27 cells' candidates do not: the corner
// and edge cells), compacted by ballot into a 64-entry shared buffer, and the lanes test their atom
// against 32 kept candidates at a time, staging its hits in candidate order in its column of a
// shared buffer (stage_hits: every lane the same predicated instructions), then writes each full
// group of 8 as two 16-byte stores (a whole 32-byte sector of the row; flush_hit_groups). So
// each list is the same set in the same order (stencil cell, then index) as a thread per atom
// scanning the 27 cells would give. A count above `capacity` raises *overflow to it (the lists are
// then built again, longer). `split` (when set, 2 n flags): split[i] = 1 for a local atom whose
// list has no ghost (interior: its forces need no ghost position), split[n + i] = 1 for the others
// (boundary). MinB: resident blocks an SM asked of the register allocation (1: as many as its
// registers give).
//
// Exact (mixed; R4 = float4): the candidates are the float offsets of the double positions from
// the shell's corner (rounded once: shell_coordinates), tested in float, single's arithmetic,
// with r_list2 = (r_list + m)² for a margin m far above their rounding; a hit at r² ≥
// band.lo2 = (r_list − m)² (a few per thousand) is decided again in double from the positions
// (band.pos), with the double build's expression, so the lists are exactly the double build's, in
// the same order (the single-GPU engine's exact band, cuda_md_lists.cuh).
template <class R4, int MinB = 1, bool Exact = false>
__global__ void __launch_bounds__(kDomainBlock, MinB)
    domain_list(int cells, int n, const R4* __restrict__ cell_pos, const int* __restrict__ start,
                ShellCellsP c, double r_list2, double screen2, int capacity, int* __restrict__ nbr,
                int* __restrict__ nbr_count, int* overflow, int* next_cell,
                unsigned char* __restrict__ split, DomainBand band) {
  using R = decltype(R4{}.x);
  static_assert(!Exact || std::is_same_v<R, float>, "the exact band refines float tests");
  constexpr unsigned kAll = 0xffffffffu;
  __shared__ R4 buf[kDomainBlock / 32][64];
  __shared__ int group[kDomainBlock / 32][kHitSlots][32];  // [warp][slot][lane]
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  R4* bw = buf[wib];
  int(*grp)[32] = group[wib];
  int* col = grp[0] + lane;  // the lane's hit column (stage_hits)
  const unsigned below = (1u << lane) - 1u;
  // One wave of resident blocks, each warp taking the next cell from a counter (no tail of a last,
  // partly filled wave; the lists do not depend on which warp builds them).
  auto take_cell = [&]() {
    int t = 0;
    if (lane == 0) t = atomicAdd(next_cell, 1);
    return __shfl_sync(kAll, t, 0);
  };
  for (int cell = take_cell(); cell < cells; cell = take_cell()) {  // uniform per warp
    const int b = start[cell], e = start[cell + 1];
    if (b == e) continue;
    // Lane s < 9: the row of stencil cells (x − 1 .. x + 1, clipped to the grid) at dy = s % 3 − 1,
    // dz = s / 3 − 1: consecutive cells, so one contiguous range of cell_pos in the same order as
    // the three cells one by one (9 ranges of ≈ 55 candidates instead of 27 of ≈ 18: fuller
    // chunks).
    int qb = 0, qe = 0;
    if (lane < 9) {
      const int cx = cell % c.n[0], cy = cell / c.n[0] % c.n[1], cz = cell / (c.n[0] * c.n[1]);
      const int y = cy + lane % 3 - 1, z = cz + lane / 3 - 1;
      if (y >= 0 && y < c.n[1] && z >= 0 && z < c.n[2]) {
        const int row = c.n[0] * (y + c.n[1] * z);
        qb = start[row + max(cx - 1, 0)], qe = start[row + min(cx + 1, c.n[0] - 1) + 1];
      }
    }
    constexpr int nst = 9;
    for (int h0 = b; h0 < e; h0 += 32) {
      const int k = h0 + lane;
      R4 p{};
      int i = n;
      if (k < e) p = cell_pos[k], i = index_of(p.w);
      const bool mine = i < n;
      if (!__any_sync(kAll, mine)) break;  // only ghosts from here on
      // The tests in R: double for mixed and double (the cpu domain engine's decisions), float for
      // single (as the single-GPU engine's single build; the double tests' three conversions a
      // pair took ≈ a third of the kernel's time at 2 M atoms).
      const R xi = p.x, yi = p.y, zi = p.z, rl2 = R(r_list2);
      constexpr R kBig = R(1e30);
      const R lx = warp_min(mine ? p.x : kBig), hx = warp_max(mine ? p.x : -kBig);
      const R ly = warp_min(mine ? p.y : kBig), hy = warp_max(mine ? p.y : -kBig);
      const R lz = warp_min(mine ? p.z : kBig), hz = warp_max(mine ? p.z : -kBig);
      int fill = 0;
      int written = 0, staged = 0;  // the list's count: written + staged
      bool ghost = false;
      // The lane's atom against bw[0, m): tested and staged in one predicated pass (Exact: the
      // batch staged again with the double decisions where a hit reached the band), then the
      // full groups of 8 written.
      auto test = [&](int m) {
        const int before = staged;
        R far = 0;
        staged = stage_hits<Exact>(m, bw, xi, yi, zi, rl2, i, col, staged, far);
        if (Exact && far >= R(band.lo2))
          staged = restage_hits(m, bw, xi, yi, zi, rl2, R(band.lo2), i, col, before, [&](int j) {
            const Double4 a = band.pos[i], b = band.pos[j];
            const double ex = a.x - b.x, ey = a.y - b.y, ez = a.z - b.z;
            return ex * ex + ey * ey + ez * ez < band.r_list2;
          });
        if (split)
          for (int r = before; r < staged; ++r) ghost |= col[32 * r] >= n;
        staged = flush_hit_groups(col, staged, written, i, capacity, capacity, nbr);
      };
      // The candidate stream, its ballot compaction and the staged row tail below repeat
      // build_list_screened's (cuda_md_lists.cuh) to the letter but stay inline in both: moved into
      // cuda_md_common.cuh helpers they changed the sm_90 code nvcc 13 generates for these kernels.
      int s = 0, q0 = __shfl_sync(kAll, qb, 0), qend = __shfl_sync(kAll, qe, 0);
      while (q0 >= qend && ++s < nst)
        q0 = __shfl_sync(kAll, qb, s), qend = __shfl_sync(kAll, qe, s);
      R4 next{};
      if (s < nst && lane < qend - q0) next = cell_pos[q0 + lane];
      while (s < nst) {
        const bool have = lane < qend - q0;
        const R4 q = next;
        q0 += 32;
        while (q0 >= qend && ++s < nst)
          q0 = __shfl_sync(kAll, qb, s), qend = __shfl_sync(kAll, qe, s);
        if (s < nst && lane < qend - q0) next = cell_pos[q0 + lane];
        const R ex = max(max(lx - q.x, q.x - hx), R(0));
        const R ey = max(max(ly - q.y, q.y - hy), R(0));
        const R ez = max(max(lz - q.z, q.z - hz), R(0));
        const bool keep = have && ex * ex + ey * ey + ez * ez < R(screen2);
        const unsigned km = __ballot_sync(kAll, keep);
        if (keep) bw[fill + __popc(km & below)] = q;
        fill += __popc(km);
        if (fill >= 32) {
          __syncwarp();
          if (mine) test(32);
          __syncwarp();
          if (lane < fill - 32) bw[lane] = bw[32 + lane];
          fill -= 32;
          __syncwarp();
        }
      }
      __syncwarp();
      if (mine && fill > 0) test(fill);
      __syncwarp();
      if (mine) {
        const int count = written + staged;
        nbr_count[i] = count;
        if (split) split[i] = !ghost, split[n + i] = ghost;
        if (count > capacity) atomicMax(overflow, count);
        if (count <= capacity)
          for (int r = 0; r < (count & 7); ++r)
            nbr[std::size_t(i) * capacity + (count & ~7) + r] = grp[r][lane];
      }
    }
  }
}

// Mixed's fixed-point positions of the held atoms [first, last) (FixedP of cuda_md_common.cuh,
// over a period S = 4 r_list from the shell grid's low corner instead of the box: every pair of a
// list is closer than r_list + skin < S / 2 when its force is taken, so the 32-bit difference is
// that displacement exactly in quanta of S / 2^32 ≈ 2.6e-9 σ at r_list = 2.8 σ).
// `snapshot` (when set): also the copies of atoms [first, snapshot_end) there (the rebuild test's
// build positions, x0_fixed: one pass instead of a device copy after it).
template <class R4>
__global__ void fixed_positions(int first, int last, const R4* __restrict__ pos, FixedP f,
                                int4* __restrict__ fixed, const int* __restrict__ stop = nullptr,
                                int4* __restrict__ snapshot = nullptr, int snapshot_end = 0) {
  const int i = first + blockIdx.x * blockDim.x + threadIdx.x;
  if (stop && *stop) return;
  if (i >= last) return;
  const int4 u = fixed_of(pos[i], f);
  fixed[i] = u;
  if (snapshot && i < snapshot_end) snapshot[i] = u;
}

// The pair forces on each local atom over its full list (P arithmetic from displacements taken
// in R, or from the fixed-point copy when Fixed; sums in A), then, when `kick`, the second half
// kick (Andersen's collisions follow in domain_andersen). `ahead` (a step of advance() but its
// last, no Andersen): also the next step's first half kick, the same operations domain_kick_drift
// would apply (it then skips them), and the force is not stored (nothing reads it before the next
// domain_forces): 96 bytes an atom less traffic a step. The velocities seen between advance()
// calls (thermo, get_state) are the full-step ones. 4 threads share an atom; each loads 4
// consecutive neighbour indices with one 16-byte load and takes neighbours 4·sub .. 4·sub + 3 of
// every 16; the 4 combine by shuffles in a fixed order (deterministic). Mixed with Fixed: the 4
// terms of one trip are summed in float and that sum added into double (as the single-GPU engine).
// `atoms` (when set): the n atoms to take, by index (the interior or the boundary atoms of the
// overlapped step); else atoms [0, n). Fast (single's float terms, cut or shift): the approximate
// reciprocal (MUFU.RCP) of r². OneType: the pair parameters held in registers. Single runs at 16
// blocks an SM (≤ 32 registers, the single-GPU engine's), mixed at 12 (≤ 40: its double sums
// spilled at 32) or, MinB = 15, at the single-GPU engine's mixed choice: 15 blocks (the 32-register
// cap of 16) with one trip of the loop unrolled instead of two (fewer spills).
template <class P, class A>
constexpr int kForceBlocksPerSm = std::is_same_v<P, float> ? (std::is_same_v<A, double> ? 12 : 16)
                                                           : 1;
template <class R, class P, class A, bool SF, bool Fixed, bool Fast, bool OneType,
          int MinB = kForceBlocksPerSm<P, A>>
__global__ void __launch_bounds__(kDomainBlock, MinB)
    domain_forces(int n, const typename Vec4<R>::type* __restrict__ pos,
                  typename Vec4<R>::type* __restrict__ vel,
                  typename Vec4<R>::type* __restrict__ force, const int4* __restrict__ fixed,
                  FixedP fixed_p, const int* __restrict__ nbr, const int* __restrict__ nbr_count,
                  int stride, int types, DynP dyn, bool kick, bool ahead,
                  const int* __restrict__ atoms, const int* __restrict__ stop = nullptr) {
  constexpr int TPA = 4;
  static_assert(!Fast || (std::is_same_v<P, float> && !SF), "fast: float cut or shift terms");
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int a = t / TPA, sub = t % TPA;
  if (a >= n || (stop && *stop)) return;  // whole groups leave together (TPA divides the block)
  const int i = atoms ? atoms[a] : a;
  typename Vec4<R>::type p{};
  int4 fi = make_int4(0, 0, 0, 0);
  if constexpr (Fixed)
    fi = fixed[i];
  else
    p = pos[i];
  const int ti = Fixed ? fi.w : int(p.w);
  constexpr bool kChunked = Fixed && !std::is_same_v<A, P>;
  A fx = 0, fy = 0, fz = 0;
  P gx = 0, gy = 0, gz = 0;  // kChunked: the float sums of this trip
  physics::LjPairParams<P> one;
  if constexpr (OneType) one = pair_params<P>(0);
  auto pair = [&](int j) {
    P dx, dy, dz;
    int tj;
    if constexpr (Fixed) {
      const int4 q = fixed[j];
      fixed_displacement(fi, q, fixed_p, dx, dy, dz);
      tj = q.w;
    } else {
      const auto q = pos[j];
      dx = P(p.x - q.x), dy = P(p.y - q.y), dz = P(p.z - q.z);
      tj = int(q.w);
    }
    const P r2 = dx * dx + dy * dy + dz * dz;
    const physics::LjPairParams<P>& pp = OneType ? one : pair_params<P>(ti * types + tj);
    if (!(r2 < pp.rc2)) return;
    P fr;
    if constexpr (Fast)
      fr = physics::lennard_jones(__fdividef(1.0f, r2),
                                  physics::LennardJonesCoefficients<P>{pp.a, pp.b})
               .force_over_r2;
    else
      fr = physics::lj_truncated<SF>(r2, pp).force_over_r2;
    if constexpr (kChunked)
      gx += fr * dx, gy += fr * dy, gz += fr * dz;
    else
      fx += A(fr * dx), fy += A(fr * dy), fz += A(fr * dz);
  };
  const int count = nbr_count[i];
  const int* row = nbr + std::size_t(i) * stride;
  // This trip of 4 neighbors and the group sum below repeat forces_kick's (cuda_md_forces.cuh) but
  // stay inline: as shared helpers they changed the sm_90 code of forces_kick (MinBlocks 15) and of
  // this kernel's fixed-point variants. The pair lambda above is forces_kick's but for its plain
  // displacement (no minimum image: ghosts carry their shift) and custom pairs (refused here).
  constexpr int kUnroll = MinB == 15 ? 1 : 2;
#pragma unroll kUnroll
  for (int k0 = 4 * sub; k0 < count; k0 += 16) {
    const int4 jj = __ldg(reinterpret_cast<const int4*>(row + k0));
    pair(jj.x);
    if (k0 + 1 < count) pair(jj.y);
    if (k0 + 2 < count) pair(jj.z);
    if (k0 + 3 < count) pair(jj.w);
    if constexpr (kChunked) {
      fx += A(gx), fy += A(gy), fz += A(gz);
      gx = gy = gz = 0;
    }
  }
  const int lane = threadIdx.x & 31;
  const unsigned mask = 0xfu << (lane & ~(TPA - 1));
#pragma unroll
  for (int o = TPA / 2; o > 0; o >>= 1) {
    fx += __shfl_xor_sync(mask, fx, o);
    fy += __shfl_xor_sync(mask, fy, o);
    fz += __shfl_xor_sync(mask, fz, o);
  }
  if (sub != 0) return;
  typename Vec4<R>::type f;
  f.x = R(fx), f.y = R(fy), f.z = R(fz), f.w = 0;
  if (!ahead) force[i] = f;
  if (!kick) return;
  auto v = vel[i];
  const R h = R(0.5 * dyn.dt * double(v.w));
  physics::kick(v.x, f.x, h), physics::kick(v.y, f.y, h), physics::kick(v.z, f.z, h);
  if (ahead) physics::kick(v.x, f.x, h), physics::kick(v.y, f.y, h), physics::kick(v.z, f.z, h);
  vel[i] = v;
}

// Andersen's collisions at `step`, after domain_forces' second half kick (a kernel of their own:
// their random draws inlined in domain_forces made its pair loop spill at 16 blocks an SM).
template <class R4>
__global__ void domain_andersen(int n, R4* __restrict__ vel, const unsigned* __restrict__ id,
                                DynP dyn, unsigned long long step,
                                const int* __restrict__ stop = nullptr) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n || (stop && *stop)) return;
  R4 v = vel[i];
  if (physics::andersen_collision(v.x, v.y, v.z, double(v.w), dyn.kT, dyn.andersen_p, dyn.seed,
                                  step, id[i]))
    vel[i] = v;
}

// Per block: Σ ½ U and Σ ½ r·f over each local atom's pairs (every pair is seen from both of its
// atoms, here or on the rank holding the other: half each), and Σ ½ m v², into
// partial[3 b + {0, 1, 2}] (sum_partials' layout: potential, virial, kinetic).
template <class R, class P, bool SF>
__global__ void __launch_bounds__(kDomainBlock)
    domain_energy(int n, const typename Vec4<R>::type* __restrict__ pos,
                  const typename Vec4<R>::type* __restrict__ vel, const int* __restrict__ nbr,
                  const int* __restrict__ nbr_count, int capacity, int types,
                  double* __restrict__ partial) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  double t[3] = {0, 0, 0};
  if (i < n) {
    const auto p = pos[i];
    const int ti = int(p.w);
    const int count = nbr_count[i];
    const int* row = nbr + std::size_t(i) * capacity;
    for (int e = 0; e < count; ++e) {
      const auto q = pos[row[e]];
      const P dx = P(p.x - q.x), dy = P(p.y - q.y), dz = P(p.z - q.z);
      const P r2 = dx * dx + dy * dy + dz * dz;
      const physics::LjPairParams<P>& pp = pair_params<P>(ti * types + int(q.w));
      if (!(r2 < pp.rc2)) continue;
      const auto term = physics::lj_truncated<SF>(r2, pp);
      t[0] += 0.5 * double(term.energy), t[1] += 0.5 * double(term.force_over_r2 * r2);
    }
    const auto v = vel[i];
    t[2] = 0.5 * (double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z) / double(v.w);
  }
  __shared__ double s[3][kDomainBlock];
  for (int c = 0; c < 3; ++c) s[c][threadIdx.x] = t[c];
  __syncthreads();
  if (threadIdx.x < 3) {
    double r = 0;
    for (int k = 0; k < kDomainBlock; ++k) r += s[threadIdx.x][k];  // fixed order
    partial[3 * blockIdx.x + threadIdx.x] = r;
  }
}

// The smallest set_state slot among the local atoms whose position or velocity is not finite or
// whose speed exceeds the limit.
template <class R4>
__global__ void domain_find_bad(int n, const R4* __restrict__ pos, const R4* __restrict__ vel,
                                const int* __restrict__ slot, double max_speed2, int* bad) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const R4 p = pos[i], v = vel[i];
  const double v2 = double(v.x) * v.x + double(v.y) * v.y + double(v.z) * v.z;
  const bool finite =
      isfinite(double(p.x)) && isfinite(double(p.y)) && isfinite(double(p.z)) && isfinite(v2);
  if (!finite || v2 > max_speed2) atomicMin(bad, slot[i]);
}

}  // namespace
}  // namespace pairwise::md
