// The cuda backend of potential maps (cuda_map.hpp).
//
// Work decomposition: a block of 64 threads owns a region of 8 x 8 x 8 lattice points; thread
// (tx, ty) owns the column (i, j) of the region and computes kP = 8 consecutive points along z (the
// lattice's fastest axis), so each atom's dx² + dy² is computed once per thread and reused for 8
// points (1 FFMA for dz, 1 FFMA for r², the switching and 1 MUFU rsqrt per point). Atoms are read
// by all threads of a warp at the same address (an L1 broadcast).
//
// Direct summation: every region (8 x 8 x 16 points here: 16 points a thread) scans every atom,
// staged in shared memory a tile at a time with the atom's dz² at the block's 16 z-values, and a
// quarter of the reciprocal square roots computed on the FMA pipe (see direct_regions).
//
// Cutoff summation: atoms are binned on the device into cells of c x c x cz Å (c = the region's
// 4 Å edge divided by an integer, cz = the lattice spacing by default, so that region boundaries
// are cell boundaries): each atom gets its cell id (z fastest), a stable radix sort orders atoms by
// cell (deterministic), and a binary search gives every cell's first atom. Cells of one (x, y)
// column are contiguous in the sorted order, so a region scans, for each column of its
// precomputed neighborhood (the columns whose xy distance to the region is < rc, clipped per
// column to the z-range [-e, 7h + e], e = sqrt(rc² - d_xy²), at cz granularity), one contiguous
// range of atoms. Nothing is capped: a cell holds any number of atoms, so no atom is ever dropped
// and there is no overflow path. Atoms farther than rc from every lattice point (outside the cell
// grid) contribute exactly 0 and are not binned.
//
// Exclusions: one thread per atom zeroes the points within r_ex (distances in double with _rn
// intrinsics, the same roundings as the host's apply_exclusions).
//
// Lattices larger than the memory budget are computed in slabs of x-planes (multiples of 8).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cub/cub.cuh>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/cuda_check.cuh"
#include "engine/formula/runtime_library.cuh"
#include "pairwise/error.hpp"
#include "pairwise/physics/coulomb_potential.hpp"
#include "parallel/communicator.hpp"
#include "parallel/gpu_collectives.hpp"
#include "potmap/cuda_custom_phi.hpp"
#include "potmap/cuda_map.hpp"
#include "potmap/cuda_map_kernels.cuh"

namespace pairwise::potmap {

namespace {

using namespace device;

// Atom a: coordinates relative to the origin in T, and its cell id (cells() when outside).
template <class T>
__global__ void bin_atoms(const D4* __restrict__ abs, int n, double ox, double oy, double oz,
                          CellGrid g, bool cutoff, vec4_t<T>* rel, unsigned* keys, int* index) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) return;
  const D4 p = abs[a];
  const double x = p.x - ox, y = p.y - oy, z = p.z - oz;
  vec4_t<T> r;
  r.x = T(x), r.y = T(y), r.z = T(z), r.w = T(p.w);
  rel[a] = r;
  if (!cutoff) return;
  const double fx = floor(x / g.c) + g.offx, fy = floor(y / g.c) + g.offy,
               fz = floor(z / g.cz) + g.offz;
  unsigned key = unsigned(g.cells());
  if (fx >= 0 && fx < g.ncx && fy >= 0 && fy < g.ncy && fz >= 0 && fz < g.ncz) {
    key = unsigned((int(fx) * g.ncy + int(fy)) * g.ncz + int(fz));
  }
  keys[a] = key;
  index[a] = a;
}

template <class T>
__global__ void gather_atoms(const vec4_t<T>* __restrict__ rel, const int* __restrict__ order,
                             int n, bool sigma, vec4_t<T>* sorted) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) return;
  vec4_t<T> r = rel[order[a]];
  if (sigma)
    r.w = copysign(sqrt(fabs(r.w)), r.w);  // σ = ±sqrt|q| for add_atom_cutoff (a custom
                                           // φ keeps q)
  sorted[a] = r;
}

// cell_start[c] = the first sorted atom of cell >= c (c = 0 .. cells), by binary search.
__global__ void cell_starts(const unsigned* __restrict__ keys, int n, long long cells,
                            int* cell_start) {
  const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (c > cells) return;
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if ((long long)keys[mid] < c)
      lo = mid + 1;
    else
      hi = mid;
  }
  cell_start[c] = lo;
}

