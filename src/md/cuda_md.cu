// The cuda engine of the md workload: the whole velocity-Verlet step on the device.
//
// One step is seven kernels (eight with Andersen's), captured into a CUDA graph of `kGraphSteps`
// steps and replayed:
//   integrate1  half kick, drift (BAOAB: half drift, O step, half drift), wrap + image flags,
//               |r − r_build|² per atom, block top-2 → last block: rebuild flag = d1 + d2 > skin
//   cell_count  \
//   cell_scan    | cell list by counting sort (cells numbered along a Morton curve; at least
//   cell_scatter | r_list wide, widened up to 27 atoms on average); in-cell order sorted by
//   cell_sort   /  index so the lists, and so the forces, are deterministic
//   build_list  full Verlet list (r < rc + skin) from the 27-cell stencil, a warp per cell,
//               row-major nbr[i * capacity + k], written in 8-entry groups (whole sectors);
//               count > capacity raises the overflow maximum. Grids of 3+ cells per side:
//               build_list_screened (candidates screened against the home atoms' bounding box,
//               tested 32 at a time into hit masks; one wave of blocks taking home cells from a
//               counter; PAIRWISE_MD_SCREEN=0: build_list)
//   forces      pair forces over the list (4 threads per atom, each loading 4 neighbor indices
//               with one 16-byte load; no atomics) + second half kick; inside a graph, all steps
//               but its last also apply the next step's first half kick (forces_kick's Ahead:
//               that step's integrate1 then neither reads the force nor writes the velocity, and
//               the force is not stored; PAIRWISE_MD_AHEAD=0: off)
//   andersen_collisions  (Andersen's thermostat only; then no step runs ahead)
// The five list kernels sit in a conditional (IF) graph node per step whose condition integrate1
// sets on the device (plain capture, kernels returning at once, where the driver refuses), so no
// step needs the host: the step index for the random streams lives on the device. Thermo (PE,
// virial, KE) is a separate reduction launched only when thermo() is asked. Overflow: advance()
// snapshots the state first; if the overflow maximum is set at the end, the capacity grows to it,
// the snapshot is restored and the same steps run again, so no step ever used a truncated list.
// Every `sort_every` steps the atoms are permuted into cell (Morton) order.
//
// The kernels live in rooms of their own, included here (one translation unit): cuda_md_common.cuh
// (parameter structs, pair tables, minimum image, fixed point, half kick), cuda_md_integrate.cuh
// (integrate1, andersen_collisions, find_bad, gather), cuda_md_lists.cuh (cell list and Verlet list
// build), cuda_md_forces.cuh (forces_kick), cuda_md_reductions.cuh (thermo sums); this file holds
// the engine that allocates and launches them.
//
// Precision: single = float4 positions/velocities, float pair arithmetic and accumulation;
// mixed = double4 positions/velocities, float pair terms from fixed-point positions (FixedP: the
// force kernel gathers 16 bytes a neighbor, as single), sums in double; on shifted grids the
// screened build tests float coordinates and decides pairs within a band of r_list in double
// (build_list_screened's Exact: the lists are the double build's); double = double throughout.
// Mixed with the float lists (PAIRWISE_MD_MASTER=0: off): the positions are 50-bit fixed point
// (MasterP: the FixedP copy + an 18-bit residual); integrate1 neither reads nor writes the
// doubles, a rebuild's kernels decode the master positions (MasterView), and the doubles become
// a copy written where the host side reads them (sync_pos: thermo, get_state, find_bad, a
// reorder); set_state keeps its input doubles, so its lists are the double build's.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.cuh"
#include "engine/cell_list.hpp"
#include "md/engine.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/lj_styles.hpp"

#include "md/cuda_custom_pair.hpp"
#include "md/cuda_md_common.cuh"
#include "md/cuda_md_forces.cuh"
#include "md/cuda_md_host.cuh"
#include "md/cuda_md_integrate.cuh"
#include "md/cuda_md_lists.cuh"
#include "md/cuda_md_reductions.cuh"

namespace pairwise::md {
namespace {

// A device allocation freed on destruction; reports the bytes on failure.
class Buffer {
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  void allocate(std::size_t bytes) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    if (bytes == 0) bytes = 16;
    if (cudaMalloc(&ptr_, bytes) != cudaSuccess) {
      cudaGetLastError();
      std::size_t free = 0, total = 0;
      cudaMemGetInfo(&free, &total);
      throw Error("out of GPU memory: needed " + std::to_string(bytes) + " bytes, " +
                      std::to_string(free) + " free",
                  "md cuda engine");
    }
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }

 private:
  void* ptr_ = nullptr;
};

int blocks_for(std::size_t n, int block = kBlock) {
  return int((n + block - 1) / block);
}

template <class R, class P, class A>
class CudaEngine final : public MdEngine {
  using R4 = typename Vec4<R>::type;

 public:
  explicit CudaEngine(const EngineOptions& o) : options_(o) {
    std::string note;
    resolve_backend(BackendKind::cuda, &note);
    PW_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    device_ = current_device_name();
    const char* tpa = std::getenv("PAIRWISE_MD_TPA");
    tpa_override_ = tpa && *tpa ? std::atoi(tpa) : 0;
    const char* prof = std::getenv("PAIRWISE_MD_PROFILE");
    profile_ = prof && *prof && *prof != '0';
    const char* nocond = std::getenv("PAIRWISE_MD_NO_COND");
    use_cond_ = !(nocond && *nocond && *nocond != '0');
    const char* colmajor = std::getenv("PAIRWISE_MD_COLUMN_MAJOR");
    row_major_ = !(colmajor && *colmajor && *colmajor != '0');
    const char* staged = std::getenv("PAIRWISE_MD_STAGED");  // 0: one store per neighbor
    staged_ = !(staged && *staged == '0');
    const char* screen = std::getenv("PAIRWISE_MD_SCREEN");  // 0: unscreened build
    screen_ = !(screen && *screen == '0');
    const char* vec = std::getenv("PAIRWISE_MD_VEC");  // 0: scalar index loads
    vec_ = !(vec && *vec == '0');
    // Single: the approximate 1/r² unless 0. Mixed: IEEE 1/r² unless 1 (+5 % at 2,048,000 atoms,
    // but the NVE drift of the validation case measured 8e-5 against 6e-6: docs/performance.md).
    const char* rcp = std::getenv("PAIRWISE_MD_FAST_RCP");
    fast_rcp_ = rcp && *rcp ? *rcp == '1' : std::is_same_v<R, float>;
    const char* fixed = std::getenv("PAIRWISE_MD_FIXED");  // 0: mixed gathers double positions
    fixed_allowed_ = !(fixed && *fixed == '0');
    const char* master = std::getenv("PAIRWISE_MD_MASTER");  // 0: mixed's positions in FP64
    master_allowed_ = !(master && *master == '0');
    const char* ahead = std::getenv("PAIRWISE_MD_AHEAD");  // 0: integrate1 kicks every step
    ahead_ = !(ahead && *ahead == '0');
    const char* float_lists = std::getenv("PAIRWISE_MD_FLOAT_LISTS");  // 0: mixed builds in double
    float_lists_allowed_ = !(float_lists && *float_lists == '0');
    const char* exact_minb = std::getenv("PAIRWISE_MD_EXACT_MINB");  // 4 or 8 (default)
    if (exact_minb && std::atoi(exact_minb) == 4) exact_minb_ = 4;
    const char* exact_mode = std::getenv("PAIRWISE_MD_EXACT_MODE");
    if (exact_mode && std::atoi(exact_mode) >= 1 && std::atoi(exact_mode) <= 3)
      exact_mode_ = std::atoi(exact_mode);
    const char* coarse = std::getenv("PAIRWISE_MD_COARSE_CELLS");  // 0: cells from U itself
    coarse_cells_ = !(coarse && *coarse == '0');
    const char* single_minb = std::getenv("PAIRWISE_MD_SINGLE_MINB");  // 15: one trip unrolled
    if (single_minb && *single_minb) single_minb_ = std::atoi(single_minb);
    const char* fixed_minb = std::getenv("PAIRWISE_MD_FIXED_MINB");  // 8, 12, 15 (default) or 16
    if (fixed_minb && *fixed_minb) fixed_minb_ = std::atoi(fixed_minb);
    const char* cell_atoms = std::getenv("PAIRWISE_MD_CELL_ATOMS");  // mean atoms per cell
    if (cell_atoms && *cell_atoms) cell_atoms_ = std::atof(cell_atoms);
  }
  ~CudaEngine() override {
    if (profile_ && prof_steps_[0] > 0)
      std::fprintf(stderr,
                   "# md cuda profile, N=%zu, %lld steps (%lld rebuilds): integrate %.2f us, "
                   "lists (no rebuild) %.2f us, lists (rebuild) %.2f us (cell kernels %.2f), "
                   "forces+kick %.2f us\n",
                   n_, prof_steps_[0], prof_steps_[2], 1e3 * prof_[0] / prof_steps_[0],
                   prof_steps_[1] ? 1e3 * prof_[1] / prof_steps_[1] : 0.0,
                   prof_steps_[2] ? 1e3 * prof_[2] / prof_steps_[2] : 0.0,
                   prof_steps_[2] ? 1e3 * prof_cells_ / prof_steps_[2] : 0.0,
                   1e3 * prof_[3] / prof_steps_[0]);
    for (auto e : events_)
      if (e) cudaEventDestroy(e);
    if (prof_mid_) cudaEventDestroy(prof_mid_);
    if (exec_) cudaGraphExecDestroy(exec_);
    if (stream_) cudaStreamDestroy(stream_);
  }
  BackendKind backend() const override { return BackendKind::cuda; }
  Precision precision() const override { return options_.precision; }
  std::string device_name() const override { return device_; }
  EngineStats stats() const override {
    EngineStats s = stats_;
    Flags f{};
    cudaStreamSynchronize(stream_);
    cudaMemcpy(&f, flags_.as<Flags>(), sizeof f, cudaMemcpyDeviceToHost);
    s.rebuilds = (long long)f.builds;
    s.capacity = capacity_;
    return s;
  }