// Zeroes the points of the slab closer than r_ex to atom a (the host's apply_exclusions, with the
// same operations in the same order, rounded the same way: no FMA contraction).
template <class Out>
__global__ void exclusions(const D4* __restrict__ abs, int n, double ox, double oy, double oz,
                           double h, double rex, Slab s, Out* out) {
  const int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= n) return;
  const D4 p = abs[a];
  const double pc[3] = {p.x, p.y, p.z}, o[3] = {ox, oy, oz};
  const int cnt[3] = {s.nx, s.ny, s.nz};
  long lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    const double fl = floor(__ddiv_rn(__dsub_rn(__dsub_rn(pc[d], rex), o[d]), h));
    const double ce = ceil(__ddiv_rn(__dsub_rn(__dadd_rn(pc[d], rex), o[d]), h));
    lo[d] = fl < 0 ? 0 : (fl > cnt[d] ? cnt[d] : long(fl));
    hi[d] = ce > cnt[d] - 1 ? cnt[d] - 1 : (ce < -1 ? -1 : long(ce));
  }
  lo[0] = max(lo[0], long(s.i0));
  hi[0] = min(hi[0], long(s.i0 + s.planes - 1));
  const double rex2 = __dmul_rn(rex, rex);
  for (long i = lo[0]; i <= hi[0]; ++i) {
    const double dx = __dsub_rn(__dadd_rn(ox, __dmul_rn(double(i), h)), p.x);
    for (long j = lo[1]; j <= hi[1]; ++j) {
      const double dy = __dsub_rn(__dadd_rn(oy, __dmul_rn(double(j), h)), p.y);
      for (long k = lo[2]; k <= hi[2]; ++k) {
        const double dz = __dsub_rn(__dadd_rn(oz, __dmul_rn(double(k), h)), p.z);
        const double r2 =
            __dadd_rn(__dadd_rn(__dmul_rn(dx, dx), __dmul_rn(dy, dy)), __dmul_rn(dz, dz));
        if (r2 < rex2) out[((long long)(i - s.i0) * s.ny + j) * s.nz + k] = Out(0);
      }
    }
  }
}

// The neighborhood of a region (cells relative to its first cell), as described at the top.
std::vector<int4> neighborhood(const CellGrid& g, double h, double rc) {
  const double reach = rc * (1 + 1e-6) + 1e-6;  // a margin for the rounding of cell assignment
  const double w = (kR - 1) * h;                // the region's extent in points
  std::vector<int4> out;
  const int lo = -(g.offx + 1), hi = g.m + g.offx + 1;
  for (int dx = lo; dx <= hi; ++dx) {
    for (int dy = lo; dy <= hi; ++dy) {
      auto gap = [&](int d) { return std::max({0.0, d * g.c - w, -(d + 1) * g.c}); };
      const double d2 = gap(dx) * gap(dx) + gap(dy) * gap(dy);
      if (d2 >= reach * reach) continue;
      const double e = std::sqrt(reach * reach - d2);
      out.push_back({dx, dy, int(std::floor(-e / g.cz)), int(std::floor((w + e) / g.cz))});
    }
  }
  return out;
}

template <class T>
struct Buffer {
  T* p = nullptr;
  Buffer() = default;
  explicit Buffer(std::size_t n) { reset(n); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (p) cudaFree(p);
  }
  void reset(std::size_t n) {
    if (p) cudaFree(p);
    p = nullptr;
    if (n) PW_CUDA(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(T)));
  }
};

struct Events {
  cudaEvent_t start{}, stop{};
  Events() {
    PW_CUDA(cudaEventCreate(&start));
    PW_CUDA(cudaEventCreate(&stop));
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
};

// Host-side packing (outside the template: nvcc 13's front end fails on it inside).
void pack_atoms(const Atoms& in, D4* p) {
  const long n = long(in.size());
#pragma omp parallel for schedule(static) if (n > 32768)
  for (long a = 0; a < n; ++a) {
    p[a].x = in.x[std::size_t(a)];
    p[a].y = in.y[std::size_t(a)];
    p[a].z = in.z[std::size_t(a)];
    p[a].w = in.q[std::size_t(a)];
  }
}
std::vector<D4> pack_atoms(const Atoms& in) {
  std::vector<D4> out(in.size());
  pack_atoms(in, out.data());
  return out;
}

// What depends on the lattice and options only (not on the atoms): regions, cells, the
// neighborhood (uploaded to constant memory by make_plan).
template <class T>
struct Plan {
  Slab whole;
  int nrx = 0, nry = 0, nrz = 0;
  bool cutoff = false;
  double h = 0, exclusion = 0;
  std::array<double, 3> origin{};
  CellGrid g;
  std::vector<int4> nb;
  physics::SwitchParams<T> sw{};
  bool custom = false;  // a formula φ: the NVRTC kernels (PhiKernels), plain truncation at rc
};

template <class T>
Plan<T> make_plan(const Lattice& l, const MapOptions& o) {
  Plan<T> p;
  p.cutoff = o.cutoff > 0;
  p.h = l.spacing;
  p.exclusion = o.exclusion;
  p.origin = l.origin;
  p.whole.nx = int(l.counts[0]), p.whole.ny = int(l.counts[1]), p.whole.nz = int(l.counts[2]);
  p.nrx = (p.whole.nx + kR - 1) / kR, p.nry = (p.whole.ny + kR - 1) / kR;
  p.nrz = (p.whole.nz + kP - 1) / kP;
  p.sw = physics::switch_params<T>(o.cutoff);
  p.custom = o.custom != nullptr;
  if (p.cutoff) {
    CellGrid& g = p.g;
    const double region = kR * p.h;
    const double bin = o.bin_size > 0 ? o.bin_size : kDefaultBinSize;
    g.m = std::max(1, int(std::lround(region / bin)));
    g.c = region / g.m;
    g.mz = kP;  // cz = h
    g.cz = region / g.mz;
    g.offx = g.offy = int(std::ceil(o.cutoff * (1 + 1e-6) / g.c)) + 1;
    g.offz = int(std::ceil(o.cutoff * (1 + 1e-6) / g.cz)) + 1;
    g.ncx = 2 * g.offx + p.nrx * g.m;
    g.ncy = 2 * g.offy + p.nry * g.m;
    g.ncz = 2 * g.offz + p.nrz * g.mz;
    p.nb = neighborhood(g, p.h, o.cutoff);
    if (p.nb.size() > std::size_t(kMaxNeighbors)) {
      throw Error("bin size " + std::to_string(g.c) + " Å is too small for the cutoff (" +
                      std::to_string(p.nb.size()) + " neighbor columns, at most " +
                      std::to_string(kMaxNeighbors) + ")",
                  "bin_size");
    }
    if (g.cells() >= (1LL << 31)) throw Error("too many atom bins for this lattice", "bin_size");
    PW_CUDA(cudaMemcpyToSymbol(c_neighbors, p.nb.data(), p.nb.size() * sizeof(int4)));
  }
  return p;
}

// Device buffers for up to `capacity` atoms: absolute (D4), relative, sorted, keys, cells, sort
// scratch.
template <class T>
struct Workspace {
  int capacity = 0;
  std::size_t sort_bytes = 0;
  Buffer<D4> abs;
  Buffer<vec4_t<T>> rel, sorted;
  Buffer<unsigned> keys, keys_sorted;
  Buffer<int> index, order, cells;
  Buffer<unsigned char> sort_tmp;

  static std::size_t sort_scratch(bool cutoff, int n) {
    std::size_t bytes = 0;
    if (cutoff) {
      PW_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (unsigned*)nullptr,
                                              (unsigned*)nullptr, (int*)nullptr, (int*)nullptr, n));
    }
    return bytes;
  }
  static std::size_t bytes(const Plan<T>& p, int n) {
    return std::size_t(n) * (sizeof(D4) + 2 * sizeof(vec4_t<T>) + 16) +
           (p.cutoff ? std::size_t(p.g.cells() + 1) * sizeof(int) : 0) + sort_scratch(p.cutoff, n);
  }
  void reserve(const Plan<T>& p, int n) {
    if (n <= capacity) return;
    const bool c = p.cutoff;
    const std::size_t m = std::size_t(n);
    sort_bytes = sort_scratch(c, n);
    abs.reset(m), rel.reset(m), sorted.reset(c ? m : 0);
    keys.reset(c ? m : 0), keys_sorted.reset(c ? m : 0);
    index.reset(c ? m : 0), order.reset(c ? m : 0);
    if (capacity == 0) cells.reset(c ? std::size_t(p.g.cells() + 1) : 0);
    sort_tmp.reset(sort_bytes);
    capacity = n;
  }
};

// Bins the n atoms of ws.abs (cutoff) or makes them relative to the origin (direct), on `stream`.
template <class T>
void bin(Workspace<T>& ws, const Plan<T>& p, int n, cudaStream_t stream) {
  const int tb = 256, atom_blocks = (n + tb - 1) / tb;
  bin_atoms<T><<<atom_blocks, tb, 0, stream>>>(ws.abs.p, n, p.origin[0], p.origin[1], p.origin[2],
                                               p.g, p.cutoff, ws.rel.p, ws.keys.p, ws.index.p);
  PW_CUDA_LAUNCH("potmap bin_atoms");
  if (!p.cutoff) return;
  int end_bit = 1;
  while ((1LL << end_bit) <= p.g.cells()) ++end_bit;
  std::size_t sort_bytes = ws.sort_bytes;
  PW_CUDA(cub::DeviceRadixSort::SortPairs(ws.sort_tmp.p, sort_bytes, ws.keys.p, ws.keys_sorted.p,
                                          ws.index.p, ws.order.p, n, 0, end_bit, stream));
  gather_atoms<T><<<atom_blocks, tb, 0, stream>>>(ws.rel.p, ws.order.p, n, !p.custom, ws.sorted.p);
  PW_CUDA_LAUNCH("potmap gather_atoms");
  const long long cells = p.g.cells();
  cell_starts<<<unsigned((cells + 1 + tb - 1) / tb), tb, 0, stream>>>(ws.keys_sorted.p, n, cells,
                                                                      ws.cells.p);
  PW_CUDA_LAUNCH("potmap cell_starts");
}

// A custom φ's direct and cutoff kernels for one (T, Out, M), compiled by NVRTC
// (cuda_custom_phi.cpp) or read from the disk cache, loaded with the runtime's library API, and
// the neighborhood in global memory (the NVRTC module cannot read this module's c_neighbors).
template <class T, class Out, int M>
class PhiKernels {
 public:
  PhiKernels(const CustomPhi& phi, const Plan<T>& plan) {
    PhiVariant v;
    v.t = std::is_same_v<T, float> ? "float" : "double";
    v.out = std::is_same_v<Out, float> ? "float" : "double";
    v.mode = M;
    const formula::CompiledProgram c = formula::compile_cuda_program(custom_phi_program(phi, v));
    seconds_ = c.seconds;
    from_cache_ = c.from_cache;
    library_ = std::make_unique<formula::RuntimeLibrary>(c.cubin);
    direct_ = library_->kernel(c.lowered.at(0));
    cutoff_ = library_->kernel(c.lowered.at(1));
    if (!plan.nb.empty()) {
      neighbors_.reset(plan.nb.size());
      PW_CUDA(cudaMemcpy(neighbors_.p, plan.nb.data(), plan.nb.size() * sizeof(int4),
                         cudaMemcpyHostToDevice));
    }
  }
  PhiKernels(const PhiKernels&) = delete;
  PhiKernels& operator=(const PhiKernels&) = delete;
  std::string note() const {
    return std::string(", custom phi (NVRTC ") + (from_cache_ ? "cache " : "compile ") +
           std::to_string(seconds_) + " s)";
  }
  void direct(dim3 grid, cudaStream_t stream, const vec4_t<T>* atoms, int n, Slab s, T h,
              Out* out) const {
    void* args[] = {&atoms, &n, &s, &h, &out};
    PW_CUDA(cudaLaunchKernel(direct_, grid, dim3(kThreads), args, 0, stream));
  }
  void cutoff(dim3 grid, cudaStream_t stream, const vec4_t<T>* atoms, const int* cells, CellGrid g,
              int n_neighbors, Slab s, T h, physics::SwitchParams<T> sw, Out* out) const {
    const int4* nb = neighbors_.p;
    void* args[] = {&atoms, &cells, &g, &n_neighbors, &nb, &s, &h, &sw, &out};
    PW_CUDA(cudaLaunchKernel(cutoff_, grid, dim3(kThreads), args, 0, stream));
  }