  void set_state(const System& s) override {
    n_ = s.atoms.size();
    if (n_ == 0) throw Error("no atoms", "md cuda engine");
    if (n_ >= (std::size_t(1) << 31)) throw Error("too many atoms for the cuda engine (< 2^31)");
    table_ = build_pair_table(s.ff);
    custom_ = s.ff.custom;  // formulas: forces_kick and energy_terms compiled by NVRTC
    custom_kernels_.clear();
    any_sf_ = upload_pair_params(table_);
    types_ = table_.types;
    for (int d = 0; d < 3; ++d) {
      box_.lo[d] = R(s.box.lo[d]), box_.hi[d] = R(s.box.hi[d]);
      box_.L[d] = R(s.box.length(d)), box_.half[d] = R(0.5 * s.box.length(d));
      length_[d] = s.box.length(d);
    }
    r_list_ = table_.max_cutoff + options_.skin;
    // Mixed: the force kernel reads fixed-point positions (FixedP) where their quantum L / 2^32 is
    // finer than the float rounding of a displacement at the cutoff (2^-24 rc), i.e. boxes up to
    // 256 cutoffs a side (in.lj, 2,048,000 atoms: L = 134 σ, quantum 3.1e-8 σ).
    fixed_ = false;
    if constexpr (std::is_same_v<R, double> && std::is_same_v<P, float>) {
      double longest = 0;
      for (int d = 0; d < 3; ++d) longest = std::max(longest, length_[d]);
      fixed_ = fixed_allowed_ && longest <= 256.0 * table_.max_cutoff;
    }
    for (int d = 0; d < 3; ++d) {
      fixed_p_.lo[d] = s.box.lo[d];
      fixed_p_.to_fixed[d] = 4294967296.0 / length_[d];
      const double quantum = length_[d] / 4294967296.0;
      fixed_p_.quantum_hi[d] = float(quantum);
      fixed_p_.quantum_lo[d] = float(quantum - double(fixed_p_.quantum_hi[d]));
    }
    // Threads per atom: 4 share an atom's row-major list (16 contiguous bytes a group), enough
    // resident warps to hide the gathers' latency (H200, single: 4 beats 1 and 8 at 256,000 and
    // 2,048,000 atoms: 5,656 vs 4,109 / 5,558 TPS and 810 vs 690 / 758 TPS).
    tpa_ = tpa_override_ > 0 ? tpa_override_ : 4;
    {
      int dev = 0, sms = 0;
      PW_CUDA(cudaGetDevice(&dev));
      PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      list_grid_ = sms * 16;  // 16 blocks of 128 per SM: a full wave
    }
    // Cells at least r_list wide, and wider where r_list-wide cells hold few atoms: the fewest
    // cells per side that keep the mean at or below cell_atoms_ (the build's warp per cell then
    // has fewer idle lanes; H200, 2,048,000 atoms: 43 cells of 25.8 atoms a side instead of 48 of
    // 18.5); never fewer than 3 per side where r_list-wide cells give 3 or more.
    auto grid = engine::make_cell_grid(s.box.lo, length_, r_list_);
    if (cell_atoms_ > 0) {
      const double width = std::cbrt(cell_atoms_ * s.box.volume() / double(s.atoms.size()));
      double min_cell = 1e300;
      for (int d = 0; d < 3; ++d) {
        const int nd = std::min(grid.n[d], int(std::ceil(length_[d] / width)));
        min_cell = std::min(min_cell, length_[d] / std::max(nd, 1) * (1 - 1e-9));
      }
      min_cell = std::max(min_cell, r_list_);
      if (min_cell > r_list_) {
        auto wide = engine::make_cell_grid(s.box.lo, length_, min_cell);
        bool ok = true;
        for (int d = 0; d < 3; ++d) ok = ok && (wide.n[d] >= 3 || wide.n[d] >= grid.n[d]);
        if (ok) grid = std::move(wide);
      }
    }
    for (int d = 0; d < 3; ++d)
      grid_.n[d] = grid.n[d], grid_.lo[d] = grid.lo[d], grid_.inv_cell[d] = grid.inv_cell[d];
    cells_ = grid.total();
    shifted_ = grid.n[0] >= 3 && grid.n[1] >= 3 && grid.n[2] >= 3;
    // Mixed with fixed-point positions on shifted grids: the screened build tests float
    // coordinates (offsets from the box's low corner), refined in double within a band of
    // r_list (build_list_screened's Exact), and x0 is the fixed-point position.
    float_lists_ = fixed_ && shifted_ && screen_ && float_lists_allowed_;
    // Mixed's master positions (MasterP, integrate1's Master): with the float lists only (x0 is
    // then the fixed-point position the displacement test reads).
    master_ = master_allowed_ && float_lists_;
    master_valid_ = false;
    for (int d = 0; d < 3; ++d) {
      master_p_.lo[d] = s.box.lo[d];
      master_p_.quantum[d] = std::ldexp(length_[d], -50);
      master_p_.inv_quantum[d] = std::ldexp(1.0, 50) / length_[d];
    }
    {
      double longest = 0;
      for (int d = 0; d < 3; ++d) {
        box_f_.lo[d] = 0, box_f_.hi[d] = float(length_[d]);
        box_f_.L[d] = float(length_[d]), box_f_.half[d] = float(0.5 * length_[d]);
        longest = std::max(longest, length_[d]);
      }
      // Far above the rounding of a float test (offsets < L rounded once, the shift ±L, the
      // differences: a few 2^-24 (L + r_list)).
      // (≤ 5·2^-24 L per coordinate, so ≤ 9·2^-24 L in r: the margin is 7× that).
      list_margin_ = std::ldexp(longest + r_list_, -18);
    }
    const std::vector<int> stencil = engine::cell_stencils(grid);
    std::vector<int4> ccoord(
        static_cast<std::size_t>(cells_));  // integer coordinates of each ranked cell
    for (int cz = 0; cz < grid.n[2]; ++cz)
      for (int cy = 0; cy < grid.n[1]; ++cy)
        for (int cx = 0; cx < grid.n[0]; ++cx) {
          const int lin = cx + grid.n[0] * (cy + grid.n[1] * cz);
          const int r = grid.rank[std::size_t(lin)];
          int4& cc = ccoord[std::size_t(r)];
          cc.x = cx, cc.y = cy, cc.z = cz, cc.w = 0;
        }
    // Device memory.
    const std::size_t n = n_;
    for (Buffer* b : {&pos_, &vel_, &force_, &x0_, &pos_s_, &vel_s_, &force_s_, &tmp_})
      b->allocate(n * sizeof(R4));
    image_.allocate(n * sizeof(int4)), image_s_.allocate(n * sizeof(int4));
    id_.allocate(n * 4), id_s_.allocate(n * 4), orig_.allocate(n * 4), orig_s_.allocate(n * 4);
    cell_.allocate(n * 4), slot_.allocate(n * 4), order_.allocate(n * 4);
    nbr_count_.allocate(n * 4);
    count_.allocate(std::size_t(cells_) * 4), start_.allocate(std::size_t(cells_ + 1) * 4);
    stencil_.allocate(stencil.size() * 4), rank_.allocate(grid.rank.size() * 4);
    ccoord_.allocate(ccoord.size() * sizeof(int4));
    top2_.allocate(std::size_t(blocks_for(n, kIntBlock)) * sizeof(double2));
    partial_.allocate(std::size_t(blocks_for(n)) * 3 * sizeof(double));
    result_.allocate(3 * sizeof(double));
    flags_.allocate(sizeof(Flags));
    cpos_.allocate(n * sizeof(R4));
    fixed_pos_.allocate(fixed_ ? n * sizeof(int4) : 16);
    fixed_s_.allocate(master_ ? n * sizeof(int4) : 16);
    resid_.allocate(master_ ? n * 8 : 16), resid_s_.allocate(master_ ? n * 8 : 16);
    PW_CUDA(
        cudaMemcpy(stencil_.as<int>(), stencil.data(), stencil.size() * 4, cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(rank_.as<int>(), grid.rank.data(), grid.rank.size() * 4,
                       cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(ccoord_.as<int4>(), ccoord.data(), ccoord.size() * sizeof(int4),
                       cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemset(count_.as<int>(), 0, std::size_t(cells_) * 4));
    // Atoms.
    const auto& a = s.atoms;
    std::vector<R4> p(n), v(n);
    std::vector<int4> im(n);
    std::vector<int> orig(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (a.type[i] < 1 || a.type[i] > types_)
        throw Error("unknown atom type " + std::to_string(a.type[i]),
                    "atom id " + std::to_string(a.id[i]));
      p[i].x = R(a.x[i]), p[i].y = R(a.y[i]), p[i].z = R(a.z[i]), p[i].w = R(a.type[i] - 1);
      v[i].x = R(a.vx[i]), v[i].y = R(a.vy[i]), v[i].z = R(a.vz[i]);
      v[i].w = R(table_.inv_mass[std::size_t(a.type[i] - 1)]);
      im[i] = make_int4(a.ix[i], a.iy[i], a.iz[i], 0);
      orig[i] = int(i);
    }
    host_ids_ = a.id;
    PW_CUDA(cudaMemcpy(pos_.as<R4>(), p.data(), n * sizeof(R4), cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(vel_.as<R4>(), v.data(), n * sizeof(R4), cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemset(force_.as<R4>(), 0, n * sizeof(R4)));
    PW_CUDA(cudaMemcpy(image_.as<int4>(), im.data(), n * sizeof(int4), cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(id_.as<unsigned>(), a.id.data(), n * 4, cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(orig_.as<int>(), orig.data(), n * 4, cudaMemcpyHostToDevice));
    Flags f{};
    f.bad = 0x7fffffff;
    PW_CUDA(cudaMemcpy(flags_.as<Flags>(), &f, sizeof f, cudaMemcpyHostToDevice));
    // Wrap (a zero-length step would do it; the host does it once here instead).
    wrap_on_host(p, im, s);
    if (capacity_ == 0) {
      const double density = double(n) / s.box.volume();
      capacity_ = options_.neighbor_capacity > 0
                      ? options_.neighbor_capacity
                      : (int(density * 4.18879 * r_list_ * r_list_ * r_list_ * 1.25) + 23) & ~7;
    }
    nbr_.allocate(std::size_t(capacity_) * n * 4);
    invalidate_graph();
    sort_atoms();
    refresh_fixed();  // the float build's x0 copies it
    rebuild_now();
    compute_forces(false);
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  void get_state(System& s) override {
    std::vector<R4> p(n_), v(n_);
    std::vector<int4> im(n_);
    std::vector<int> orig(n_);
    download(p, v, im, orig);
    auto& a = s.atoms;
    for (std::size_t k = 0; k < n_; ++k) {
      const std::size_t i = std::size_t(orig[k]);
      a.x[i] = double(p[k].x), a.y[i] = double(p[k].y), a.z[i] = double(p[k].z);
      a.vx[i] = double(v[k].x), a.vy[i] = double(v[k].y), a.vz[i] = double(v[k].z);
      a.ix[i] = im[k].x, a.iy[i] = im[k].y, a.iz[i] = im[k].z;
    }
  }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    std::vector<R4> f(n_);
    std::vector<int> orig(n_);
    PW_CUDA(cudaStreamSynchronize(stream_));
    PW_CUDA(cudaMemcpy(f.data(), force_.as<R4>(), n_ * sizeof(R4), cudaMemcpyDeviceToHost));
    PW_CUDA(cudaMemcpy(orig.data(), orig_.as<int>(), n_ * 4, cudaMemcpyDeviceToHost));
    fx.resize(n_), fy.resize(n_), fz.resize(n_);
    for (std::size_t k = 0; k < n_; ++k) {
      const std::size_t i = std::size_t(orig[k]);
      fx[i] = double(f[k].x), fy[i] = double(f[k].y), fz[i] = double(f[k].z);
    }
  }

  std::vector<std::pair<int, int>> neighbor_pairs() override {
    std::vector<int> count(n_), orig(n_), nbr(std::size_t(capacity_) * n_);
    PW_CUDA(cudaStreamSynchronize(stream_));
    PW_CUDA(cudaMemcpy(count.data(), nbr_count_.as<int>(), n_ * 4, cudaMemcpyDeviceToHost));
    PW_CUDA(cudaMemcpy(orig.data(), orig_.as<int>(), n_ * 4, cudaMemcpyDeviceToHost));
    PW_CUDA(cudaMemcpy(nbr.data(), nbr_.as<int>(), nbr.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i < n_; ++i)
      for (int k = 0; k < std::min(count[i], capacity_); ++k) {
        const int a = orig[i], b = orig[std::size_t(nbr[i * si() + std::size_t(k) * sk()])];
        if (a < b) pairs.emplace_back(a, b);
      }
    std::sort(pairs.begin(), pairs.end());
    return pairs;
  }

  void advance(std::uint64_t first_step, int steps) override {
    if (steps <= 0) return;
    snapshot();
    for (;;) {
      set_step(first_step);
      int left = steps;
      while (left > 0) {
        if (options_.sort_every > 0 && steps_since_sort_ >= options_.sort_every) {
          sort_atoms();
          int one = 1;
          PW_CUDA(cudaMemcpyAsync(&flags_.as<Flags>()->force_rebuild, &one, sizeof one,
                                  cudaMemcpyHostToDevice, stream_));
        }
        int chunk = left;
        if (options_.sort_every > 0)
          chunk = std::min(chunk, std::max(1, options_.sort_every - steps_since_sort_));
        int done = 0;
        if (profile_) {  // the graphs' pattern of forces ahead (ahead_after), step by step
          bool kicked = false;
          for (; done < chunk; ++done) {
            const bool ahead = ahead_after(done % kGraphSteps) && done + 1 < chunk;
            profile_step(kicked, ahead);
            kicked = ahead;
          }
        }
        while (chunk - done >= kGraphSteps) {
          launch_graph();
          done += kGraphSteps;
        }
        for (; done < chunk; ++done) launch_step(stream_);
        left -= chunk;
        steps_since_sort_ += chunk;
      }
      int overflow = 0;
      PW_CUDA(cudaMemcpyAsync(&overflow, &flags_.as<Flags>()->overflow, sizeof overflow,
                              cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
      if (overflow == 0) return;
      // A list overflowed during these steps: grow, restore the snapshot, run them again.
      grow(overflow);
      restore();
    }
  }

  Thermo thermo() override {
    sync_pos();
    const int blocks = blocks_for(n_);
    if (custom_) {
      const CustomMdKernels& k = custom_kernels();
      int n = int(n_), capacity = capacity_, types = types_;
      const R4 *pos = pos_.as<R4>(), *vel = vel_.as<R4>();
      const int *nbr = nbr_.as<int>(), *nbr_count = nbr_count_.as<int>();
      std::size_t si_v = si(), sk_v = sk();
      BoxP<R> box = box_;
      double* partial = partial_.as<double>();
      void* args[] = {&n,    &pos,  &vel, &nbr,   &nbr_count, &capacity,
                      &si_v, &sk_v, &box, &types, &partial};
      k.energy->launch_async(stream_, unsigned(blocks), kBlock, args);
    } else if (any_sf_)
      energy_terms<R, P, true><<<blocks, kBlock, 0, stream_>>>(
          int(n_), pos_.as<R4>(), vel_.as<R4>(), nbr_.as<int>(), nbr_count_.as<int>(), capacity_,
          si(), sk(), box_, types_, partial_.as<double>());
    else
      energy_terms<R, P, false><<<blocks, kBlock, 0, stream_>>>(
          int(n_), pos_.as<R4>(), vel_.as<R4>(), nbr_.as<int>(), nbr_count_.as<int>(), capacity_,
          si(), sk(), box_, types_, partial_.as<double>());
    PW_CUDA_LAUNCH("energy_terms");
    sum_partials<<<1, 256, 0, stream_>>>(blocks, partial_.as<double>(), result_.as<double>());
    PW_CUDA_LAUNCH("sum_partials");
    double r[3];
    PW_CUDA(cudaMemcpyAsync(r, result_.as<double>(), sizeof r, cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    return {r[2], r[0], r[1]};
  }

  std::uint32_t first_bad_atom(double max_speed) override {
    sync_pos();
    int big = 0x7fffffff;
    PW_CUDA(cudaMemcpyAsync(&flags_.as<Flags>()->bad, &big, sizeof big, cudaMemcpyHostToDevice,
                            stream_));
    find_bad<R><<<blocks_for(n_), kBlock, 0, stream_>>>(int(n_), pos_.as<R4>(), vel_.as<R4>(),
                                                        orig_.as<int>(), max_speed * max_speed,
                                                        flags_.as<Flags>());
    PW_CUDA_LAUNCH("find_bad");
    int bad = 0;
    PW_CUDA(cudaMemcpyAsync(&bad, &flags_.as<Flags>()->bad, sizeof bad, cudaMemcpyDeviceToHost,
                            stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    return bad == 0x7fffffff ? 0u : host_ids_[std::size_t(bad)];
  }

  double time_steps(int steps) override {
    cudaEvent_t a, b;
    PW_CUDA(cudaEventCreate(&a));
    PW_CUDA(cudaEventCreate(&b));
    PW_CUDA(cudaEventRecord(a, stream_));
    advance(1, steps);
    PW_CUDA(cudaEventRecord(b, stream_));
    PW_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    PW_CUDA(cudaEventElapsedTime(&ms, a, b));
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return double(ms) * 1e-3 / steps;
  }

 private:
  void wrap_on_host(std::vector<R4>& p, std::vector<int4>& im, const System& s) {
    bool changed = false;
    for (std::size_t i = 0; i < n_; ++i) {
      R* c[3] = {&p[i].x, &p[i].y, &p[i].z};
      int* m[3] = {&im[i].x, &im[i].y, &im[i].z};
      for (int d = 0; d < 3; ++d) {
        const double L = s.box.length(d), lo = s.box.lo[d];
        const double k = std::floor((double(*c[d]) - lo) / L);
        if (k != 0) {
          *c[d] = R(double(*c[d]) - k * L), *m[d] += int(k), changed = true;
          if (*c[d] >= R(s.box.hi[d])) *c[d] = R(lo);
        }
      }
    }
    if (changed) {
      PW_CUDA(cudaMemcpy(pos_.as<R4>(), p.data(), n_ * sizeof(R4), cudaMemcpyHostToDevice));
      PW_CUDA(cudaMemcpy(image_.as<int4>(), im.data(), n_ * sizeof(int4), cudaMemcpyHostToDevice));
    }
  }

  void download(std::vector<R4>& p, std::vector<R4>& v, std::vector<int4>& im,
                std::vector<int>& orig) {
    sync_pos();
    PW_CUDA(cudaStreamSynchronize(stream_));
    PW_CUDA(cudaMemcpy(p.data(), pos_.as<R4>(), n_ * sizeof(R4), cudaMemcpyDeviceToHost));
    PW_CUDA(cudaMemcpy(v.data(), vel_.as<R4>(), n_ * sizeof(R4), cudaMemcpyDeviceToHost));
    PW_CUDA(cudaMemcpy(im.data(), image_.as<int4>(), n_ * sizeof(int4), cudaMemcpyDeviceToHost));
    PW_CUDA(cudaMemcpy(orig.data(), orig_.as<int>(), n_ * 4, cudaMemcpyDeviceToHost));
  }

  void set_step(std::uint64_t step) {
    host_step_ = step;
    PW_CUDA(cudaMemcpyAsync(&flags_.as<Flags>()->step, &host_step_, sizeof host_step_,
                            cudaMemcpyHostToDevice, stream_));
  }

  DynP dyn() const {
    const auto& d = options_.dynamics;
    DynP p{};
    p.dt = d.dt, p.kT = d.kT, p.seed = d.seed;
    const auto c = physics::langevin_coefficients(d.gamma, d.dt);
    p.c1 = c.c1, p.c2 = c.c2;
    p.andersen_p = physics::andersen_probability(d.nu, d.dt);
    p.thermostat = d.thermostat == engine::Thermostat::langevin   ? 1
                   : d.thermostat == engine::Thermostat::andersen ? 2
                                                                  : 0;
    return p;
  }

  void launch_cell_scan(cudaStream_t s, const Flags* f) {
    cell_scan<<<(cells_ + kScanTile - 1) / kScanTile, 1024, 0, s>>>(
        cells_, int(n_), count_.as<int>(), start_.as<int>(), f);
  }

  void launch_cell_sort(cudaStream_t s, int max_blocks, MasterView mv = {}) {
    const int blocks = std::min(blocks_for(std::size_t(cells_) * 32), max_blocks);
    if (float_lists_)
      cell_sort<R, float><<<blocks, kBlock, 0, s>>>(
          cells_, start_.as<int>(), order_.as<int>(), count_.as<int>(), pos_.as<R4>(),
          cpos_.as<float4>(), box_, flags_.as<Flags>(), mv);
    else
      cell_sort<R><<<blocks, kBlock, 0, s>>>(cells_, start_.as<int>(), order_.as<int>(),
                                             count_.as<int>(), pos_.as<R4>(), cpos_.as<R4>(), box_,
                                             flags_.as<Flags>());
    PW_CUDA_LAUNCH("cell_sort");
  }

  // Mixed's fixed-point positions from the double positions (integrate1 keeps them after); with
  // master positions, those (and the double positions become their value, x = lo + U·q).
  void refresh_fixed() {
    if (!fixed_) return;
    if (master_) {
      to_master<<<blocks_for(n_), kBlock, 0, stream_>>>(int(n_), pos_.as<Double4>(),
                                                        fixed_pos_.as<int4>(),
                                                        resid_.as<unsigned long long>(), master_p_);
      PW_CUDA_LAUNCH("to_master");
      master_valid_ = true;
      doubles_fresh_ = true;  // the input itself: set_state's lists are the double build's
      return;
    }
    to_fixed<R4><<<blocks_for(n_), kBlock, 0, stream_>>>(int(n_), pos_.as<R4>(),
                                                         fixed_pos_.as<int4>(), fixed_p_);
    PW_CUDA_LAUNCH("to_fixed");
  }

  // Mixed's float build (float_lists_): build_list_screened<float, …, Exact>, one wave of
  // resident blocks, 8 per SM as single's (≤ 64 registers).
  template <bool Staged, int MinB = 8, int Mode = 1>
  void launch_screened_exact(cudaStream_t s, Flags* f, int bb) {
    if constexpr (std::is_same_v<R, double>) {
      if constexpr (Staged && MinB == 8 && Mode == 1) {
        if (exact_minb_ == 4) return launch_screened_exact<true, 4, 1>(s, f, bb);
        if (exact_mode_ == 3) return launch_screened_exact<true, 8, 3>(s, f, bb);
        if (exact_mode_ == 2) return launch_screened_exact<true, 8, 2>(s, f, bb);
      }
      auto kernel = build_list_screened<float, Staged, MinB, Mode>;
      int& blocks = exact_blocks_[Staged][MinB == 8][Mode - 1];
      if (blocks == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        PW_CUDA(cudaGetDevice(&dev));
        PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
        blocks = std::max(1, per_sm) * sms;
      }
      ExactBand band;
      band.pos = pos_.as<Double4>();
      band.mv = rebuild_view_;
      band.fixed = fixed_pos_.as<int4>();
      band.x0 = x0_.as<int4>();
      const double lo = std::max(0.0, r_list_ - list_margin_);
      band.lo2 = float(lo * lo);
      band.r_list2 = r_list_ * r_list_;
      for (int d = 0; d < 3; ++d) band.L[d] = length_[d], band.half[d] = 0.5 * length_[d];
      const double hi = r_list_ + list_margin_, screen = hi + 1e-3;
      band.mid2 = float(0.5 * (hi * hi + lo * lo));
      band.half2 = float(0.5 * (hi * hi - lo * lo));
      kernel<<<std::min(bb, blocks), kBlock, 0, s>>>(
          cells_, nullptr, cpos_.as<float4>(), nullptr, start_.as<int>(), stencil_.as<int>(),
          ccoord_.as<int4>(), box_f_, float(hi * hi), float(screen * screen), capacity_, si(), sk(),
          nbr_.as<int>(), nbr_count_.as<int>(), f, band);
      PW_CUDA_LAUNCH("build_list_screened (float, exact band)");
    }
  }

  // The screened build: a grid of exactly the resident blocks (one wave).
  template <bool Staged, int MinB>
  void launch_screened(cudaStream_t s, R screen, Flags* f, int bb) {
    auto kernel = build_list_screened<R, Staged, MinB>;
    int& blocks = screened_blocks_[Staged];
    if (blocks == 0) {  // queried at the first (uncaptured) build, then cached
      int dev = 0, sms = 0, per_sm = 0;
      PW_CUDA(cudaGetDevice(&dev));
      PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0));
      blocks = std::max(1, per_sm) * sms;
    }
    kernel<<<std::min(bb, blocks), kBlock, 0, s>>>(
        cells_, pos_.as<R4>(), cpos_.as<R4>(), x0_.as<R4>(), start_.as<int>(), stencil_.as<int>(),
        ccoord_.as<int4>(), box_, R(r_list_ * r_list_), screen * screen, capacity_, si(), sk(),
        nbr_.as<int>(), nbr_count_.as<int>(), f, ExactBand{});
    PW_CUDA_LAUNCH("build_list_screened");
  }

  // The double positions from the master ones, where they are not fresh (set_state derives the
  // master from the doubles; a step moves the master only).
  void sync_pos() {
    if (!master_ || !master_valid_ || doubles_fresh_) return;
    master_to_pos<<<blocks_for(n_), kBlock, 0, stream_>>>(int(n_), fixed_pos_.as<int4>(),
                                                          resid_.as<unsigned long long>(),
                                                          pos_.as<Double4>(), master_p_);
    PW_CUDA_LAUNCH("master_to_pos");
    doubles_fresh_ = true;
  }

  // What a rebuild reads: the master positions where the doubles are not fresh (inside graphs).
  MasterView master_view() const {
    MasterView v;
    if (master_ && master_valid_ && !doubles_fresh_) {
      v.fixed = fixed_pos_.as<int4>(), v.resid = resid_.as<unsigned long long>(), v.m = master_p_;
      v.coarse = coarse_cells_;
    }
    return v;
  }

  void launch_rebuild(cudaStream_t s) {
    const int nb = std::min(blocks_for(n_), list_grid_);
    Flags* f = flags_.as<Flags>();
    // Master positions: the cell kernels and the band decode them (master_view) unless the
    // doubles are fresh.
    rebuild_view_ = master_view();
    if (rebuild_view_.fixed)
      cell_count_master<<<nb, kBlock, 0, s>>>(int(n_), rebuild_view_, grid_, rank_.as<int>(),
                                              cell_.as<int>(), slot_.as<int>(), count_.as<int>(),
                                              f);
    else
      cell_count<R><<<nb, kBlock, 0, s>>>(int(n_), pos_.as<R4>(), grid_, rank_.as<int>(),
                                          cell_.as<int>(), slot_.as<int>(), count_.as<int>(), f);
    PW_CUDA_LAUNCH("cell_count");
    launch_cell_scan(s, f);
    PW_CUDA_LAUNCH("cell_scan");
    cell_scatter<<<nb, kBlock, 0, s>>>(int(n_), cell_.as<int>(), slot_.as<int>(), start_.as<int>(),
                                       order_.as<int>(), f);
    PW_CUDA_LAUNCH("cell_scatter");
    launch_cell_sort(s, list_grid_, rebuild_view_);
    if (mid_event_) PW_CUDA(cudaEventRecord(mid_event_, s));
    const int bb = std::min(blocks_for(std::size_t(cells_) * 32), list_grid_);
#define PW_BUILD(SHIFTED, STAGED)                                                                \
  build_list<R, SHIFTED, STAGED><<<bb, kBlock, 0, s>>>(                                          \
      cells_, pos_.as<R4>(), cpos_.as<R4>(), x0_.as<R4>(), start_.as<int>(), stencil_.as<int>(), \
      ccoord_.as<int4>(), box_, R(r_list_ * r_list_), capacity_, si(), sk(), nbr_.as<int>(),     \
      nbr_count_.as<int>(), f)
    const bool staged = staged_ && row_major_ && capacity_ % 8 == 0;
    const R screen = R(r_list_ + 1e-3);  // > r_list by far more than the rounding of the tests
    if (float_lists_)
      return staged ? launch_screened_exact<true>(s, f, bb)
                    : launch_screened_exact<false>(s, f, bb);
    if (shifted_ && screen_) {
      // Single, staged: 8 resident blocks (≤ 64 registers, a few bytes spilled; 72 otherwise):
      // H200, 2,048,000 atoms, 1,471 vs 1,469 TPS; 1,427 vs 1,417 before the one-wave grid.
      if constexpr (std::is_same_v<R, float>) {
        if (staged) return launch_screened<true, 8>(s, screen, f, bb);
      }
      return staged ? launch_screened<true, 1>(s, screen, f, bb)
                    : launch_screened<false, 1>(s, screen, f, bb);
    } else if (shifted_)
      staged ? PW_BUILD(true, true) : PW_BUILD(true, false);
    else
      staged ? PW_BUILD(false, true) : PW_BUILD(false, false);
#undef PW_BUILD
    PW_CUDA_LAUNCH("build_list");
  }

  // Ahead (ahead_after): the float-pair Vec kernels only.
  template <bool SF, bool One, bool Ahead = false>
  void launch_forces_t(cudaStream_t s, bool kick) {
    const DynP d = dyn();
#define PW_FORCES_F(TPA, VEC, MINB, FAST, FIXED)                                                  \
  forces_kick<R, P, A, SF, One, TPA, VEC, MINB, FAST, FIXED, BuiltInPair, Ahead>                  \
      <<<blocks_for(n_* TPA), kBlock, 0, s>>>(                                                    \
          int(n_), pos_.as<R4>(), vel_.as<R4>(), force_.as<R4>(), nbr_.as<int>(),                 \
          nbr_count_.as<int>(), capacity_, si(), sk(), box_, types_, d, id_.as<unsigned>(), kick, \
          flags_.as<Flags>(), fixed_pos_.as<int4>(), fixed_p_)
#define PW_FORCES(TPA, VEC, MINB, FAST) PW_FORCES_F(TPA, VEC, MINB, FAST, false)
    const bool vec = tpa_ == 4 && vec_ && row_major_ && capacity_ % 4 == 0;
    // Mixed with fixed-point positions (FixedP): the Vec kernel reads them instead of the doubles.
    if constexpr (std::is_same_v<R, double> && std::is_same_v<P, float>) {
      if (vec && fixed_ && !SF && fast_rcp_) return PW_FORCES_F(4, true, 16, true, true);
      // Resident blocks per SM: 16 (≤ 32 registers) where the grid is more than one wave of
      // them, else 8 (≤ 64 registers: no spills, and the wave is not full anyway). H200, mixed:
      // 32,000 atoms 30,225 vs 28,958 TPS with 8; 2,048,000 2.386 vs 2.449 G. The 16 as
      // MinBlocks 15 (the same 32-register cap, one trip of the Vec loop unrolled instead of
      // two: 12 bytes spilled instead of 44): 2,048,000 atoms 2.748 vs 2.703 G, 256,000 2.179
      // vs 2.136 (docs/performance.md, sixth pass); 12 per SM (40 registers): 2.556 G.
      const int minb = fixed_minb_ > 0                                ? fixed_minb_
                       : blocks_for(n_ * std::size_t(4)) < list_grid_ ? 8
                                                                      : 15;
      if (vec && fixed_ && minb == 8) return PW_FORCES_F(4, true, 8, false, true);
      if (vec && fixed_ && minb == 12) return PW_FORCES_F(4, true, 12, false, true);
      if (vec && fixed_ && minb == 15) return PW_FORCES_F(4, true, 15, false, true);
      if (vec && fixed_) return PW_FORCES_F(4, true, 16, false, true);
    }
    // Float pair terms, row-major lists: 16 resident blocks (≤ 32 registers, a few spilled:
    // faster anyway, single and mixed, H200: 1,354 vs 1,222 TPS single at 2,048,000 atoms), the
    // approximate reciprocal in single unless PAIRWISE_MD_FAST_RCP=0.
    if constexpr (std::is_same_v<P, float>) {
      if constexpr (std::is_same_v<R, float>) {  // PAIRWISE_MD_SINGLE_MINB=15: mixed's 15
        if (vec && !SF && fast_rcp_ && single_minb_ == 15) return PW_FORCES(4, true, 15, true);
      }
      if (vec && !SF && fast_rcp_) return PW_FORCES(4, true, 16, true);
      if (vec) return PW_FORCES(4, true, 16, false);
    }
    if constexpr (Ahead) {
      throw Error("forces ahead without the float vector kernel", "md cuda engine");
    } else if (tpa_ >= 8)
      PW_FORCES(8, false, 1, false);
    else if (vec)
      PW_FORCES(4, true, 1, false);
    else if (tpa_ >= 4)
      PW_FORCES(4, false, 1, false);
    else
      PW_FORCES(1, false, 1, false);
#undef PW_FORCES
#undef PW_FORCES_F
  }

  // The instantiation of forces_kick the built-in path would take (launch_forces_t), for a custom
  // pair: SF and Fast false (the truncation is in the formula; single's approximate division is
  // the NVRTC option fast_math instead).
  CustomMdVariant custom_variant() const {
    CustomMdVariant v;
    auto name = [](auto x) { return std::is_same_v<decltype(x), float> ? "float" : "double"; };
    v.r = name(R{}), v.p = name(P{}), v.a = name(A{});
    v.one_type = types_ == 1;
    v.fast_math = fast_rcp_ && std::is_same_v<P, float> && !any_shifted_force(*custom_);
    const bool vec = tpa_ == 4 && vec_ && row_major_ && capacity_ % 4 == 0;
    v.fixed = false;
    if (std::is_same_v<R, double> && std::is_same_v<P, float> && vec && fixed_) {
      v.tpa = 4, v.vec = true, v.min_blocks = 16, v.fixed = true;
    } else if (std::is_same_v<P, float> && vec) {
      v.tpa = 4, v.vec = true, v.min_blocks = 16;
    } else {
      v.tpa = tpa_ >= 8 ? 8 : tpa_ >= 4 ? 4 : 1;
      v.vec = vec && v.tpa == 4;
      v.min_blocks = 1;
    }
    return v;
  }

  const CustomMdKernels& custom_kernels() {
    const CustomMdVariant v = custom_variant();
    auto& k = custom_kernels_[v.key()];
    if (!k) {
      k = std::make_unique<CustomMdKernels>(*custom_, v);
      stats_.custom_compile_seconds += k->compiled.seconds;
      stats_.custom_compiled_from_cache = k->compiled.from_cache;
    }
    return *k;
  }

  void launch_custom_forces(cudaStream_t s, bool kick) {
    const CustomMdVariant v = custom_variant();
    const CustomMdKernels& k = custom_kernels();
    DynP d = dyn();
    int n = int(n_), capacity = capacity_, types = types_;
    R4 *pos = pos_.as<R4>(), *vel = vel_.as<R4>(), *force = force_.as<R4>();
    const int *nbr = nbr_.as<int>(), *nbr_count = nbr_count_.as<int>();
    std::size_t si_v = si(), sk_v = sk();
    BoxP<R> box = box_;
    const unsigned* id = id_.as<unsigned>();
    bool kick_v = kick;
    const Flags* flags = flags_.as<Flags>();
    const int4* fixed = fixed_pos_.as<int4>();
    FixedP fixed_p = fixed_p_;
    void* args[] = {&n,   &pos,   &vel, &force, &nbr,    &nbr_count, &capacity, &si_v,   &sk_v,
                    &box, &types, &d,   &id,    &kick_v, &flags,     &fixed,    &fixed_p};
    k.forces->launch_async(s, unsigned(blocks_for(n_ * std::size_t(v.tpa))), kBlock, args);
  }

  // ahead: also the next step's first half kick (forces_kick's Ahead; ahead_after says where).
  void compute_forces(bool kick, cudaStream_t s = nullptr, bool ahead = false) {
    if (!s) s = stream_;
    launch_forces(kick, s, ahead);
    if (kick && options_.dynamics.thermostat == engine::Thermostat::andersen) {
      andersen_collisions<R4><<<blocks_for(n_), kBlock, 0, s>>>(
          int(n_), vel_.as<R4>(), id_.as<unsigned>(), dyn(), flags_.as<Flags>());
      PW_CUDA_LAUNCH("andersen_collisions");
    }
  }

  void launch_forces(bool kick, cudaStream_t s, bool ahead) {
    if (custom_) return launch_custom_forces(s, kick);
    const bool one = types_ == 1;
    if constexpr (std::is_same_v<P, float>) {
      if (ahead && kick) {
        if (any_sf_)
          one ? launch_forces_t<true, true, true>(s, kick)
              : launch_forces_t<true, false, true>(s, kick);
        else
          one ? launch_forces_t<false, true, true>(s, kick)
              : launch_forces_t<false, false, true>(s, kick);
        PW_CUDA_LAUNCH("forces_kick (ahead)");
        return;
      }
    }
    if (any_sf_)
      one ? launch_forces_t<true, true>(s, kick) : launch_forces_t<true, false>(s, kick);
    else
      one ? launch_forces_t<false, true>(s, kick) : launch_forces_t<false, false>(s, kick);
    PW_CUDA_LAUNCH("forces_kick");
  }

  // PAIRWISE_MD_PROFILE=1: steps run one at a time with events between the kernel groups; the
  // destructor prints microseconds per step of each group (list kernels split into steps that
  // rebuilt and steps that did not).
  // kicked: the previous step's forces ran ahead; ahead: this step's do (compute_forces).
  void profile_step(bool kicked, bool ahead) {
    if (!events_[0]) {
      for (auto& e : events_) PW_CUDA(cudaEventCreate(&e));
      PW_CUDA(cudaEventCreate(&prof_mid_));
    }
    PW_CUDA(cudaEventRecord(events_[0], stream_));
    launch_integrate(stream_, 0, 0, !kicked);
    PW_CUDA(cudaEventRecord(events_[1], stream_));
    mid_event_ = prof_mid_;  // only the profiled rebuilds record it
    launch_rebuild(stream_);
    mid_event_ = nullptr;
    PW_CUDA(cudaEventRecord(events_[2], stream_));
    compute_forces(true, stream_, ahead);
    PW_CUDA(cudaEventRecord(events_[3], stream_));
    int rebuilt = 0;
    PW_CUDA(cudaMemcpyAsync(&rebuilt, &flags_.as<Flags>()->rebuild, sizeof rebuilt,
                            cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    float ms[3];
    for (int k = 0; k < 3; ++k) PW_CUDA(cudaEventElapsedTime(&ms[k], events_[k], events_[k + 1]));
    prof_[0] += ms[0], prof_[rebuilt ? 2 : 1] += ms[1], prof_[3] += ms[2];
    if (rebuilt) {
      float cells_ms = 0;
      PW_CUDA(cudaEventElapsedTime(&cells_ms, events_[1], prof_mid_));
      prof_cells_ += cells_ms;
    }
    prof_steps_[0] += 1, prof_steps_[rebuilt ? 2 : 1] += 1;
  }

  // kick false: the previous step's forces_kick ran ahead (compute_forces) and kicked already.
  void launch_integrate(cudaStream_t s, cudaGraphConditionalHandle cond = 0, int use_cond = 0,
                        bool kick = true) {
    const DynP d = dyn();
    const int nb = blocks_for(n_, kIntBlock);
#define PW_INTEGRATE_M(TH, KICK, MASTER)                                                      \
  integrate1<R, TH, KICK, MASTER><<<nb, kIntBlock, 0, s>>>(                                   \
      int(n_), pos_.as<R4>(), vel_.as<R4>(), force_.as<R4>(), image_.as<int4>(),              \
      id_.as<unsigned>(), x0_.as<R4>(), box_, d, options_.skin, top2_.as<double2>(),          \
      flags_.as<Flags>(), cond, use_cond, fixed_ ? fixed_pos_.as<int4>() : nullptr, fixed_p_, \
      float_lists_ ? x0_.as<int4>() : nullptr, resid_.as<unsigned long long>(), master_p_)
#define PW_INTEGRATE(TH, KICK) PW_INTEGRATE_M(TH, KICK, false)
    bool done = false;
    if constexpr (std::is_same_v<R, double>) {
      if (master_) {
        doubles_fresh_ = false;  // the step moves the master positions only
        if (d.thermostat == 1)
          kick ? PW_INTEGRATE_M(1, true, true) : PW_INTEGRATE_M(1, false, true);
        else
          kick ? PW_INTEGRATE_M(0, true, true) : PW_INTEGRATE_M(0, false, true);
        done = true;
      }
    }
    if (done) {
    } else if (d.thermostat == 1)
      kick ? PW_INTEGRATE(1, true) : PW_INTEGRATE(1, false);
    else
      kick ? PW_INTEGRATE(0, true) : PW_INTEGRATE(0, false);
#undef PW_INTEGRATE
#undef PW_INTEGRATE_M
    PW_CUDA_LAUNCH("integrate1");
  }

  void launch_step(cudaStream_t s) {
    launch_integrate(s);
    launch_rebuild(s);
    compute_forces(true, s);
  }

  // kGraphSteps steps as one graph. Conditional (CUDA 12.4+ driver): each step's five list
  // kernels sit in an IF node whose condition integrate1 sets on the device
  // (cudaGraphSetConditional), so a step without a rebuild runs two kernels. Where the driver
  // refuses conditional nodes (or PAIRWISE_MD_NO_COND=1), the plain capture of launch_step(),
  // whose list kernels return at once unless the flag is set.
  void launch_graph() {
    if (master_) doubles_fresh_ = false;  // every replay moves the master positions
    if (!exec_) {
      if (use_cond_ && !build_conditional_graph()) {
        use_cond_ = false;
        std::fprintf(stderr, "# md cuda: conditional graph nodes unavailable, plain graph\n");
      }
      if (!use_cond_) {
        cudaGraph_t graph;
        PW_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < kGraphSteps; ++k) {
          launch_integrate(stream_, 0, 0, !ahead_after(k - 1));
          launch_rebuild(stream_);
          compute_forces(true, stream_, ahead_after(k));
        }
        PW_CUDA(cudaStreamEndCapture(stream_, &graph));
        PW_CUDA(cudaGraphInstantiate(&exec_, graph, 0));
        cudaGraphDestroy(graph);
      }
    }
    PW_CUDA(cudaGraphLaunch(exec_, stream_));
  }

  // Captures what launch() enqueues on stream_ into g after deps; *tail: the last node.
  template <class F>
  bool capture_into(cudaGraph_t g, const cudaGraphNode_t* deps, std::size_t ndeps, F&& launch,
                    cudaGraphNode_t* tail) {
    if (cudaStreamBeginCaptureToGraph(stream_, g, deps, nullptr, ndeps,
                                      cudaStreamCaptureModeThreadLocal) != cudaSuccess)
      return false;
    bool good = true;
    try {
      launch();
    } catch (const Error&) {
      good = false;
    }
    if (good && tail) {
      cudaStreamCaptureStatus status;
      const cudaGraphNode_t* d = nullptr;
      std::size_t nd = 0;
      good = cudaStreamGetCaptureInfo(stream_, &status, nullptr, nullptr, &d, nullptr, &nd) ==
                 cudaSuccess &&
             nd == 1;
      if (good) *tail = d[0];
    }
    cudaGraph_t out = nullptr;
    good = cudaStreamEndCapture(stream_, &out) == cudaSuccess && good;
    return good;
  }

  bool build_conditional_graph() {
    cudaGraph_t graph = nullptr;
    if (cudaGraphCreate(&graph, 0) != cudaSuccess) return cudaGetLastError(), false;
    bool ok = true;
    cudaGraphNode_t last = nullptr;
    for (int k = 0; k < kGraphSteps && ok; ++k) {
      cudaGraphConditionalHandle h = 0;
      ok = cudaGraphConditionalHandleCreate(&h, graph, 0, 0) == cudaSuccess;
      cudaGraphNode_t integ = nullptr, cond = nullptr;
      ok = ok && capture_into(
                     graph, last ? &last : nullptr, last ? 1 : 0,
                     [&] { launch_integrate(stream_, h, 1, !ahead_after(k - 1)); }, &integ);
      if (!ok) break;
      cudaGraphNodeParams cp{};
      cp.type = cudaGraphNodeTypeConditional;
      cp.conditional.handle = h;
      cp.conditional.type = cudaGraphCondTypeIf;
      cp.conditional.size = 1;
      ok = cudaGraphAddNode(&cond, graph, &integ, nullptr, 1, &cp) == cudaSuccess;
      if (!ok) break;
      cudaGraph_t body = cp.conditional.phGraph_out[0];
      ok = capture_into(
               body, nullptr, 0, [&] { launch_rebuild(stream_); }, nullptr) &&
           capture_into(
               graph, &cond, 1, [&] { compute_forces(true, stream_, ahead_after(k)); }, &last);
    }
    if (ok) ok = cudaGraphInstantiate(&exec_, graph, 0) == cudaSuccess;
    cudaGraphDestroy(graph);
    if (!ok) {
      if (exec_) cudaGraphExecDestroy(exec_);
      exec_ = nullptr;
      cudaGetLastError();  // clear
    }
    return ok;
  }

  // Whether the forces of graph step k (0 … kGraphSteps − 1) run ahead: every step but the last
  // (whose velocities and force the host may read after the graph), with float pair terms and the
  // Vec kernels (launch_forces_t), built-in pairs, and no Andersen collisions (which come between
  // the two kicks).
  bool ahead_after(int k) const {
    const bool vec = tpa_ == 4 && vec_ && row_major_ && capacity_ % 4 == 0;
    return ahead_ && std::is_same_v<P, float> && !custom_ && vec &&
           options_.dynamics.thermostat != engine::Thermostat::andersen && k >= 0 &&
           k < kGraphSteps - 1;
  }

  void invalidate_graph() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

  // Builds the lists now (host-driven, checked for overflow and regrown until they fit).
  void rebuild_now() {
    for (;;) {
      Flags* f = flags_.as<Flags>();
      int one = 1, zero = 0;
      PW_CUDA(cudaMemcpyAsync(&f->rebuild, &one, sizeof one, cudaMemcpyHostToDevice, stream_));
      PW_CUDA(cudaMemcpyAsync(&f->overflow, &zero, sizeof zero, cudaMemcpyHostToDevice, stream_));
      launch_rebuild(stream_);
      int overflow = 0;
      PW_CUDA(cudaMemcpyAsync(&overflow, &f->overflow, sizeof overflow, cudaMemcpyDeviceToHost,
                              stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
      if (overflow == 0) return;
      grow(overflow);
    }
  }

  void grow(int needed) {
    capacity_ = (needed + needed / 8 + 11) & ~7;  // a multiple of 8: the staged build's groups
    ++stats_.regrows;
    nbr_.allocate(std::size_t(capacity_) * n_ * 4);
    int zero = 0;
    PW_CUDA(cudaMemcpy(&flags_.as<Flags>()->overflow, &zero, sizeof zero, cudaMemcpyHostToDevice));
    invalidate_graph();
  }

  // Permutes the atoms into cell (Morton) order.
  void sort_atoms() {
    Flags* f = flags_.as<Flags>();
    int one = 1;
    PW_CUDA(cudaMemcpyAsync(&f->rebuild, &one, sizeof one, cudaMemcpyHostToDevice, stream_));
    const int nb = blocks_for(n_);
    sync_pos();
    cell_count<R><<<nb, kBlock, 0, stream_>>>(int(n_), pos_.as<R4>(), grid_, rank_.as<int>(),
                                              cell_.as<int>(), slot_.as<int>(), count_.as<int>(),
                                              f);
    launch_cell_scan(stream_, f);
    cell_scatter<<<nb, kBlock, 0, stream_>>>(int(n_), cell_.as<int>(), slot_.as<int>(),
                                             start_.as<int>(), order_.as<int>(), f);
    PW_CUDA_LAUNCH("sort cell list");
    launch_cell_sort(stream_, 1 << 30);
    auto permute = [&](Buffer& b, auto tag) {
      using T = decltype(tag);
      gather<T><<<nb, kBlock, 0, stream_>>>(int(n_), order_.as<int>(), b.as<T>(), tmp_.as<T>());
      PW_CUDA_LAUNCH("gather");
      PW_CUDA(cudaMemcpyAsync(b.as<T>(), tmp_.as<T>(), n_ * sizeof(T), cudaMemcpyDeviceToDevice,
                              stream_));
    };
    permute(pos_, R4{}), permute(vel_, R4{}), permute(force_, R4{});
    float_lists_ ? permute(x0_, int4{}) : permute(x0_, R4{});
    permute(image_, int4{}), permute(id_, unsigned{}), permute(orig_, int{});
    if (master_) permute(fixed_pos_, int4{}), permute(resid_, 0ull);
    ++stats_.reorders;
    steps_since_sort_ = 0;
  }

  void snapshot() {
    const std::size_t n = n_;
    auto copy = [&](Buffer& dst, const Buffer& src, std::size_t bytes) {
      PW_CUDA(cudaMemcpyAsync(dst.as<char>(), src.as<char>(), bytes, cudaMemcpyDeviceToDevice,
                              stream_));
    };
    copy(pos_s_, pos_, n * sizeof(R4)), copy(vel_s_, vel_, n * sizeof(R4));
    copy(force_s_, force_, n * sizeof(R4)), copy(image_s_, image_, n * sizeof(int4));
    copy(id_s_, id_, n * 4), copy(orig_s_, orig_, n * 4);
    if (master_) copy(fixed_s_, fixed_pos_, n * sizeof(int4)), copy(resid_s_, resid_, n * 8);
    snapshot_fresh_ = doubles_fresh_;
    snapshot_since_sort_ = steps_since_sort_;
  }

  void restore() {
    const std::size_t n = n_;
    auto copy = [&](Buffer& dst, const Buffer& src, std::size_t bytes) {
      PW_CUDA(cudaMemcpyAsync(dst.as<char>(), src.as<char>(), bytes, cudaMemcpyDeviceToDevice,
                              stream_));
    };
    copy(pos_, pos_s_, n * sizeof(R4)), copy(vel_, vel_s_, n * sizeof(R4));
    copy(force_, force_s_, n * sizeof(R4)), copy(image_, image_s_, n * sizeof(int4));
    copy(id_, id_s_, n * 4), copy(orig_, orig_s_, n * 4);
    steps_since_sort_ = snapshot_since_sort_;
    if (master_) {  // the master positions themselves (the doubles were a copy, if fresh)
      copy(fixed_pos_, fixed_s_, n * sizeof(int4)), copy(resid_, resid_s_, n * 8);
      doubles_fresh_ = snapshot_fresh_;
    } else {
      refresh_fixed();
    }
    rebuild_now();  // lists for the restored positions, with the new capacity
  }

  EngineOptions options_;
  int tpa_ = 1, tpa_override_ = 0;  // threads per atom in the force kernel
  bool profile_ = false;
  bool use_cond_ = true;  // conditional graph nodes around the list kernels
  cudaEvent_t events_[4] = {};
  double prof_[4] = {0, 0, 0, 0};
  long long prof_steps_[3] = {0, 0, 0};
  std::string device_;
  cudaStream_t stream_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  std::size_t n_ = 0;
  PairTable table_;
  std::shared_ptr<const CustomPairs> custom_;  // style = "custom": the formulas (NVRTC kernels)
  std::map<std::string, std::unique_ptr<CustomMdKernels>> custom_kernels_;  // by variant
  int types_ = 1;
  bool any_sf_ = false;
  BoxP<R> box_{};
  std::array<double, 3> length_{};
  GridP grid_{};
  int cells_ = 0;
  double r_list_ = 0;
  int capacity_ = 0;
  int steps_since_sort_ = 0, snapshot_since_sort_ = 0;
  std::uint64_t host_step_ = 0;
  std::vector<std::uint32_t> host_ids_;
  EngineStats stats_;
  Buffer pos_, vel_, force_, x0_, image_, id_, orig_;
  Buffer pos_s_, vel_s_, force_s_, image_s_, id_s_, orig_s_, tmp_;
  Buffer cell_, slot_, order_, count_, start_, stencil_, rank_, nbr_, nbr_count_;
  Buffer top2_, partial_, result_, flags_, cpos_, ccoord_;
  Buffer fixed_pos_;  // mixed: int4 fixed-point positions + type (FixedP), when fixed_
  Buffer resid_, fixed_s_, resid_s_;  // master_: the residuals (MasterP), the snapshot's master
  MasterP master_p_{};
  bool master_allowed_ = true;   // PAIRWISE_MD_MASTER=0: off
  bool master_ = false;          // mixed's positions are fixed_pos_ + resid_ (MasterP)
  bool master_valid_ = false;    // set_state has derived them (refresh_fixed)
  bool doubles_fresh_ = false;   // master_: pos_ holds the positions of now (set_state, sync_pos)
  bool snapshot_fresh_ = false;  // doubles_fresh_ at the snapshot
  MasterView rebuild_view_;      // what launch_rebuild's kernels read (master_view)
  bool shifted_ = false;
  // Neighbor k of atom i at nbr[i * si() + k * sk()]: row-major (each atom's list contiguous: the
  // build's writes fill whole sectors) unless PAIRWISE_MD_COLUMN_MAJOR=1 (nbr[k * N + i]).
  bool row_major_ = true;
  bool staged_ = true;           // the build's neighbor writes in 8-entry groups (see build_list)
  bool screen_ = true;           // shifted grids: build_list_screened
  int screened_blocks_[2] = {};  // the screened build's grid [staged]: resident blocks
  double cell_atoms_ = 27;       // cells widened up to this many atoms on average (0: r_list wide)
  bool vec_ = true;              // 4 threads per atom: 16-byte index loads (forces_kick's Vec)
  bool fixed_allowed_ = true;    // PAIRWISE_MD_FIXED (mixed: fixed-point positions for the forces)
  bool fixed_ = false;           // mixed: forces_kick reads fixed_pos_ (FixedP)
  FixedP fixed_p_{};
  bool ahead_ = true;  // PAIRWISE_MD_AHEAD=0: every step's integrate1 applies its own half kick
  bool float_lists_allowed_ = true;  // PAIRWISE_MD_FLOAT_LISTS (mixed: float list build)
  bool float_lists_ = false;  // mixed: build_list_screened's Exact, x0 as fixed-point positions
  BoxP<float> box_f_{};       // float_lists_: the box of the build coordinates (lo = 0)
  double list_margin_ = 0;    // float_lists_: the band of r_list decided in double
  int exact_blocks_[2][2][3] = {};  // [staged][8 per SM][mode − 1]
  // PAIRWISE_MD_EXACT_MODE: 1 recomputes each hit's r², 2 the band mask, 3 (default) the band's
  // least |r² − mid2| per batch (build_list_screened).
  int exact_mode_ = 3;
  bool coarse_cells_ = true;  // PAIRWISE_MD_COARSE_CELLS (MasterView::coarse)
  int exact_minb_ = 8;        // PAIRWISE_MD_EXACT_MINB: the float build's blocks per SM
  int single_minb_ = 16;      // PAIRWISE_MD_SINGLE_MINB: single's float forces (15: one trip)
  int fixed_minb_ = 0;  // PAIRWISE_MD_FIXED_MINB: mixed fixed-point forces, per SM (0: by size)
  cudaEvent_t prof_mid_ = nullptr;   // profile: recorded between the cell and the build kernels
  cudaEvent_t mid_event_ = nullptr;  // prof_mid_ while profile_step() runs launch_rebuild()
  double prof_cells_ = 0;            // profile: ms of the cell kernels in rebuilding steps
  bool fast_rcp_ = false;            // single, cut/shift: approximate 1/r²
  std::size_t si() const {
    return row_major_ ? std::size_t(capacity_) : 1;
  }
  std::size_t sk() const {
    return row_major_ ? 1 : n_;
  }                    // 3+ cells on every side: the build's uniform per-cell image shifts
  int list_grid_ = 0;  // blocks of the grid-stride list kernels (a few waves, not N / block)
};

}  // namespace

std::unique_ptr<MdEngine> make_cuda_engine(const EngineOptions& o) {
  switch (o.precision) {
    case Precision::single:
      return std::make_unique<CudaEngine<float, float, float>>(o);
    case Precision::mixed:
      return std::make_unique<CudaEngine<double, float, double>>(o);
    case Precision::double_:
      return std::make_unique<CudaEngine<double, double, double>>(o);
  }
  throw Error("unknown precision");
}

}  // namespace pairwise::md