 private:
  std::unique_ptr<formula::RuntimeLibrary> library_;
  const void* direct_ = nullptr;
  const void* cutoff_ = nullptr;
  Buffer<int4> neighbors_;
  double seconds_ = 0;
  bool from_cache_ = false;
};

// The map of slab s (after bin) into d_map, exclusions included, on `stream`; a custom φ's
// kernels when `phi` is given.
template <class T, class Out, int M>
void sum_slab(Workspace<T>& ws, const Plan<T>& p, int n, const Slab& s, Out* d_map,
              cudaStream_t stream, const PhiKernels<T, Out, M>* phi = nullptr) {
  const dim3 grid(unsigned((s.planes + kR - 1) / kR), unsigned(p.nry),
                  unsigned(p.cutoff ? p.nrz : (p.whole.nz + kDirectP - 1) / kDirectP));
  if (phi) {
    if (p.cutoff) {
      phi->cutoff(grid, stream, ws.sorted.p, ws.cells.p, p.g, int(p.nb.size()), s, T(p.h), p.sw,
                  d_map);
      PW_CUDA_LAUNCH("potmap cutoff_regions (custom phi)");
    } else {
      phi->direct(grid, stream, ws.rel.p, n, s, T(p.h), d_map);
      PW_CUDA_LAUNCH("potmap direct_regions (custom phi)");
    }
  } else if (p.cutoff) {
    cutoff_regions<T, Out, M><<<grid, kThreads, 0, stream>>>(
        ws.sorted.p, ws.cells.p, p.g, int(p.nb.size()), nullptr, s, T(p.h), p.sw, d_map);
    PW_CUDA_LAUNCH("potmap cutoff_regions");
  } else {
    direct_regions<T, Out, M><<<grid, kThreads, 0, stream>>>(ws.rel.p, n, s, T(p.h), d_map);
    PW_CUDA_LAUNCH("potmap direct_regions");
  }
  if (p.exclusion > 0) {
    const int tb = 256, atom_blocks = (n + tb - 1) / tb;
    exclusions<Out><<<atom_blocks, tb, 0, stream>>>(ws.abs.p, n, p.origin[0], p.origin[1],
                                                    p.origin[2], p.h, p.exclusion, s, d_map);
    PW_CUDA_LAUNCH("potmap exclusions");
  }
}

// FP32 map values widened to FP64 on the device (the host then receives the MapResult's doubles
// straight into its vector: no host-side FP32 buffer and conversion pass).
__global__ void widen_map(const float* __restrict__ in, double* __restrict__ out, long long n) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = double(in[i]);
}

template <class T, class Out, int M>
MapResult run(const Atoms& atoms, const Lattice& l, const MapOptions& o,
              std::vector<double> values) {
  const int n = int(atoms.size());
  const Plan<T> plan = make_plan<T>(l, o);
  const Slab& whole = plan.whole;
  constexpr bool kWiden = !std::is_same_v<Out, double>;  // FP32 slabs widened on the device

  // Memory: atoms (absolute D4, relative, sorted), keys, cells, sort scratch; the rest may
  // hold the map (and, for FP32 maps, its FP64 copy).
  const std::size_t fixed = Workspace<T>::bytes(plan, n);
  const std::size_t plane_points = std::size_t(whole.ny) * std::size_t(whole.nz);
  const std::size_t plane_bytes = plane_points * (sizeof(Out) + (kWiden ? sizeof(double) : 0));
  std::size_t budget = o.device_memory_limit;
  if (budget == 0) {
    std::size_t free_b = 0, total_b = 0;
    PW_CUDA(cudaMemGetInfo(&free_b, &total_b));
    budget = free_b > fixed + (256u << 20) ? free_b - fixed - (256u << 20) : 0;
  }
  const std::size_t map_bytes = plane_bytes * std::size_t(whole.nx);
  int planes = whole.nx;
  if (map_bytes > budget) {
    if (!o.slabs) {
      throw Error("the lattice needs " + std::to_string(map_bytes + fixed) +
                      " bytes of device memory, more than the " + std::to_string(budget + fixed) +
                      " available (slabs are off)",
                  "device memory");
    }
    planes = int(budget / plane_bytes) / kR * kR;
    if (planes < kR) {
      throw Error("not enough device memory for a slab of " + std::to_string(kR) +
                      " planes: needs " + std::to_string(plane_bytes * kR) + " bytes (besides " +
                      std::to_string(fixed) + " for atoms and bins)",
                  "device memory");
    }
  }
  const int n_slabs = (whole.nx + planes - 1) / planes;

  std::unique_ptr<PhiKernels<T, Out, M>> phi;
  if (o.custom) phi = std::make_unique<PhiKernels<T, Out, M>>(*o.custom, plan);
  const std::vector<D4> host_atoms = pack_atoms(atoms);
  Workspace<T> ws;
  ws.reserve(plan, n);
  Buffer<Out> d_map(plane_points * std::size_t(planes));
  Buffer<double> d_wide(kWiden ? plane_points * std::size_t(planes) : 0);
  PW_CUDA(
      cudaMemcpy(ws.abs.p, host_atoms.data(), std::size_t(n) * sizeof(D4), cudaMemcpyHostToDevice));
  values.resize(l.size());  // a no-op when the caller allocated it (compute_map's note)

  Events ev;
  PW_CUDA(cudaEventRecord(ev.start));
  bin(ws, plan, n, nullptr);
  for (int sl = 0; sl < n_slabs; ++sl) {
    Slab s = whole;
    s.i0 = sl * planes;
    s.planes = std::min(planes, whole.nx - s.i0);
    sum_slab<T, Out, M>(ws, plan, n, s, d_map.p, nullptr, phi.get());
    if (sl + 1 == n_slabs) PW_CUDA(cudaEventRecord(ev.stop));
    // Later slabs reuse the buffers: each slab goes to the host before the next one is summed.
    const std::size_t points = plane_points * std::size_t(s.planes);
    const double* slab_values = nullptr;
    if constexpr (kWiden) {
      const int tb = 256;
      widen_map<<<unsigned((points + tb - 1) / tb), tb>>>(d_map.p, d_wide.p, (long long)points);
      PW_CUDA_LAUNCH("potmap widen_map");
      slab_values = d_wide.p;
    } else {
      slab_values = d_map.p;
    }
    PW_CUDA(cudaMemcpy(values.data() + std::size_t(s.i0) * plane_points, slab_values,
                       points * sizeof(double), cudaMemcpyDeviceToHost));
  }
  float ms = 0;
  PW_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));

  MapResult r;
  r.backend = BackendKind::cuda;
  r.precision = o.precision;
  r.seconds = ms * 1e-3;
  r.slabs = n_slabs;
  if (phi) r.device = phi->note();  // cuda_map puts the device's name in front
  if (n_slabs > 1) {
    r.slab_note =
        "lattice computed in " + std::to_string(n_slabs) + " slabs of at most " +
        std::to_string(planes) + " x-planes (" + std::to_string(plane_bytes * std::size_t(planes)) +
        " bytes each; the map needs " + std::to_string(map_bytes) + ", the budget is " +
        std::to_string(budget) + "); the time includes the copies of all slabs but the last";
  }
  r.values = std::move(values);
  return r;
}

// A rank's slab of a map across ranks, whole (no memory-budget slabs): the same plan, binning and
// sums as run() on the slab's lattice. The constructor does what run() does before its timed
// region (plan, custom φ kernels, atoms packed and uploaded, buffers allocated); sum() is what
// run() times (binning and sums), plus the FP32 sums widened into the FP64 block `d_out`.
class SlabOnDevice {
 public:
  virtual ~SlabOnDevice() = default;
  virtual void sum(double* d_out) = 0;
  virtual std::string note() const = 0;  // the custom φ's note (empty for the Coulomb sums)
};

template <class T, class Out, int M>
class SlabSums final : public SlabOnDevice {
 public:
  SlabSums(const Atoms& atoms, const Lattice& slab, const MapOptions& o)
      : n_(int(atoms.size())), points_(slab.size()), plan_(make_plan<T>(slab, o)) {
    if (o.custom) phi_ = std::make_unique<PhiKernels<T, Out, M>>(*o.custom, plan_);
    const std::vector<D4> host_atoms = pack_atoms(atoms);
    ws_.reserve(plan_, n_);
    PW_CUDA(cudaMemcpy(ws_.abs.p, host_atoms.data(), std::size_t(n_) * sizeof(D4),
                       cudaMemcpyHostToDevice));
    if constexpr (!std::is_same_v<Out, double>) map_.reset(points_);
  }
  void sum(double* d_out) override {
    bin(ws_, plan_, n_, nullptr);
    Slab s = plan_.whole;
    s.i0 = 0;
    s.planes = s.nx;
    if constexpr (std::is_same_v<Out, double>) {
      sum_slab<T, Out, M>(ws_, plan_, n_, s, d_out, nullptr, phi_.get());
    } else {  // FP32 sums widened into the FP64 block
      sum_slab<T, Out, M>(ws_, plan_, n_, s, map_.p, nullptr, phi_.get());
      const int tb = 256;
      widen_map<<<unsigned((points_ + tb - 1) / tb), tb>>>(map_.p, d_out, (long long)points_);
      PW_CUDA_LAUNCH("potmap widen_map");
    }
  }
  std::string note() const override { return phi_ ? phi_->note() : std::string(); }

 private:
  int n_;
  std::size_t points_;
  Plan<T> plan_;
  std::unique_ptr<PhiKernels<T, Out, M>> phi_;
  Workspace<T> ws_;
  Buffer<Out> map_;
};

std::unique_ptr<SlabOnDevice> make_slab_sums(const Atoms& atoms, const Lattice& slab,
                                             const MapOptions& o) {
  switch (o.precision) {
    case Precision::double_:
      return std::make_unique<SlabSums<double, double, kPlain>>(atoms, slab, o);
    case Precision::mixed:
      return std::make_unique<SlabSums<float, float, kWide>>(atoms, slab, o);
    case Precision::single:
      break;
  }
  if (o.kahan) return std::make_unique<SlabSums<float, float, kKahan>>(atoms, slab, o);
  return std::make_unique<SlabSums<float, float, kPlain>>(atoms, slab, o);
}

// acc = combine(acc, map) point by point in FP64 (first: acc = map).
template <class Out>
__global__ void fold_map(const Out* __restrict__ map, double* __restrict__ acc, long long n,
                         int combine, bool first) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double v = double(map[i]);
  if (first) {
    acc[i] = v;
  } else if (combine == int(Combine::average)) {
    acc[i] += v;
  } else if (combine == int(Combine::minimum)) {
    acc[i] = fmin(acc[i], v);
  } else if (combine == int(Combine::maximum)) {
    acc[i] = fmax(acc[i], v);
  } else {
    acc[i] = v;
  }
}

// Frames on one stream: frame k's atoms are packed into pinned buffer k % 2 (after the upload of
// frame k - 2 from it is done), uploaded asynchronously, binned, summed and folded into acc; add()
// returns at once, so the host reads frame k + 1 while the device works on frame k.
template <class T, class Out, int M>
class CudaFrames final : public FrameMaps {
 public:
  CudaFrames(const Lattice& l, const MapOptions& o, Combine combine, std::string device)
      : plan_(make_plan<T>(l, o)),
        combine_(combine),
        points_(l.size()),
        device_(std::move(device)) {
    std::size_t free_b = 0, total_b = 0;
    PW_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t need = points_ * (sizeof(Out) + sizeof(double));
    if (need + (256u << 20) > free_b) {
      throw Error("a trajectory map needs the whole lattice on the device: " +
                      std::to_string(need) + " bytes, " + std::to_string(free_b) + " free",
                  "device memory");
    }
    map_.reset(points_);
    acc_.reset(points_);
    if (o.custom) phi_ = std::make_unique<PhiKernels<T, Out, M>>(*o.custom, plan_);
    PW_CUDA(cudaStreamCreate(&stream_));
    for (auto& e : uploaded_) PW_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  }
  ~CudaFrames() override {
    cudaStreamSynchronize(stream_);
    for (auto& e : uploaded_) cudaEventDestroy(e);
    for (auto* h : host_) cudaFreeHost(h);
    cudaStreamDestroy(stream_);
  }

  void add(const Atoms& atoms) override {
    const int n = int(atoms.size());
    const int slot = int(frames_ % 2);
    if (n > host_capacity_) {  // grow both pinned buffers (after every upload is done)
      PW_CUDA(cudaStreamSynchronize(stream_));
      host_capacity_ = n + n / 8;
      for (auto*& h : host_) {
        if (h) cudaFreeHost(h);
        PW_CUDA(
            cudaMallocHost(reinterpret_cast<void**>(&h), std::size_t(host_capacity_) * sizeof(D4)));
      }
    }
    if (n > ws_.capacity) {
      PW_CUDA(cudaStreamSynchronize(stream_));
      ws_.reserve(plan_, n + n / 8);
    }
    PW_CUDA(cudaEventSynchronize(uploaded_[slot]));  // frame k - 2's upload from this buffer
    pack_atoms(atoms, host_[slot]);
    PW_CUDA(cudaMemcpyAsync(ws_.abs.p, host_[slot], std::size_t(n) * sizeof(D4),
                            cudaMemcpyHostToDevice, stream_));
    PW_CUDA(cudaEventRecord(uploaded_[slot], stream_));
    bin(ws_, plan_, n, stream_);
    Slab s = plan_.whole;
    s.i0 = 0;
    s.planes = s.nx;
    sum_slab<T, Out, M>(ws_, plan_, n, s, map_.p, stream_, phi_.get());
    const unsigned blocks = unsigned((points_ + 255) / 256);
    fold_map<Out><<<blocks, 256, 0, stream_>>>(map_.p, acc_.p, (long long)points_, int(combine_),
                                               frames_ == 0);
    PW_CUDA_LAUNCH("potmap fold_map");
    ++frames_;
  }

  std::vector<double> accumulated() override {
    if (frames_ == 0) return {};
    std::vector<double> out(points_);
    PW_CUDA(cudaMemcpyAsync(out.data(), acc_.p, points_ * sizeof(double), cudaMemcpyDeviceToHost,
                            stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    return out;
  }
  std::vector<double> result() override {
    std::vector<double> out = accumulated();
    if (combine_ == Combine::average && frames_ > 0) {
      const double n = double(frames_);
      for (double& v : out) v /= n;
    }
    return out;
  }
  std::string device() const override { return device_ + (phi_ ? phi_->note() : ""); }

 private:
  Plan<T> plan_;
  Combine combine_;
  std::size_t points_;
  std::string device_;
  Workspace<T> ws_;
  Buffer<Out> map_;
  Buffer<double> acc_;
  cudaStream_t stream_{};
  cudaEvent_t uploaded_[2]{};
  D4* host_[2] = {nullptr, nullptr};
  int host_capacity_ = 0;
  std::unique_ptr<PhiKernels<T, Out, M>> phi_;  // a custom φ's kernels (NVRTC)
};

std::string use_device(const MapOptions& options) {
  std::string why;
  const auto devices = cuda_devices(&why);
  if (devices.empty()) throw Error("no usable CUDA device: " + why, "backend");
  const auto it = std::find_if(devices.begin(), devices.end(),
                               [&](const DeviceInfo& d) { return d.index == options.device; });
  if (it == devices.end()) {
    throw Error("CUDA device " + std::to_string(options.device) + " is not usable", "device");
  }
  PW_CUDA(cudaSetDevice(options.device));
  return "cuda: " + it->name;
}

void check_ranges(const Atoms& atoms, const Lattice& lattice) {
  if (lattice.counts[0] > (1u << 30) || lattice.counts[1] > 65535u * kR ||
      lattice.counts[2] > 65535u * kP || atoms.size() > (1u << 30)) {
    throw Error("lattice or atom count beyond the cuda backend's index range", "counts");
  }
}

}  // namespace

MapResult cuda_map(const Atoms& atoms, const Lattice& lattice, const MapOptions& options,
                   std::vector<double> values) {
  const std::string device = use_device(options);
  check_ranges(atoms, lattice);
  MapResult r;
  switch (options.precision) {
    case Precision::double_:
      r = run<double, double, kPlain>(atoms, lattice, options, std::move(values));
      break;
    case Precision::mixed:
      r = run<float, float, kWide>(atoms, lattice, options, std::move(values));
      break;
    case Precision::single:
      r = options.kahan ? run<float, float, kKahan>(atoms, lattice, options, std::move(values))
                        : run<float, float, kPlain>(atoms, lattice, options, std::move(values));
      break;
  }
  r.device = device + r.device;
  return r;
}

std::unique_ptr<FrameMaps> cuda_frame_maps(const Lattice& lattice, const MapOptions& options,
                                           Combine combine) {
  const std::string device = use_device(options);
  check_ranges(Atoms{}, lattice);
  switch (options.precision) {
    case Precision::double_:
      return std::make_unique<CudaFrames<double, double, kPlain>>(lattice, options, combine,
                                                                  device);
    case Precision::mixed:
      return std::make_unique<CudaFrames<float, float, kWide>>(lattice, options, combine, device);
    case Precision::single:
      break;
  }
  if (options.kahan) {
    return std::make_unique<CudaFrames<float, float, kKahan>>(lattice, options, combine, device);
  }
  return std::make_unique<CudaFrames<float, float, kPlain>>(lattice, options, combine, device);
}

std::optional<MapResult> cuda_map_across_ranks(const Atoms& atoms, const Lattice& slab,
                                               const Lattice& lattice, const MapOptions& options) {
  parallel::Communicator& comm = parallel::world();
  const int ranks = comm.size(), rank = comm.rank();
  const std::string device = use_device(options);
  check_ranges(atoms, lattice);
  const std::size_t plane = lattice.counts[1] * lattice.counts[2];
  // Every rank's block is the largest slab's (the first ranks', parallel::block_of), padded.
  const std::size_t block = parallel::block_of(lattice.counts[0], 0, ranks).size() * plane;
  // The gathered map (all blocks), an FP32 slab, the atoms' workspace (~64 B an atom, 256 MB
  // spare): if that does not fit on some rank, every rank takes the host path (compute_map's
  // memory-budget slabs, then the host all-gather).
  std::size_t free_b = 0, total_b = 0;
  PW_CUDA(cudaMemGetInfo(&free_b, &total_b));
  const std::size_t need = std::size_t(ranks) * block * sizeof(double) + block * sizeof(float) +
                           atoms.size() * 64 + (256u << 20);
  std::int64_t short_of_memory = need > free_b ? 1 : 0;
  comm.allreduce_max(std::span<std::int64_t>(&short_of_memory, 1));
  if (short_of_memory) return std::nullopt;
  // Made once, by every rank at its first map (collective; NCCL's setup costs ~0.1-1 s), and kept
  // for the process: a trajectory's frames reuse it. Never destroyed (its teardown at exit would
  // race the CUDA runtime's and MPI's).
  static parallel::GpuCollectives* const gpu = parallel::make_gpu_collectives(comm).release();

  Buffer<double> all(std::size_t(ranks) * block);
  double* const mine = all.p + std::size_t(rank) * block;  // in place, as NCCL allows
  const bool sums = slab.counts[0] > 0 && atoms.size() > 0;
  std::unique_ptr<SlabOnDevice> slab_sums;
  if (sums) slab_sums = make_slab_sums(atoms, slab, options);
  // Zeros where nothing was summed: the whole block (no planes, or no atom reaches them), or the
  // padding after a smaller slab (sent, never read: zeroed so that no uninitialized memory moves).
  const std::size_t summed = sums ? slab.size() : 0;
  if (summed < block) PW_CUDA(cudaMemset(mine + summed, 0, (block - summed) * sizeof(double)));
  // The process's first all-gather of this size, untimed: NCCL's device code is loaded at its
  // first launch (CUDA's lazy loading, ms), as cuda_warm_up loads the map's own kernels before
  // one rank's timed map. Measured on 2 and 4 H200s before this: the map took ≈ 8 ms beyond its
  // sums on both counts, while nbody's and fredholm's timed collectives (after warm-ups) cost
  // < 1 %. Zeros travel (the block is zeroed first), never uninitialized memory.
  static std::size_t warmed_bytes = 0;
  if (warmed_bytes != block * sizeof(double)) {
    PW_CUDA(cudaMemset(mine, 0, summed * sizeof(double)));
    gpu->allgather(mine, all.p, block * sizeof(double), nullptr);
    warmed_bytes = block * sizeof(double);
  }
  PW_CUDA(cudaDeviceSynchronize());
  // Timed as the one-rank map is (binning and sums, not the set-up above), plus the all-gather;
  // the ranks start together so that the slowest rank's sums are in every rank's time.
  comm.barrier();
  Events ev, summed_ev;  // summed_ev.stop: this rank's sums done (then the all-gather, the wait)
  PW_CUDA(cudaEventRecord(ev.start));
  if (slab_sums) slab_sums->sum(mine);
  PW_CUDA(cudaEventRecord(summed_ev.stop));
  gpu->allgather(mine, all.p, block * sizeof(double), nullptr);
  PW_CUDA(cudaEventRecord(ev.stop));
  PW_CUDA(cudaEventSynchronize(ev.stop));
  const std::string note = slab_sums ? slab_sums->note() : std::string();
  float ms = 0, sums_ms = 0;
  PW_CUDA(cudaEventElapsedTime(&ms, ev.start, ev.stop));
  PW_CUDA(cudaEventElapsedTime(&sums_ms, ev.start, summed_ev.stop));
  // The slowest rank's sums and whole time, in one all-reduce.
  double slowest_ms[2] = {sums_ms, ms};
  comm.allreduce_max(std::span<double>(slowest_ms, 2));
  MapResult r;
  r.values.resize(lattice.size());
  for (int q = 0; q < ranks; ++q) {  // each rank's planes, without the padding
    const parallel::Block b = parallel::block_of(lattice.counts[0], q, ranks);
    if (b.size() == 0) continue;
    PW_CUDA(cudaMemcpy(r.values.data() + b.begin * plane, all.p + std::size_t(q) * block,
                       b.size() * plane * sizeof(double), cudaMemcpyDeviceToHost));
  }
  r.backend = BackendKind::cuda;
  r.precision = options.precision;
  r.seconds = slowest_ms[1] * 1e-3;  // the slowest rank's slab and the all-gather
  char sums_text[96];
  std::snprintf(sums_text, sizeof sums_text, "; the slowest rank's sums %.3f ms of the %.3f",
                slowest_ms[0], slowest_ms[1]);
  r.device = device + note + "; slabs of x-planes all-gathered on the GPUs (" + gpu->name() +
             ", blocks of " + std::to_string(block * sizeof(double)) + " bytes" + sums_text + ")";
  return r;
}

bool cuda_start_context(int device) noexcept {
  return cudaSetDevice(device) == cudaSuccess && cudaFree(nullptr) == cudaSuccess;
}

namespace {

template <class T, class Out, int M>
void load_map_kernels(const MapOptions& o) {
  cudaFuncAttributes a;
  cudaFuncGetAttributes(&a, bin_atoms<T>);
  if (o.cutoff > 0) {
    cudaFuncGetAttributes(&a, gather_atoms<T>);
    cudaFuncGetAttributes(&a, cell_starts);
    cudaFuncGetAttributes(&a, cutoff_regions<T, Out, M>);
  } else {
    cudaFuncGetAttributes(&a, direct_regions<T, Out, M>);
  }
  if (o.exclusion > 0) cudaFuncGetAttributes(&a, exclusions<Out>);
  if (!std::is_same_v<Out, double>) cudaFuncGetAttributes(&a, widen_map);
}

}  // namespace

void cuda_warm_up(const MapOptions& options) noexcept {
  // CUDA loads kernels lazily, at their first launch (ms each): load those this map will launch,
  // and for a cutoff map cub's radix sort (by a sort of 2^17 zero keys: cub picks its kernels by
  // size), while the caller may still read the input.
  switch (options.precision) {
    case Precision::double_:
      load_map_kernels<double, double, kPlain>(options);
      break;
    case Precision::mixed:
      load_map_kernels<float, float, kWide>(options);
      break;
    case Precision::single:
      if (options.kahan) {
        load_map_kernels<float, float, kKahan>(options);
      } else {
        load_map_kernels<float, float, kPlain>(options);
      }
      break;
  }
  if (options.cutoff > 0) {
    constexpr int n = 1 << 17;  // the sort kernels of ~10^5 atoms
    std::size_t bytes = 0;
    cub::DeviceRadixSort::SortPairs(nullptr, bytes, (unsigned*)nullptr, (unsigned*)nullptr,
                                    (int*)nullptr, (int*)nullptr, n);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes + 4 * n * sizeof(int)) == cudaSuccess) {
      cudaMemset(p, 0, bytes + 4 * n * sizeof(int));
      auto* k = static_cast<unsigned*>(p);
      auto* v = reinterpret_cast<int*>(k + 2 * n);
      cub::DeviceRadixSort::SortPairs(v + 2 * n, bytes, k, k + n, v, v + n, n);
      cudaDeviceSynchronize();
      cudaFree(p);
    }
  }
  cudaGetLastError();  // nothing of the warm-up is reported
}

}  // namespace pairwise::potmap
