// The md engine across ranks on the cuda backend: the cpu domain engine's spatial domain
// decomposition (domain_engine.cpp, the grid and the gathering shared through domain_grid.hpp)
// with the state and every per-atom loop on the rank's GPU.
//
// On the device, per rank: the local atoms in slots [0, n), then the ghosts [n, n + g) in the
// order of the stages that brought them (x low, x high, y low, ...): positions (type index in w),
// and for the local atoms velocities (1/m in w), forces, image flags, ids and set_state slots.
// A step (host-driven, one stream; the overlapped step below adds a second):
//   domain_kick_drift   half kick, drift (Langevin: half drift, O step, half drift; the random
//                       streams keyed by atom id and step as every engine's), mixed's fixed-point
//                       copy of the new position, and the block's two largest displacements since
//                       the build (block top-2; one merge block), downloaded (16 bytes) and
//                       all-gathered on the host: Liu et al.'s d1 + d2 > skin over every rank, so
//                       all rebuild at the same step
//   forward ghosts      the leading stages selected on the device (one domain along their
//                       axes) in one launch, forward_own_ghosts: each ghost from its local atom
//                       plus its stages' shifts (PAIRWISE_MD_FORWARD=stages: a launch a stage);
//                       then per stage (x, y, z): pack_ghost_sides gathers both sides' kept send
//                       lists' positions plus their periodic shifts; an axis with one domain
//                       packs straight into its own ghost slots, else the packed buffer goes to
//                       the neighbour through GpuCollectives::sendrecv (NCCL send/recv, or MPI
//                       through host memory) and lands in the ghost slots of that stage (an axis
//                       of two domains: both sides as one message each way); fixed_positions
//                       (mixed) converts the ghosts
//   domain_forces       pair forces over the full list of each local atom (ghosts included),
//                       each pair computed for its own atom (4 threads per atom, 16-byte index
//                       loads, no atomics, no reverse communication), + the second half kick
//                       (domain_andersen after it for Andersen)
// The batched steps (PAIRWISE_MD_BATCH=K > 1, the default K = 8; one domain on every axis, or
// across ranks with PAIRWISE_MD_BATCH_RANKS=1; not profiled): K steps launched with no host
// decision, the rebuild test taken on the device (merge_and_test; across ranks ranks_top2_test on
// the NCCL all-gathered top-2 of every rank), every later kernel of the batch returning at once
// once it fires; one 8-byte download a batch instead of 16 bytes and a synchronization a step
// (advance_batched).
// The overlapped step (PAIRWISE_MD_OVERLAP=1; off by default, measured slower on 2 and 4 H200s):
// domain_list flags the local atoms whose list holds no ghost (interior), DeviceSelect keeps the
// interior and boundary index lists; a step without a rebuild runs domain_forces over the
// interior atoms on interior_stream_ (after an event on the kick) while the forward exchange
// runs on stream_, then over the boundary atoms on stream_, which waits for the interior's event
// (Andersen after both): each atom's arithmetic as in one launch, the trajectory bit for bit.
// stream_ has the highest priority and interior_stream_ the lowest, so the exchange's kernels
// (packing, NCCL's) take SMs as the interior's blocks retire.
// A rebuild (at set_state and when the test fires): per axis with more than one domain, on the
// device with no host decision in between (migrate_across_ranks), leaver_flags (the first also
// wraps the local atoms into the box), leaver_scan and leaver_place (the leavers of each way, the
// holes below the new count and the stayers above it that fill them), the leavers packed into
// fixed-size messages (pack_leaver_messages) and their slots refilled (fill_holes), the messages
// through sendrecv_async and the arrivals unpacked after the kept atoms (unpack_arrivals); the
// counts read back and all-reduced once; the local atoms stored in cell order (counting sort of the
// records' cells, sort_by_cell: neighbours in space are neighbours in memory for the list build and
// the forces) at set_state and at the first rebuild `sort_every` steps after the last sort
// (PAIRWISE_MD_RESORT=K: every K-th rebuild), in between in the slots they had (arrivals after
// them), or (one domain on every axis) only wrapped in place (wrap_in_place); then the ghost
// stages, all on the device with no host decision between them (exchange_ghosts_on_device:
// ghost_stage_flags and ghost_stage_scan a stage, then ghost_stage_place for a domain's own images,
// or ghost_stage_pack, fixed-size messages to the neighbours and ghost_stage_receive across ranks;
// the counts read back and all-reduced once; PAIRWISE_MD_GHOSTS=host: ghost_flags +
// cub::DeviceSelect and a host exchange of the counts a stage); then the cell list over the domain
// and its ghost shell (counting sort, sort_by_cell: cells in index order, index order inside a
// cell, deterministic; PAIRWISE_MD_CELL_SORT=radix: cub::DeviceRadixSort of the cell keys, the same
// order) and domain_list (a warp per cell: candidates screened against the home atoms' bounding
// box, tested 32 at a time into hit masks, rows written in whole sectors; mixed's tests in float
// with the band of r_list decided in double; a count above the capacity grows it and builds again).
// Thermo: domain_energy (half of each pair's energy and virial per atom) and the kinetic energy,
// block sums, sum_partials, then a host all-reduce of the three numbers.
//
// Precision as the single-GPU cuda engine's storage: single = float positions, velocities and
// pair arithmetic; mixed = double positions and velocities, float pair terms from fixed-point
// displacements (period 4 r_list from the shell's corner: exact in quanta of 2.6e-9 σ, then one
// rounding to float, as a double displacement rounded to float; PAIRWISE_MD_FIXED=0: taken in
// double), double sums; double throughout. The rebuild test and the list distances are decided in
// double (mixed: the test from the fixed-point copies, within a quantum; the lists' float tests
// with the band decided in double).
#include <cuda_runtime.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/cuda_check.cuh"
#include "engine/device_buffer.cuh"
#include "md/domain_engine.hpp"
#include "md/domain_grid.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/dynamics.hpp"
#include "pairwise/physics/lj_styles.hpp"
#include "parallel/gpu_collectives.hpp"

#include "md/cuda_domain_kernels.cuh"
#include "md/cuda_md_common.cuh"
#include "md/cuda_md_host.cuh"
#include "md/cuda_md_reductions.cuh"

namespace pairwise::md {
namespace {

using parallel::Communicator;

// A device array that grows (keeping or dropping its contents) in an engine::DeviceBuffer;
// reports the bytes on failure.
template <class T>
class DeviceArray {
 public:
  // At least `n` elements; `keep`: the first `used` survive a reallocation. Synchronizes `s`
  // before it frees anything.
  void reserve(std::size_t n, cudaStream_t s, bool keep = false, std::size_t used = 0) {
    if (n <= capacity() && get()) return;
    const std::size_t grown = std::max({n, capacity() + capacity() / 2, std::size_t(64)});
    engine::DeviceBuffer fresh;
    fresh.reserve(grown * sizeof(T));
    PW_CUDA(cudaStreamSynchronize(s));
    if (get() && keep && used > 0)
      PW_CUDA(cudaMemcpy(fresh.as<T>(), get(), std::min(used, capacity()) * sizeof(T),
                         cudaMemcpyDeviceToDevice));
    buffer_.swap(fresh);  // the old allocation is freed with `fresh`
  }
  T* get() const { return buffer_.as<T>(); }
  std::size_t capacity() const { return buffer_.bytes() / sizeof(T); }
  void swap(DeviceArray& other) { buffer_.swap(other.buffer_); }

 private:
  engine::DeviceBuffer buffer_;
};

// Steps a batch with one domain on every axis (advance_batched): PAIRWISE_MD_BATCH=K (1: the
// per-step host test); unset, kDefaultBatch (measured on the H200, 1x1x1 mixed: +2.3 % at
// 256,000 atoms, +0.2 to +1.2 % at 2 M, within noise at 8 M; docs/distributed.md).
constexpr int kDefaultBatch = 8;

// The least mean atom count of a list-build cell (PAIRWISE_MD_CELL_ATOMS; 0: cells r_list wide):
// 27, as the single-GPU engine (H200, 2 M atoms, list kernel in single: 1.50 ms at r_list-wide
// cells of 19.7 atoms, 1.29 ms at 27; 32 was slower than 27).
constexpr double kCellAtoms = 27;

// Mixed's domain_forces with fixed-point positions: resident blocks per SM, 12 (40 registers, no
// spill) or 15 (PAIRWISE_MD_FORCE_MINB; the single-GPU engine's choice: 32 registers, one trip
// unrolled, 12 bytes spilled). H200, 2 M atoms, ncu over 12 steps: 305 µs a launch at 12, 271
// at 15.
constexpr int kMixedForceMinBlocks = 15;

// domain_list's resident blocks an SM asked of its registers (PAIRWISE_MD_LIST_MINB: 8, 12, 16; 0:
// none asked); unset, kListMinBlocks = 8 for every precision (64 registers, none spilled). With
// the hits staged in one predicated pass (stage_hits) none asked takes 76 registers in single
// (6 blocks an SM): 2 H200s, 500 steps of in.lj in single, 8 asked 6.393 / 5.913 G atom-steps/s
// (strong 16,384,000 / weak 4,096,000 atoms) against 6.294 / 5.791 with none (mixed's float
// lists: 64 registers at 8 against 68, not timed across ranks). Before (the loop
// over the hit bits, 2 M atoms, ncu): mixed 1.78 ms a build with none asked, 1.50 at 8, 1.67 at
// 12, 2.03 at 16 (spills); single 1.31, 1.31, 1.33 at none, 12, 16.
constexpr int kListMinBlocks = 8;

// Threads per atom in domain_forces (the single-GPU engine's choice: 4).
constexpr int kForceThreads = 4;

int blocks_of(std::size_t n) {
  return int((n + kDomainBlock - 1) / kDomainBlock);
}

template <class R, class P, class A>
class CudaDomainEngine final : public MdEngine {
  using R4 = typename Vec4<R>::type;
  using Record = MoveRecord<R4>;

 public:
  CudaDomainEngine(const EngineOptions& o, Communicator& comm) : options_(o), comm_(comm) {
    std::string note;
    resolve_backend(BackendKind::cuda, &note);
    // stream_ (the exchanges: packing kernels and NCCL's) at the highest priority, the interior
    // forces at the lowest: the block scheduler then gives the exchange's blocks the SMs as the
    // interior's blocks retire, instead of after the whole interior launch.
    int lowest = 0, highest = 0;
    PW_CUDA(cudaDeviceGetStreamPriorityRange(&lowest, &highest));
    PW_CUDA(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, highest));
    PW_CUDA(cudaStreamCreateWithPriority(&interior_stream_, cudaStreamNonBlocking, lowest));
    PW_CUDA(cudaEventCreateWithFlags(&kicked_, cudaEventDisableTiming));
    PW_CUDA(cudaEventCreateWithFlags(&interior_done_, cudaEventDisableTiming));
    PW_CUDA(cudaEventCreateWithFlags(&top_ready_, cudaEventDisableTiming));
    device_ = current_device_name();
    const char* prof = std::getenv("PAIRWISE_MD_PROFILE");
    profile_ = prof && *prof && *prof != '0';
    gpu_ = parallel::make_gpu_collectives(comm_);
  }
  ~CudaDomainEngine() override {
    if (profile_ && timed_steps_ > 0)
      std::fprintf(stderr,
                   "# md cuda domains, rank %d, %lld steps, %lld rebuilds: step %.1f us, of which "
                   "rebuild test %.1f us, forward ghost exchange%s %.1f us, rebuilds %.1f us "
                   "(%.0f us each: migration %.0f, ghosts %.0f, cell list %.0f, neighbour lists "
                   "%.0f)\n",
                   comm_.rank(), timed_steps_, timed_rebuilds_, 1e6 * t_step_ / timed_steps_,
                   1e6 * t_test_ / timed_steps_,
                   // early: launched inside the test, the phase holds what the test did not hide
                   early_forward_ && !overlap_ ? " (beyond the test)" : "",
                   1e6 * t_forward_ / timed_steps_, 1e6 * t_rebuild_ / timed_steps_,
                   timed_rebuilds_ ? 1e6 * t_rebuild_ / timed_rebuilds_ : 0.0,
                   timed_rebuilds_ ? 1e6 * t_phase_[0] / timed_rebuilds_ : 0.0,
                   timed_rebuilds_ ? 1e6 * t_phase_[1] / timed_rebuilds_ : 0.0,
                   timed_rebuilds_ ? 1e6 * t_phase_[2] / timed_rebuilds_ : 0.0,
                   timed_rebuilds_ ? 1e6 * t_phase_[3] / timed_rebuilds_ : 0.0);
    if (profile_ && timed_rebuilds_ > 0 && !one_domain())
      std::fprintf(stderr,
                   "# md cuda domains, rank %d, migration a rebuild: across the ranks %.0f us, "
                   "re-sort %.0f (%lld re-sorts)\n",
                   comm_.rank(), 1e6 * t_migration_[0] / timed_rebuilds_,
                   1e6 * t_migration_[1] / timed_rebuilds_, resorts_);
    if (profile_ && timed_rebuilds_ > 0) {
      std::string spans;
      for (int k = 0; k < kSpans; ++k)
        if (t_span_[k] > 0) {
          char one[96];
          std::snprintf(one, sizeof one, "%s%s %.0f", spans.empty() ? "" : ", ", kSpanNames[k],
                        1e6 * t_span_[k] / timed_rebuilds_);
          spans += one;
        }
      std::fprintf(stderr, "# md cuda domains, rank %d, GPU time a rebuild (us): %s\n",
                   comm_.rank(), spans.c_str());
    }
    for (cudaEvent_t e : span_events_)
      if (e) cudaEventDestroy(e);
    gpu_.reset();
    if (kicked_) cudaEventDestroy(kicked_);
    if (top_ready_) cudaEventDestroy(top_ready_);
    if (interior_done_) cudaEventDestroy(interior_done_);
    if (interior_stream_) cudaStreamDestroy(interior_stream_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  BackendKind backend() const override { return BackendKind::cuda; }
  Precision precision() const override { return options_.precision; }
  std::string device_name() const override { return name_; }
  EngineStats stats() const override {
    EngineStats s = stats_;
    s.capacity = capacity_;
    return s;
  }

  void set_state(const System& s) override {
    table_ = build_pair_table(s.ff);
    refuse_custom_pairs(table_);
    any_sf_ = upload_pair_params(table_);
    types_ = table_.types;
    r_list_ = table_.max_cutoff + options_.skin;
    grid_ = DomainGrid(s.box, r_list_, comm_.size(), comm_.rank());
    // The cells of the domain and its ghost shell, at least r_list wide and, with
    // PAIRWISE_MD_CELL_ATOMS=m, at least as wide as a cube holding m atoms at the system's mean
    // density (domain_list takes a cell's local atoms 32 at a time, one a lane: cells of ≈ 19
    // atoms at r_list = 2.8σ leave 40 % of the lanes idle in its tests). Unset: kCellAtoms.
    const char* cell_env = std::getenv("PAIRWISE_MD_CELL_ATOMS");
    const double cell_atoms = cell_env && *cell_env ? std::atof(cell_env) : kCellAtoms;
    const double density = double(s.atoms.size()) / s.box.volume();
    const double cell_min =
        std::max(r_list_, cell_atoms > 0 && density > 0 ? std::cbrt(cell_atoms / density) : 0.0);
    for (int d = 0; d < 3; ++d) {
      cells_.origin[d] = grid_.lo[d] - r_list_;
      const double extent = grid_.hi[d] - grid_.lo[d] + 2 * r_list_;
      cells_.n[d] = std::max(1, int(extent / cell_min));
      cells_.width[d] = extent / cells_.n[d];
      cells_.inv_width[d] = 1 / cells_.width[d];
    }
    // The batched steps across ranks (PAIRWISE_MD_BATCH_RANKS=1; off by default until measured on
    // several GPUs): the rebuild test on the device from the ranks' all-gathered top-2, so K steps
    // are launched with no host decision, each overlapped as the per-step path's.
    const char* batch_ranks_env = std::getenv("PAIRWISE_MD_BATCH_RANKS");
    batch_ranks_ = batch_ranks_env && std::string(batch_ranks_env) == "1";
    // The overlapped step (PAIRWISE_MD_OVERLAP=1; off by default: with the messages sent with no
    // host wait the exchange takes ≈ 40-60 µs of a 2 M-atom step, less than what the split costs,
    // two force launches and the interior and boundary selections at each rebuild. 4 H200s,
    // 500 steps of in.lj in single: 2 ranks, 2,048,000 atoms each, 4.80-4.83 G atom-steps/s
    // overlapped against 4.96-5.09 G not; 8,192,000 each 5.22-5.29 G against 5.48 G; 4 ranks 8.72
    // and 9.50 G against 8.82 and 9.71 G; docs/distributed.md).
    const char* overlap_env = std::getenv("PAIRWISE_MD_OVERLAP");
    overlap_ = overlap_env && std::string(overlap_env) == "1";
    // The forward exchange launched before the rebuild test's answer is known (rebuild_test),
    // so the GPU sends the ghosts while the host reads the displacements and all-reduces the
    // decision; on a rebuild step what it sent is rebuilt (PAIRWISE_MD_EARLY_FORWARD=0: after
    // the answer). 4 H200s, 2 ranks, 500 steps of in.lj in single: 8,192,000 atoms each 5.732
    // and 5.714 G atom-steps/s early against 5.648 and 5.648 G after; 2,048,000 each 5.251
    // against 5.150 G (docs/distributed.md).
    const char* early_env = std::getenv("PAIRWISE_MD_EARLY_FORWARD");
    early_forward_ = !(early_env && std::string(early_env) == "0");
    const char* resort_env = std::getenv("PAIRWISE_MD_RESORT");
    resort_every_ = resort_env && *resort_env ? std::max(1, std::atoi(resort_env)) : 0;
    rebuilds_since_sort_ = 0, steps_since_sort_ = 0;
    const char* ghosts_env = std::getenv("PAIRWISE_MD_GHOSTS");
    device_ghosts_ = !(ghosts_env && std::string(ghosts_env) == "host");
    const char* slack_env = std::getenv("PAIRWISE_MD_GHOST_SLACK");
    ghost_slack_ = slack_env && *slack_env ? std::max(0.0, std::atof(slack_env)) : 1.1;
    const char* forward_env = std::getenv("PAIRWISE_MD_FORWARD");
    compose_forward_ = !(forward_env && std::string(forward_env) == "stages");
    own_stages_ = 0;
    ghost_capacity_ = 0, message_capacity_ = 0, migration_message_ = 0;
    const char* cell_sort_env = std::getenv("PAIRWISE_MD_CELL_SORT");
    radix_cells_ = cell_sort_env && std::string(cell_sort_env) == "radix";
    const char* batch_env = std::getenv("PAIRWISE_MD_BATCH");
    batch_ = batch_env && *batch_env ? std::max(1, std::atoi(batch_env)) : kDefaultBatch;
    since_ = 0;  // set_state rebuilds
    // Mixed's fixed-point frame (fixed_positions): period 4 r_list from the shell's low corner.
    const char* list_minb_env = std::getenv("PAIRWISE_MD_LIST_MINB");
    const char* float_env = std::getenv("PAIRWISE_MD_FLOAT_LISTS");
    float_lists_ = kMixed && !(float_env && std::string(float_env) == "0");
    list_min_blocks_ = list_minb_env && *list_minb_env ? std::atoi(list_minb_env) : kListMinBlocks;
    list_blocks_ = 0;
    const char* minb_env = std::getenv("PAIRWISE_MD_FORCE_MINB");
    force_min_blocks_ = minb_env && *minb_env ? std::atoi(minb_env) : kMixedForceMinBlocks;
    const char* fixed_env = std::getenv("PAIRWISE_MD_FIXED");
    use_fixed_ = kMixed && !(fixed_env && std::string(fixed_env) == "0");
    const char* x0_env = std::getenv("PAIRWISE_MD_FIXED_X0");
    fixed_x0_ = use_fixed_ && !(x0_env && std::string(x0_env) == "0");
    for (int d = 0; d < 3; ++d) {
      const double period = 4 * r_list_;
      fixed_p_.lo[d] = cells_.origin[d];
      fixed_p_.to_fixed[d] = 4294967296.0 / period;
      const double quantum = period / 4294967296.0;
      fixed_p_.quantum_hi[d] = float(quantum);
      fixed_p_.quantum_lo[d] = float(quantum - double(fixed_p_.quantum_hi[d]));
    }
    for (int d = 0; d < 3; ++d) {
      geo_.box_lo[d] = s.box.lo[d], geo_.box_hi[d] = s.box.hi[d], geo_.length[d] = grid_.length[d];
      geo_.inv_length[d] = 1 / grid_.length[d];
      geo_.n[d] = grid_.n[d], geo_.coord[d] = grid_.coord[d];
    }
    // Every rank reads the whole system and keeps the atoms of its domain.
    const Atoms& a = s.atoms;
    total_ = a.size();
    ids_ = a.id;
    std::vector<R4> p, v;
    std::vector<int4> im;
    std::vector<unsigned> id;
    std::vector<int> slot;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a.type[i] < 1 || a.type[i] > types_)
        throw Error("unknown atom type " + std::to_string(a.type[i]),
                    "atom id " + std::to_string(a.id[i]));
      double x = a.x[i], y = a.y[i], z = a.z[i];
      int ix = a.ix[i], iy = a.iy[i], iz = a.iz[i];
      grid_.wrap(x, y, z, ix, iy, iz);
      if (grid_.owner(x, y, z) != grid_.coord) continue;
      R4 q, u;
      q.x = R(x), q.y = R(y), q.z = R(z), q.w = R(a.type[i] - 1);
      u.x = R(a.vx[i]), u.y = R(a.vy[i]), u.z = R(a.vz[i]);
      u.w = R(table_.inv_mass[std::size_t(a.type[i] - 1)]);
      p.push_back(q), v.push_back(u), im.push_back(make_int4(ix, iy, iz, 0));
      id.push_back(a.id[i]), slot.push_back(int(i));
    }
    n_ = p.size();
    reserve_local(n_, false);
    pos_.reserve(n_, stream_);
    slot_.reserve(n_, stream_);
    upload(pos_.get(), p), upload(vel_.get(), v), upload(image_.get(), im);
    upload(id_.get(), id), upload(slot_.get(), slot);
    PW_CUDA(cudaMemsetAsync(force_.get(), 0, n_ * sizeof(R4), stream_));
    if (capacity_ == 0) {
      const double density = double(total_) / s.box.volume();
      // A multiple of 8: the rows are written in groups of 8 and read 4 at a time.
      capacity_ = options_.neighbor_capacity > 0
                      ? (options_.neighbor_capacity + 7) & ~7
                      : (int(density * 4.18879 * r_list_ * r_list_ * r_list_ * 1.25) + 23) & ~7;
    }
    rebuild(false);
    compute_forces(false, 0);
    load_step_kernels();
    PW_CUDA(cudaStreamSynchronize(stream_));
    name_ = "cuda " + describe_domains(comm_, grid_, n_) + ", " + device_;
    if (overlap_) name_ += ", ghost exchange overlapped with the interior forces";
    if (!one_domain() && batched())
      name_ += ", batched steps across ranks (rebuild test on the GPUs)";
    if (comm_.size() > 1) name_ += "; " + parallel::describe_ranks(1);
  }

  void get_state(System& s) override {
    std::vector<R4> p(n_), v(n_);
    std::vector<int4> im(n_);
    std::vector<int> slot(n_);
    download(p, pos_.get()), download(v, vel_.get()), download(im, image_.get());
    download(slot, slot_.get());
    std::vector<AtomState> mine(n_);
    for (std::size_t k = 0; k < n_; ++k) {
      AtomState& o = mine[k];
      o = {double(p[k].x), double(p[k].y), double(p[k].z), double(v[k].x), double(v[k].y),
           double(v[k].z), im[k].x,        im[k].y,        im[k].z,        slot[k]};
      grid_.wrap(o.x, o.y, o.z, o.ix, o.iy, o.iz);
    }
    gather_state(comm_, mine, s);
  }

  void advance(std::uint64_t first_step, int steps) override {
    if (batched()) {
      advance_batched(first_step, steps);
      return;
    }
    using clock = std::chrono::steady_clock;
    const DynP d = dyn();
    bool kicked_ahead = false;  // the last domain_forces applied this step's first half kick
    for (int k = 0; k < steps; ++k) {
      const std::uint64_t step = first_step + std::uint64_t(k);
      const bool ahead = k + 1 < steps && d.thermostat != 2;
      const auto t0 = clock::now();
      ++steps_since_sort_;
      if (n_ > 0) kick_drift(step, !kicked_ahead);
      // Early: the forward exchange goes out with the test (not with the overlap's split).
      const bool early = early_forward_ && !overlap_;
      const bool rebuild_now = rebuild_test(early);
      const auto t1 = clock::now();
      // Overlapped: the interior atoms' forces (their lists hold no ghost) on interior_stream_
      // while the ghost positions travel on stream_, then the boundary atoms' on stream_; the
      // same per-atom arithmetic as one launch over all atoms (bit for bit the same trajectory).
      const bool overlapped = overlap_ && !rebuild_now && n_ > 0;
      if (overlapped) {
        PW_CUDA(cudaEventRecord(kicked_, stream_));
        PW_CUDA(cudaStreamWaitEvent(interior_stream_, kicked_, 0));
        launch_forces(true, ahead, interior_.get(), n_interior_, interior_stream_);
        PW_CUDA(cudaEventRecord(interior_done_, interior_stream_));
      }
      if (rebuild_now) {
        rebuild(true);
      } else {
        if (!early) forward_ghost_positions();
        fix_positions(n_);
      }
      if (profile_) PW_CUDA(cudaStreamSynchronize(stream_));
      const auto t2 = clock::now();
      if (overlapped) {
        launch_forces(true, ahead, boundary_.get(), n_boundary_, stream_);
        PW_CUDA(cudaStreamWaitEvent(stream_, interior_done_, 0));
        andersen(true, step);
      } else {
        compute_forces(true, step, ahead);
      }
      kicked_ahead = ahead;
      if (profile_) {
        PW_CUDA(cudaStreamSynchronize(stream_));
        const auto t3 = clock::now();
        const auto sec = [](auto a, auto b) {
          return std::chrono::duration<double>(b - a).count();
        };
        t_step_ += sec(t0, t3), t_test_ += sec(t0, t1);
        (rebuild_now ? t_rebuild_ : t_forward_) += sec(t1, t2);
        ++timed_steps_, timed_rebuilds_ += rebuild_now;
      }
    }
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  Thermo thermo() override {
    double r[3] = {0, 0, 0};  // potential, virial, kinetic
    if (n_ > 0) {
      const int blocks = blocks_of(n_);
      partial_.reserve(3 * std::size_t(blocks), stream_);
      result_.reserve(3, stream_);
      if (any_sf_)
        domain_energy<R, P, true><<<blocks, kDomainBlock, 0, stream_>>>(
            int(n_), pos_.get(), vel_.get(), nbr_.get(), nbr_count_.get(), capacity_, types_,
            partial_.get());
      else
        domain_energy<R, P, false><<<blocks, kDomainBlock, 0, stream_>>>(
            int(n_), pos_.get(), vel_.get(), nbr_.get(), nbr_count_.get(), capacity_, types_,
            partial_.get());
      PW_CUDA_LAUNCH("domain_energy");
      sum_partials<<<1, 256, 0, stream_>>>(blocks, partial_.get(), result_.get());
      PW_CUDA_LAUNCH("sum_partials");
      PW_CUDA(cudaMemcpyAsync(r, result_.get(), sizeof r, cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
    }
    comm_.allreduce_sum(std::span<double>(r, 3));
    return {r[2], r[0], r[1]};
  }

  std::uint32_t first_bad_atom(double max_speed) override {
    int bad = std::numeric_limits<int>::max();
    if (n_ > 0) {
      counters_.reserve(8, stream_);
      PW_CUDA(cudaMemcpyAsync(counters_.get(), &bad, sizeof bad, cudaMemcpyHostToDevice, stream_));
      domain_find_bad<<<blocks_of(n_), kDomainBlock, 0, stream_>>>(
          int(n_), pos_.get(), vel_.get(), slot_.get(), max_speed * max_speed, counters_.get());
      PW_CUDA_LAUNCH("domain_find_bad");
      PW_CUDA(cudaMemcpyAsync(&bad, counters_.get(), sizeof bad, cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
    }
    const bool found = bad != std::numeric_limits<int>::max();
    return first_bad_on_any_rank(comm_, found ? bad : std::numeric_limits<std::int64_t>::max(),
                                 found ? ids_[std::size_t(bad)] : 0);
  }

  void forces(std::vector<double>& fx, std::vector<double>& fy, std::vector<double>& fz) override {
    std::vector<R4> f(n_);
    std::vector<int> slot(n_);
    download(f, force_.get()), download(slot, slot_.get());
    std::vector<AtomForce> mine(n_);
    for (std::size_t k = 0; k < n_; ++k)
      mine[k] = {double(f[k].x), double(f[k].y), double(f[k].z), slot[k]};
    gather_forces(comm_, mine, total_, fx, fy, fz);
  }

  std::vector<std::pair<int, int>> neighbor_pairs() override {
    std::vector<int> count(n_), slot(held_), nbr(n_ * std::size_t(capacity_));
    download(count, nbr_count_.get()), download(slot, slot_.get()), download(nbr, nbr_.get());
    std::vector<std::pair<int, int>> mine;
    for (std::size_t i = 0; i < n_; ++i)
      for (int e = 0; e < count[i]; ++e)
        mine.push_back({slot[i], slot[std::size_t(nbr[i * std::size_t(capacity_) + e])]});
    return gather_pairs(comm_, std::move(mine));
  }

 private:
  template <class T>
  void upload(T* dst, const std::vector<T>& src) {
    if (src.empty()) return;
    PW_CUDA(
        cudaMemcpyAsync(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));  // src may go away
  }
  template <class T>
  void download(std::vector<T>& dst, const T* src) {
    if (dst.empty()) return;
    PW_CUDA(
        cudaMemcpyAsync(dst.data(), src, dst.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  DynP dyn() const {
    const auto& o = options_.dynamics;
    DynP p{};
    p.dt = o.dt, p.kT = o.kT, p.seed = o.seed;
    const auto c = physics::langevin_coefficients(o.gamma, o.dt);
    p.c1 = c.c1, p.c2 = c.c2;
    p.andersen_p = physics::andersen_probability(o.nu, o.dt);
    p.thermostat = o.thermostat == engine::Thermostat::langevin   ? 1
                   : o.thermostat == engine::Thermostat::andersen ? 2
                                                                  : 0;
    return p;
  }

  // The local arrays for `n` atoms (pos_ and slot_ also hold the ghosts: sized at the exchange).
  void reserve_local(std::size_t n, bool keep) {
    vel_.reserve(n, stream_, keep, n_), force_.reserve(n, stream_, keep, n_);
    image_.reserve(n, stream_, keep, n_), id_.reserve(n, stream_, keep, n_);
    x0_.reserve(n, stream_);
  }

  // The number of items cub::DeviceSelect::Flagged keeps of in[0, n) into out, at counters_[k].
  template <class T>
  void select(const T* in, const unsigned char* flags, T* out, std::size_t n, int k) {
    if (n == 0) {
      PW_CUDA(cudaMemsetAsync(counters_.get() + k, 0, sizeof(int), stream_));
      return;
    }
    std::size_t bytes = 0;
    PW_CUDA(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, out, counters_.get() + k, int(n),
                                       stream_));
    scratch_.reserve(bytes, stream_);
    PW_CUDA(cub::DeviceSelect::Flagged(scratch_.get(), bytes, in, flags, out, counters_.get() + k,
                                       int(n), stream_));
  }
  std::vector<int> read_counters(int count) {
    std::vector<int> c(static_cast<std::size_t>(count));
    download(c, counters_.get());
    return c;
  }

  // Sends `mine` to rank `to`, returns what rank `from` sent (host, 8 bytes).
  std::size_t exchange_count(std::size_t mine, int to, int from) {
    std::int64_t out = std::int64_t(mine), in = 0;
    comm_.sendrecv(std::as_bytes(std::span<const std::int64_t>(&out, 1)), to,
                   std::as_writable_bytes(std::span<std::int64_t>(&in, 1)), from);
    return std::size_t(in);
  }

  // The counts of both ways along d: `down` goes to the low neighbour, `up` to the high one;
  // returns {from the high neighbour (its down), from the low one (its up)}. With two domains
  // along d both neighbours are one rank: one round trip of both counts instead of two.
  std::pair<std::size_t, std::size_t> exchange_counts(int d, std::size_t down, std::size_t up) {
    const int low = grid_.neighbour(d, -1), high = grid_.neighbour(d, +1);
    if (grid_.n[d] != 2) return {exchange_count(down, low, high), exchange_count(up, high, low)};
    const std::int64_t out[2] = {std::int64_t(down), std::int64_t(up)};
    std::int64_t in[2] = {0, 0};
    comm_.sendrecv(std::as_bytes(std::span<const std::int64_t>(out, 2)), high,
                   std::as_writable_bytes(std::span<std::int64_t>(in, 2)), high);
    return {std::size_t(in[0]), std::size_t(in[1])};
  }

  // ---- rebuild ------------------------------------------------------------------------------

  // domain_kick_drift over the local atoms (`kick_first`: the half kick with the last forces,
  // unless domain_forces applied it ahead); `stop`: the batched steps' flag.
  void kick_drift(std::uint64_t step, bool kick_first, const int* stop = nullptr) {
    const DynP d = dyn();
    top2_.reserve(std::size_t(kick_blocks()) + 1, stream_);
    auto kick = [&](auto thermostat) {
      domain_kick_drift<R, decltype(thermostat)::value><<<kick_blocks(), kKickBlock, 0, stream_>>>(
          int(n_), pos_.get(), vel_.get(), force_.get(), id_.get(), d, step, fixed_local(),
          fixed_p_, x0_.get(), fixed_x0_ ? x0_fixed_.get() : nullptr, top2_.get() + 1, kick_first,
          stop);
    };
    if (d.thermostat == 1)
      kick(std::integral_constant<int, 1>{});
    else
      kick(std::integral_constant<int, 0>{});
    PW_CUDA_LAUNCH("domain_kick_drift");
  }

  // CUDA loads a kernel at its first launch (lazy loading: a fraction of a millisecond to a few
  // each), so the kernels of the steps and of a rebuild's migration that set_state did not launch
  // are loaded here (untimed; cudaFuncGetAttributes loads the function) instead of inside the
  // first timed steps and rebuilds.
  void load_step_kernels() {
    cudaFuncAttributes a{};
    auto load = [&](const void* kernel) { PW_CUDA(cudaFuncGetAttributes(&a, kernel)); };
    load(reinterpret_cast<const void*>(domain_kick_drift<R, 0>));
    load(reinterpret_cast<const void*>(domain_kick_drift<R, 1>));
    load(reinterpret_cast<const void*>(merge_block_top2));
    load(reinterpret_cast<const void*>(merge_and_test));
    load(reinterpret_cast<const void*>(ranks_top2_test));
    load(reinterpret_cast<const void*>(forward_own_ghosts<R4, R>));
    load(reinterpret_cast<const void*>(pack_ghost_sides<R4, R>));
    load(reinterpret_cast<const void*>(wrap_in_place<R4>));
    load(reinterpret_cast<const void*>(leaver_flags<R4>));
    load(reinterpret_cast<const void*>(leaver_scan));
    load(reinterpret_cast<const void*>(leaver_place));
    load(reinterpret_cast<const void*>(pack_leaver_messages<R4>));
    load(reinterpret_cast<const void*>(fill_holes<R4>));
    load(reinterpret_cast<const void*>(unpack_arrivals<R4>));
    load(reinterpret_cast<const void*>(unpack_records<R4>));
  }

  bool one_domain() const { return grid_.n[0] == 1 && grid_.n[1] == 1 && grid_.n[2] == 1; }

  // Whether advance() takes advance_batched. One domain: a single rank, batched when it holds
  // atoms. Across ranks every rank takes the same path (the choice depends on settings only),
  // since the batches' collectives pair up.
  bool batched() const {
    return batch_ > 1 && !profile_ && (one_domain() ? n_ > 0 && !overlap_ : batch_ranks_);
  }

  // The steps with one domain on every axis (every ghost stage a device copy) in batches of at
  // most batch_ (PAIRWISE_MD_BATCH), ending a step before the last interval between rebuilds
  // predicts the next, with no host decision inside: merge_and_test takes the rebuild
  // test on the device and, when it fires, sets the stop flag, after which every kernel of the
  // batch returns at once; one 8-byte download a batch. The state is then the one after that
  // step's kick and drift, exactly as the per-step path's at its test: the host rebuilds and
  // finishes the step, and the next batch starts at the step after. The same kernels with the
  // same arguments as the per-step path in the same order: bit for bit the same trajectory, the
  // rebuilds at the same steps.
  void advance_batched(std::uint64_t first_step, int steps) {
    const DynP d = dyn();
    stop_.reserve(2, stream_);
    bool kicked_ahead = false;  // the last domain_forces applied this step's first half kick
    int k = 0;
    while (k < steps) {
      // Up to the step before the one the last interval between rebuilds predicts (a test firing
      // early leaves the rest of the batch as empty launches; one firing late costs batches of 1).
      const int count = std::min({steps - k, batch_, std::max(1, last_interval_ - 1 - since_)});
      PW_CUDA(cudaMemsetAsync(stop_.get(), 0, 2 * sizeof(int), stream_));
      for (int j = 0; j < count; ++j) {
        const std::uint64_t step = first_step + std::uint64_t(k + j);
        const bool ahead = k + j + 1 < steps && d.thermostat != 2;
        if (n_ > 0) kick_drift(step, !kicked_ahead, stop_.get());
        device_rebuild_test(j);
        if (overlap_ && n_ > 0) {
          // As the per-step overlapped step, the interior launched after the test (it must see
          // the stop flag: its forces also apply the next step's first half kick).
          PW_CUDA(cudaEventRecord(kicked_, stream_));
          PW_CUDA(cudaStreamWaitEvent(interior_stream_, kicked_, 0));
          launch_forces(true, ahead, interior_.get(), n_interior_, interior_stream_, stop_.get());
          PW_CUDA(cudaEventRecord(interior_done_, interior_stream_));
          forward_ghost_positions(stop_.get());
          fix_positions(n_, stop_.get());
          launch_forces(true, ahead, boundary_.get(), n_boundary_, stream_, stop_.get());
          PW_CUDA(cudaStreamWaitEvent(stream_, interior_done_, 0));
          andersen(true, step, stop_.get());
        } else {
          forward_ghost_positions(stop_.get());
          fix_positions(n_, stop_.get());
          compute_forces(true, step, ahead, stop_.get());
        }
        kicked_ahead = ahead;
      }
      int fired[2] = {0, 0};  // the stop flag, the step's index in the batch
      PW_CUDA(cudaMemcpyAsync(fired, stop_.get(), sizeof fired, cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
      if (!fired[0]) {
        k += count, since_ += count, steps_since_sort_ += std::uint64_t(count);
        continue;
      }
      steps_since_sort_ += std::uint64_t(fired[1]) + 1;
      const int s = k + fired[1];
      const bool ahead = s + 1 < steps && d.thermostat != 2;
      rebuild(true);
      compute_forces(true, first_step + std::uint64_t(s), ahead);
      kicked_ahead = ahead;
      last_interval_ = since_ + fired[1] + 1, since_ = 0;
      k = s + 1;
    }
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  // The batched steps' rebuild test on the device for step `k` of the batch (stop_ set when it
  // fires): one domain, merge_and_test; across ranks, every rank's merged top-2 all-gathered on the
  // GPUs (16 bytes a rank, stream-ordered with NCCL) and tested alike by ranks_top2_test. After the
  // test has fired the later steps' collectives still run, carrying unchanged values (their kicks
  // and packs return at once), so that the ranks' collectives keep pairing up.
  void device_rebuild_test(int k) {
    top2_.reserve(std::size_t(kick_blocks()) + 1, stream_);
    if (one_domain()) {
      merge_and_test<<<1, kMergeBlock, 0, stream_>>>(kick_blocks(), top2_.get() + 1, top2_.get(),
                                                     options_.skin, k, stop_.get());
      PW_CUDA_LAUNCH("merge_and_test");
      return;
    }
    // No atom (an empty domain): a top-2 of zeros, as rebuild_test's.
    merge_block_top2<<<1, kMergeBlock, 0, stream_>>>(kick_blocks(), top2_.get() + 1, top2_.get());
    PW_CUDA_LAUNCH("merge_block_top2");
    const int ranks = comm_.size();
    rank_top2_.reserve(std::size_t(ranks), stream_);
    gpu_->allgather(top2_.get(), rank_top2_.get(), sizeof(double2), stream_);
    ranks_top2_test<<<1, 1, 0, stream_>>>(ranks, rank_top2_.get(), options_.skin, k, stop_.get());
    PW_CUDA_LAUNCH("ranks_top2_test");
  }

  // Liu et al.'s test over every rank, from domain_kick_drift's block top-2 pairs.
  // `early_forward`: forward_ghost_positions launched behind the copy of the top-2 (into pinned
  // memory, so the launch does not wait for it) and only the copy waited for: the GPU sends the
  // ghosts while the host all-reduces the decision. Every rank sends every step, so the NCCL
  // calls pair up; after a rebuild decision what was sent is overwritten by the rebuild's ghosts.
  bool rebuild_test(bool early_forward = false) {
    top_host_.reserve(sizeof(double2));
    double2* top = top_host_.as<double2>();
    *top = double2{0, 0};
    if (n_ > 0) {
      merge_block_top2<<<1, kMergeBlock, 0, stream_>>>(kick_blocks(), top2_.get() + 1, top2_.get());
      PW_CUDA_LAUNCH("merge_block_top2");
      PW_CUDA(cudaMemcpyAsync(top, top2_.get(), sizeof *top, cudaMemcpyDeviceToHost, stream_));
    }
    if (early_forward) {
      PW_CUDA(cudaEventRecord(top_ready_, stream_));
      forward_ghost_positions();
      PW_CUDA(cudaEventSynchronize(top_ready_));
    } else if (n_ > 0) {
      PW_CUDA(cudaStreamSynchronize(stream_));
    }
    return rebuild_needed_on_any_rank(comm_, std::sqrt(top->x), std::sqrt(top->y), options_.skin);
  }
  int kick_blocks() const { return int((n_ + kKickBlock - 1) / kKickBlock); }

  void rebuild(bool migrate_atoms) {
    counters_.reserve(8, stream_);
    // PAIRWISE_MD_PROFILE: the rebuild's phases into t_phase_ (a rebuild of the steps only).
    const bool timed = profile_ && migrate_atoms;
    LapClock phases;
    auto phase = [&](int k) {
      if (timed) t_phase_[k] += phases.lap(stream_);
    };
    timing_rebuild_ = timed;  // the migration's laps and the selection kernels' events
    migration_clock_ = LapClock{};
    migrate(migrate_atoms);
    phase(0);
    exchange_ghosts();
    timing_rebuild_ = false;
    phase(1);
    build_cells();
    phase(2);
    build_list();
    // Mixed: the fixed-point copies of the held atoms, and of the local ones into x0_fixed_ (the
    // rebuild test's build positions) in the same pass.
    if (n_ > 0 && fixed_x0_) x0_fixed_.reserve(n_, stream_);
    fix_positions(0, nullptr, fixed_x0_ ? x0_fixed_.get() : nullptr);
    phase(3);
    if (n_ > 0 && !fixed_x0_) {
      PW_CUDA(cudaMemcpyAsync(x0_.get(), pos_.get(), n_ * sizeof(R4), cudaMemcpyDeviceToDevice,
                              stream_));
    }
    ++stats_.rebuilds;
  }

  // Wraps the local atoms and (`across_ranks`) sends those outside the domain to the neighbour
  // owning them, one axis at a time (as the cpu domain engine: stays, then those from above, then
  // from below; migrate_across_ranks); then, at set_state and at the first rebuild `sort_every`
  // steps after the last sort (the single-GPU engine's [neighbor] sort_every, 1,000 by default; 0:
  // never; PAIRWISE_MD_RESORT=K instead: every K-th rebuild), stores them in cell order (the shell
  // grid's cells, index order inside a cell: deterministic), so that the atoms of a warp are
  // neighbours in space and the list build and the forces gather from the same few cells.
  void migrate(bool across_ranks) {
    // In between the atoms keep their slots (those arriving from other ranks after the staying
    // ones): an atom moves less than skin / 2 between two builds, so the order stays close to
    // the cells' and the sort (≈ 0.4 ms of the 0.5 at 2 M atoms) is skipped.
    const bool due =
        resort_every_ > 0
            ? ++rebuilds_since_sort_ >= resort_every_
            : options_.sort_every > 0 && steps_since_sort_ >= std::uint64_t(options_.sort_every);
    const bool resort = !across_ranks || due;
    if (resort) rebuilds_since_sort_ = 0, steps_since_sort_ = 0, resorts_ += across_ranks;
    const bool crossings = across_ranks && (grid_.n[0] > 1 || grid_.n[1] > 1 || grid_.n[2] > 1);
    if (!crossings && !resort && n_ > 0) {
      wrap_in_place<<<blocks_of(n_), kDomainBlock, 0, stream_>>>(int(n_), pos_.get(), image_.get(),
                                                                 geo_);
      PW_CUDA_LAUNCH("wrap_in_place");
    }
    if (crossings) migrate_across_ranks();
    if (!resort) return;
    const std::size_t m = n_;
    moves_a_.reserve(m, stream_);
    if (m > 0) {
      wrap_and_pack<<<blocks_of(m), kDomainBlock, 0, stream_>>>(int(m), pos_.get(), vel_.get(),
                                                                image_.get(), id_.get(),
                                                                slot_.get(), geo_, moves_a_.get());
      PW_CUDA_LAUNCH("wrap_and_pack");
    }
    reserve_local(m, false);
    pos_.reserve(m, stream_), slot_.reserve(m, stream_);
    if (m > 0 && !radix_cells_) {
      sort_by_cell(m, nullptr, moves_a_.get(), static_cast<R4*>(nullptr));
      unpack_records<<<blocks_of(m), kDomainBlock, 0, stream_>>>(
          int(m), moves_a_.get(), order_.get(), pos_.get(), vel_.get(), image_.get(), id_.get(),
          slot_.get());
      PW_CUDA_LAUNCH("unpack_records");
    } else if (m > 0) {
      keys_.reserve(m, stream_), index_.reserve(m, stream_);
      sorted_keys_.reserve(m, stream_), order_.reserve(m, stream_);
      record_cell_keys<<<blocks_of(m), kDomainBlock, 0, stream_>>>(int(m), moves_a_.get(), cells_,
                                                                   keys_.get(), index_.get());
      PW_CUDA_LAUNCH("record_cell_keys");
      sort_cell_keys(m);
      unpack_records<<<blocks_of(m), kDomainBlock, 0, stream_>>>(
          int(m), moves_a_.get(), order_.get(), pos_.get(), vel_.get(), image_.get(), id_.get(),
          slot_.get());
      PW_CUDA_LAUNCH("unpack_records");
    }
    mark_migration(1);
  }

  // The local atoms owned by the neighbours go to them, one decomposed axis after the other (as
  // the cpu domain engine: stays, then those from above, then from below), all on the device
  // (MigrationCounts, cuda_domain_kernels.cuh): per axis leaver_flags (the first axis's also wraps
  // the atoms into the box), leaver_scan and leaver_place list the leavers of each way, the holes
  // and the fillers; pack_leaver_messages writes each way's records into a message of
  // migration_message_ records (its count last), fill_holes refills the leavers' slots, the
  // messages go to the neighbours and unpack_arrivals puts theirs after the kept atoms. Only the
  // leavers move; one pass over the positions an axis. The counts are read back and all-reduced
  // once: an atom owned by a domain further away is a clear error on every rank, and a way longer
  // than its message (the step skipped on that rank: nothing moved) makes every rank redo the
  // migration with larger messages (what moved stays moved).
  void migrate_across_ranks() {
    migration_counts_.reserve(1, stream_);
    int axes[3], steps = 0;
    for (int d = 0; d < 3; ++d)
      if (grid_.n[d] > 1) axes[steps++] = d;
    if (migration_message_ == 0) {  // a face's share of the atoms, the largest over the ranks
      std::int64_t side = 0;
      for (int k = 0; k < steps; ++k) {
        const int d = axes[k];
        const double width = std::max(grid_.hi[d] - grid_.lo[d], 1e-300);
        side = std::max(side, std::int64_t(double(n_) * options_.skin / width * ghost_slack_));
      }
      std::int64_t largest[1] = {side + 64};
      comm_.allreduce_max(std::span<std::int64_t>(largest, 1));
      migration_message_ = std::size_t(largest[0]);
    }
    for (;;) {
      const std::size_t m = migration_message_;
      // Room for every step's arrivals: the local arrays keep [0, n_).
      const std::size_t bound = n_ + std::size_t(steps) * 2 * m;
      reserve_local(bound, true);
      pos_.reserve(bound, stream_, true, n_), slot_.reserve(bound, stream_, true, n_);
      const std::size_t blocks = (bound + kLeaverBlock - 1) / kLeaverBlock;
      flags_.reserve(bound, stream_), leaver_blocks_.reserve(blocks, stream_);
      leave_down_.reserve(bound, stream_), leave_up_.reserve(bound, stream_);
      holes_.reserve(bound, stream_), fillers_.reserve(bound, stream_);
      send_moves_.reserve(2 * (m + 1), stream_), moves_b_.reserve(2 * (m + 1), stream_);
      MigrationCounts* const counts = migration_counts_.get();
      PW_CUDA(cudaMemsetAsync(counts, 0, sizeof(MigrationCounts), stream_));
      for (int k = 0; k < steps; ++k) {
        const int d = axes[k];
        const MigrationStepP p{k, d, k == 0 ? int(n_) : -1, int(m)};
        const std::size_t step_blocks = (n_ + std::size_t(k) * 2 * m + kLeaverBlock - 1) /
                                        kLeaverBlock;  // the step's largest count
        if (step_blocks > 0) {
          span(0, [&] {
            leaver_flags<<<int(step_blocks), kLeaverBlock, 0, stream_>>>(
                p, counts, pos_.get(), image_.get(), id_.get(), geo_, k == 0, flags_.get(),
                leaver_blocks_.get());
            PW_CUDA_LAUNCH("leaver_flags");
          });
        }
        span(1, [&] {
          leaver_scan<<<1, 1024, 0, stream_>>>(p, counts, leaver_blocks_.get());
          PW_CUDA_LAUNCH("leaver_scan");
        });
        if (step_blocks > 0) {
          span(2, [&] {
            leaver_place<<<int(step_blocks), kLeaverBlock, 0, stream_>>>(
                p, counts, flags_.get(), leaver_blocks_.get(), leave_down_.get(), leave_up_.get(),
                holes_.get(), fillers_.get());
            PW_CUDA_LAUNCH("leaver_place");
          });
        }
        pack_leaver_messages<<<blocks_of(2 * (m + 1)), kDomainBlock, 0, stream_>>>(
            p, counts, leave_down_.get(), leave_up_.get(), pos_.get(), vel_.get(), image_.get(),
            id_.get(), slot_.get(), send_moves_.get());
        PW_CUDA_LAUNCH("pack_leaver_messages");
        fill_holes<<<blocks_of(2 * m), kDomainBlock, 0, stream_>>>(
            p, counts, holes_.get(), fillers_.get(), pos_.get(), vel_.get(), image_.get(),
            id_.get(), slot_.get());
        PW_CUDA_LAUNCH("fill_holes");
        send_both_ways(d, send_moves_.get(), moves_b_.get(), (m + 1) * sizeof(Record));
        unpack_arrivals<<<blocks_of(2 * m), kDomainBlock, 0, stream_>>>(
            p, counts, moves_b_.get(), pos_.get(), vel_.get(), image_.get(), id_.get(),
            slot_.get());
        PW_CUDA_LAUNCH("unpack_arrivals");
      }
      MigrationCounts c{};
      PW_CUDA(cudaMemcpyAsync(&c, counts, sizeof c, cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
      std::int64_t any[3] = {std::int64_t(c.far), c.overflow, 0};
      for (int k = 0; k < steps; ++k)
        any[2] = std::max({any[2], std::int64_t(c.way[k][0]), std::int64_t(c.way[k][1])});
      comm_.allreduce_max(std::span<std::int64_t>(any, 3));
      if (any[0] != 0)
        throw Error("atom id " + std::to_string(std::uint64_t(any[0]) - 1u) +
                        " crossed more than one domain between two neighbour-list builds",
                    "md domain decomposition");
      migration_message_ = grown_message(m, any[1], any[2]);
      n_ = std::size_t(c.n[steps]);
      if (any[1] == 0) break;  // else some rank skipped a step: every rank migrates again
    }
    mark_migration(0);
  }

  // Counting sort of `count` items (held positions `pos`, or records `rec`) by shell-grid cell:
  // start_ (cells + 1 entries), order_ (item indices in cell order, index order inside a cell:
  // what sort_cell_keys gives) and, with `gathered` set, their positions in that order (the index
  // in w). keys_ and index_ hold each item's cell and its arrival rank there.
  template <class C4>
  void sort_by_cell(std::size_t count, const R4* pos, const Record* rec, C4* gathered) {
    const std::size_t cells = std::size_t(cells_.n[0]) * cells_.n[1] * cells_.n[2];
    keys_.reserve(count, stream_), index_.reserve(count, stream_), order_.reserve(count, stream_);
    cell_count_.reserve(cells + 1, stream_), start_.reserve(cells + 1, stream_);
    PW_CUDA(cudaMemsetAsync(cell_count_.get(), 0, (cells + 1) * sizeof(int), stream_));
    if (count > 0) {
      shell_cell_count<<<blocks_of(count), kDomainBlock, 0, stream_>>>(
          int(count), pos, rec, cells_, keys_.get(), index_.get(), cell_count_.get());
      PW_CUDA_LAUNCH("shell_cell_count");
    }
    std::size_t bytes = 0;
    PW_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, cell_count_.get(), start_.get(),
                                          int(cells + 1), stream_));
    scratch_.reserve(bytes, stream_);
    PW_CUDA(cub::DeviceScan::ExclusiveSum(scratch_.get(), bytes, cell_count_.get(), start_.get(),
                                          int(cells + 1), stream_));
    if (count == 0) return;
    shell_cell_scatter<<<blocks_of(count), kDomainBlock, 0, stream_>>>(
        int(count), keys_.get(), index_.get(), start_.get(), order_.get());
    PW_CUDA_LAUNCH("shell_cell_scatter");
    constexpr int warps = kDomainBlock / 32;
    shell_cell_order<<<int((cells + warps - 1) / warps), kDomainBlock, 0, stream_>>>(
        int(cells), start_.get(), order_.get(), pos, cells_, gathered);
    PW_CUDA_LAUNCH("shell_cell_order");
  }

  // keys_ (cells of the shell grid) and index_ of `count` items sorted into sorted_keys_ and
  // order_ (cub's radix sort is stable: each cell's items stay in index order).
  void sort_cell_keys(std::size_t count) {
    const std::size_t cells = std::size_t(cells_.n[0]) * cells_.n[1] * cells_.n[2];
    int end_bit = 1;
    while ((std::size_t(1) << end_bit) < cells) ++end_bit;
    std::size_t bytes = 0;
    PW_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys_.get(), sorted_keys_.get(),
                                            index_.get(), order_.get(), int(count), 0, end_bit,
                                            stream_));
    scratch_.reserve(bytes, stream_);
    PW_CUDA(cub::DeviceRadixSort::SortPairs(scratch_.get(), bytes, keys_.get(), sorted_keys_.get(),
                                            index_.get(), order_.get(), int(count), 0, end_bit,
                                            stream_));
  }

  // Three stages (x, y, z): the atoms (local and ghosts of earlier stages) within r_list of the
  // low face go to the low neighbour, those within r_list of the high face to the high one,
  // shifted by ±L across the periodic boundary (one domain along the axis: the domain's own
  // images). The send lists stay on the device for the forward communication until the next
  // rebuild. By default every stage runs on the device with no host decision in between
  // (exchange_ghosts_on_device); PAIRWISE_MD_GHOSTS=host: a host round trip a stage.
  void exchange_ghosts() {
    if (device_ghosts_) {
      span(3, [&] { held_ = exchange_ghosts_on_device(); });
      return;
    }
    std::size_t held = n_;
    own_stages_ = 0;
    for (int d = 0; d < 3; ++d) {
      const std::size_t count = held;
      for (int side = 0; side < 2; ++side) send_[d][side].reserve(count, stream_);
      const std::vector<int> c = select_by_cub(d, count);
      const std::size_t out0 = std::size_t(c[0]), out1 = std::size_t(c[1]);
      send_pos_.reserve(out0 + out1, stream_);  // the forward sends both sides from it
      const bool self = grid_.n[d] == 1;        // then what arrives is what leaves
      const auto [in0, in1] = self ? std::pair{out0, out1} : exchange_counts(d, out0, out1);
      pos_.reserve(held + in0 + in1, stream_, true, held);
      slot_.reserve(held + in0 + in1, stream_, true, held);
      // Side 0 (to the low neighbour, arriving from the high one) then side 1, each packed from
      // the atoms held at the stage's start: straight into the ghost slots with one domain along
      // d, else side 0 then side 1 into the send buffers. With two domains both sides go to one
      // rank as one message each of positions and slots, arriving as [its side 0 | its side 1]
      // = [in0 | in1], the ghost slots' order.
      if (!self) send_slot_.reserve(out0 + out1, stream_);
      for (int side = 0; side < 2; ++side) {
        const std::size_t out = side == 0 ? out0 : out1;
        const std::size_t at = side == 0 ? 0 : (self ? in0 : out0);
        R4* to_pos = self ? pos_.get() + held + at : send_pos_.get() + at;
        int* to_slot = self ? slot_.get() + held + at : send_slot_.get() + at;
        if (out > 0) {
          pack_ghosts<<<blocks_of(out), kDomainBlock, 0, stream_>>>(
              int(out), send_[d][side].get(), pos_.get(), d, R(grid_.shift(d, side)), to_pos,
              slot_.get(), to_slot);
          PW_CUDA_LAUNCH("pack_ghosts");
        }
      }
      auto send = [&](std::size_t from_at, std::size_t out, int to, std::size_t to_at,
                      std::size_t in, int from) {
        gpu_->sendrecv_async(send_pos_.get() + from_at, out * sizeof(R4), to,
                             pos_.get() + held + to_at, in * sizeof(R4), from, stream_);
        gpu_->sendrecv_async(send_slot_.get() + from_at, out * sizeof(int), to,
                             slot_.get() + held + to_at, in * sizeof(int), from, stream_);
      };
      const int low = grid_.neighbour(d, -1), high = grid_.neighbour(d, +1);
      if (grid_.n[d] == 2) {
        send(0, out0 + out1, high, 0, in0 + in1, high);
      } else if (!self) {
        send(0, out0, low, 0, in0, high);
        send(out0, out1, high, in0, in1, low);
      }
      sent_[d][0] = out0, sent_[d][1] = out1, received_[d][0] = in0, received_[d][1] = in1;
      held += in0 + in1;
    }
    held_ = held;
  }

  // The send lists of stage d from the `count` held atoms (PAIRWISE_MD_GHOSTS=host): ghost_flags
  // then a cub::DeviceSelect a side over the indices; returns the two counts.
  std::vector<int> select_by_cub(int d, std::size_t count) {
    fill_iota_to(count);
    flags_.reserve(2 * count, stream_);
    unsigned char *to_low = flags_.get(), *to_high = to_low + count;
    if (count > 0) {
      span(4, [&] {
        ghost_flags<<<blocks_of(count), kDomainBlock, 0, stream_>>>(
            int(count), pos_.get(), d, grid_.lo[d] + r_list_, grid_.hi[d] - r_list_, to_low,
            to_high);
        PW_CUDA_LAUNCH("ghost_flags");
      });
    }
    span(5, [&] {
      for (int side = 0; side < 2; ++side)
        select(iota_.get(), side == 0 ? to_low : to_high, send_[d][side].get(), count, side);
    });
    return read_counters(2);
  }

  // Stage d's parameters for the device stage kernels: the faces' edges r_list inside the domain,
  // the two sides' periodic shifts, the held count at its start (`first_held`; −1: the device's
  // count after the stage before), the ghost slots' capacity and (several domains along d) the
  // atoms a side's message holds.
  GhostStageP<R> stage_params(int d, int first_held, int capacity, int message) const {
    GhostStageP<R> p{};
    p.stage = d, p.d = d, p.capacity = capacity, p.first_held = first_held;
    p.low_edge = grid_.lo[d] + r_list_, p.high_edge = grid_.hi[d] - r_list_;
    p.shift0 = R(grid_.shift(d, 0)), p.shift1 = R(grid_.shift(d, 1));
    p.locals = int(n_);
    p.message = grid_.n[d] == 1 ? 0 : message;
    return p;
  }

  // The held atoms' growth factor over stages [0, stages): 1 + 2 r_list / width an axis (the
  // shell's volume over the domain's).
  double shell_ratio(int stages) const {
    double ratio = 1;
    for (int d = 0; d < stages; ++d)
      ratio *= 1 + 2 * r_list_ / std::max(grid_.hi[d] - grid_.lo[d], 1e-300);
    return ratio;
  }

  // Every ghost stage on the device, with one read of the counts and one all-reduce a rebuild
  // instead of a host round trip (and, across ranks, a host exchange of the counts) a stage.
  // A stage a domain's own images (one domain along its axis): ghost_stage_flags, ghost_stage_scan
  // and ghost_stage_place (the send lists, the shifted copies and slots in the ghost slots). A
  // stage across ranks: flags and scan, then ghost_stage_pack (the send lists and a message of
  // message_capacity_ atoms a side, its count in the slots' last word), the messages of fixed size
  // (positions, slots) to the neighbours and theirs received, ghost_stage_receive (into the ghost
  // slots, side 0 then side 1: the host stages' order). So the same ghosts in the same slots as
  // the host stages. The ghost slots are sized from the shell's volume (or the last rebuild's
  // count) and a message from the faces' share of it; when a rank's slots or any message do not
  // fit, every rank grows and redoes the stages (the all-reduce decides). Returns the held count.
  std::size_t exchange_ghosts_on_device() {
    ghost_counts_.reserve(1, stream_);
    if (message_capacity_ == 0) {  // the faces' estimate, the largest over the ranks
      std::int64_t side = 0;
      for (int d = 0; d < 3; ++d) {
        if (grid_.n[d] == 1) continue;
        const double width = std::max(grid_.hi[d] - grid_.lo[d], 1e-300);
        side = std::max(side, std::int64_t(double(n_) * shell_ratio(d) * r_list_ / width *
                                           ghost_slack_ * kMessageSlack));
      }
      std::int64_t largest[1] = {side + 64};
      comm_.allreduce_max(std::span<std::int64_t>(largest, 1));
      message_capacity_ = std::size_t(largest[0]);
    }
    int first_across = 0;  // the stages before it: a domain's own images
    while (first_across < 3 && grid_.n[first_across] == 1) ++first_across;
    own_stages_ = compose_forward_ ? first_across : 0;
    for (;;) {
      const std::size_t estimate = std::size_t(double(n_) * shell_ratio(3) * ghost_slack_) + 4096;
      const std::size_t capacity = std::max({estimate, ghost_capacity_, n_ + 64});
      const std::size_t m = message_capacity_;
      pos_.reserve(capacity, stream_, true, n_), slot_.reserve(capacity, stream_, true, n_);
      const std::size_t blocks = (capacity + kGhostBlock - 1) / kGhostBlock;
      sides_.reserve(capacity, stream_), ghost_blocks_.reserve(blocks, stream_);
      if (own_stages_ > 0) origin_.reserve(capacity - n_, stream_);
      for (int d = 0; d < 3; ++d)
        for (int side = 0; side < 2; ++side) send_[d][side].reserve(capacity, stream_);
      if (first_across < 3) {  // the forward reuses send_pos_ (sent ≤ 2m)
        send_pos_.reserve(2 * m, stream_), recv_pos_.reserve(2 * m, stream_);
        send_slot_.reserve(2 * (m + 1), stream_), recv_slot_.reserve(2 * (m + 1), stream_);
      }
      PW_CUDA(cudaMemsetAsync(ghost_counts_.get(), 0, sizeof(GhostCounts), stream_));
      for (int d = 0; d < 3; ++d) {
        const GhostStageP<R> p = stage_params(d, d == 0 ? int(n_) : -1, int(capacity), int(m));
        ghost_stage_flags<<<int(blocks), kGhostBlock, 0, stream_>>>(
            pos_.get(), p, ghost_counts_.get(), sides_.get(), ghost_blocks_.get());
        PW_CUDA_LAUNCH("ghost_stage_flags");
        ghost_stage_scan<<<1, 1024, 0, stream_>>>(p, ghost_counts_.get(), ghost_blocks_.get());
        PW_CUDA_LAUNCH("ghost_stage_scan");
        if (p.message == 0) {
          ghost_stage_place<<<int(blocks), kGhostBlock, 0, stream_>>>(
              pos_.get(), slot_.get(), p, ghost_counts_.get(), sides_.get(), ghost_blocks_.get(),
              send_[d][0].get(), send_[d][1].get(), d < own_stages_ ? origin_.get() : nullptr);
          PW_CUDA_LAUNCH("ghost_stage_place");
          continue;
        }
        ghost_stage_pack<<<int(blocks), kGhostBlock, 0, stream_>>>(
            pos_.get(), slot_.get(), p, ghost_counts_.get(), sides_.get(), ghost_blocks_.get(),
            send_[d][0].get(), send_[d][1].get(), send_pos_.get(), send_slot_.get());
        PW_CUDA_LAUNCH("ghost_stage_pack");
        send_stage_messages(d, m);
        ghost_stage_receive<<<blocks_of(2 * m), kDomainBlock, 0, stream_>>>(
            pos_.get(), slot_.get(), p, ghost_counts_.get(), recv_pos_.get(), recv_slot_.get());
        PW_CUDA_LAUNCH("ghost_stage_receive");
      }
      GhostCounts c{};
      PW_CUDA(cudaMemcpyAsync(&c, ghost_counts_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
      int longest = 0;  // the longest side sent across ranks
      for (int d = first_across; d < 3; ++d)
        if (grid_.n[d] > 1) longest = std::max({longest, c.sent[d][0], c.sent[d][1]});
      std::int64_t any[3] = {c.overflow > 0 ? 1 : 0, c.message_overflow, longest};
      comm_.allreduce_max(std::span<std::int64_t>(any, 3));
      if (c.overflow > 0)  // counts past the overflowing stage are of clipped inputs: grow more
        ghost_capacity_ = std::max(2 * capacity, std::size_t(c.overflow) * 5 / 4);
      message_capacity_ = grown_message(m, any[1], any[2]);
      if (any[0] > 0 || any[1] > 0) continue;  // some rank's slots or some message overflowed
      for (int d = 0; d < 3; ++d) {
        const bool across = grid_.n[d] > 1;
        for (int side = 0; side < 2; ++side) {
          sent_[d][side] = std::size_t(c.sent[d][side]);
          received_[d][side] = std::size_t(across ? c.received[d][side] : c.sent[d][side]);
        }
      }
      return std::size_t(c.held[3]);
    }
  }

  // Stage d's fixed-size messages (ghost_stage_pack's layout, m atoms a side): positions, then
  // slots with each side's count last.
  void send_stage_messages(int d, std::size_t m) {
    send_both_ways(d, send_pos_.get(), recv_pos_.get(), m * sizeof(R4));
    send_both_ways(d, send_slot_.get(), recv_slot_.get(), (m + 1) * sizeof(int));
  }

  // Two ways' messages of `way_bytes` each, way 1 right after way 0 at `send` and at `recv`: way 0
  // (down, side 0) to the low neighbour along d, arriving from the high one, way 1 to the high
  // one, arriving from the low one; with two domains along d both go to the one neighbour as one
  // message, arriving as [its way 0 | its way 1]. Ordered on stream_, no host wait (NCCL).
  void send_both_ways(int d, const void* send, void* recv, std::size_t way_bytes) {
    const int low = grid_.neighbour(d, -1), high = grid_.neighbour(d, +1);
    if (grid_.n[d] == 2) {
      gpu_->sendrecv_async(send, 2 * way_bytes, high, recv, 2 * way_bytes, high, stream_);
      return;
    }
    const auto* from_bytes = static_cast<const std::byte*>(send);
    auto* to_bytes = static_cast<std::byte*>(recv);
    for (int w = 0; w < 2; ++w)
      gpu_->sendrecv_async(from_bytes + w * way_bytes, way_bytes, w == 0 ? low : high,
                           to_bytes + w * way_bytes, way_bytes, w == 0 ? high : low, stream_);
  }

  // The atoms a message holds for the next rebuild, the same on every rank from all-reduced
  // counts: after an overflow (the longest way that did not fit) or when the longest way seen
  // came within 10 % of the messages, kMessageSlack times it.
  static std::size_t grown_message(std::size_t m, std::int64_t overflow, std::int64_t longest) {
    const auto wanted = std::size_t(double(overflow > 0 ? overflow : longest) * kMessageSlack) + 64;
    return overflow > 0 || std::size_t(longest) > m * 9 / 10 ? std::max(m, wanted) : m;
  }

  // The positions of the same ghosts, in the same slots, as the atoms moved since the rebuild:
  // the device stages' (own_stages_) in one launch from their local atoms (forward_own_ghosts);
  // then per stage both sides packed in one launch (pack_ghost_sides), straight into the ghost
  // slots with one domain along d, else into send_pos_ (side 0, then side 1) and sent.
  void forward_ghost_positions(const int* stop = nullptr) {
    std::size_t next = n_;
    if (own_stages_ > 0) {
      OwnShifts<R> shifts{};
      std::size_t count = 0;
      for (int d = 0; d < own_stages_; ++d) {
        count += sent_[d][0] + sent_[d][1];
        for (int side = 0; side < 2; ++side) shifts.shift[d][side] = R(grid_.shift(d, side));
      }
      if (count > 0) {
        forward_own_ghosts<<<blocks_of(count), kDomainBlock, 0, stream_>>>(
            int(count), int(n_), origin_.get(), pos_.get(), shifts, stop);
        PW_CUDA_LAUNCH("forward_own_ghosts");
      }
      next += count;
    }
    for (int d = own_stages_; d < 3; ++d) {
      const std::size_t out0 = sent_[d][0], out1 = sent_[d][1];
      const std::size_t in0 = received_[d][0], in1 = received_[d][1];
      const bool self = grid_.n[d] == 1;  // then in0 = out0 and in1 = out1
      R4* target0 = self ? pos_.get() + next : send_pos_.get();
      R4* target1 = self ? pos_.get() + next + out0 : send_pos_.get() + out0;
      if (out0 + out1 > 0) {
        pack_ghost_sides<<<blocks_of(out0 + out1), kDomainBlock, 0, stream_>>>(
            int(out0), int(out1), send_[d][0].get(), send_[d][1].get(), pos_.get(), d,
            R(grid_.shift(d, 0)), R(grid_.shift(d, 1)), target0, target1, stop);
        PW_CUDA_LAUNCH("pack_ghost_sides");
      }
      // The messages stay ordered on the stream with no host wait (NCCL; the MPI fallback waits
      // all the same): the boundary forces that read them follow on stream_. In a batch, after
      // the test has fired the packs return at once and what travels is never read: the rebuild
      // that follows sends every ghost anew.
      auto sendrecv = [&](const R4* send, std::size_t out, int to, R4* recv, std::size_t in,
                          int from) {
        gpu_->sendrecv_async(send, out * sizeof(R4), to, recv, in * sizeof(R4), from, stream_);
      };
      if (grid_.n[d] == 2) {
        // Both neighbours are one rank, and the two sides' ghosts are adjacent slots on both
        // ranks, so the sides travel as one message each way.
        const int other = grid_.neighbour(d, 1);
        sendrecv(send_pos_.get(), out0 + out1, other, pos_.get() + next, in0 + in1, other);
      } else if (grid_.n[d] > 2) {
        sendrecv(send_pos_.get(), out0, grid_.neighbour(d, -1), pos_.get() + next, in0,
                 grid_.neighbour(d, 1));
        sendrecv(send_pos_.get() + out0, out1, grid_.neighbour(d, 1), pos_.get() + next + in0, in1,
                 grid_.neighbour(d, -1));
      }
      next += in0 + in1;
    }
  }

  // The cell list over the domain and its ghost shell: the held atoms sorted by cell (index order
  // inside a cell), their build coordinates in that order (cell_pos_, or mixed's float offsets
  // cell_pos_f_; the index in w), the cell starts.
  void build_cells() {
    if constexpr (kMixed) {
      if (float_lists_) return build_cells(cell_pos_f_);
    }
    build_cells(cell_pos_);
  }
  template <class C4>
  void build_cells(DeviceArray<C4>& cell_pos) {
    const ShellCellsP c = cells_;
    const std::size_t cells = std::size_t(c.n[0]) * c.n[1] * c.n[2];
    const std::size_t held = held_;
    keys_.reserve(held, stream_), index_.reserve(held, stream_);
    sorted_keys_.reserve(held, stream_), order_.reserve(held, stream_);
    cell_pos.reserve(held, stream_);
    start_.reserve(cells + 1, stream_);
    if (!radix_cells_) {
      sort_by_cell(held, pos_.get(), nullptr, cell_pos.get());
      return;
    }
    if (held > 0) {
      shell_cell_keys<<<blocks_of(held), kDomainBlock, 0, stream_>>>(int(held), pos_.get(), c,
                                                                     keys_.get(), index_.get());
      PW_CUDA_LAUNCH("shell_cell_keys");
      sort_cell_keys(held);
      gather_positions<<<blocks_of(held), kDomainBlock, 0, stream_>>>(
          int(held), order_.get(), pos_.get(), c, cell_pos.get());
      PW_CUDA_LAUNCH("gather_positions");
    }
    shell_cell_starts<<<blocks_of(cells + 1), kDomainBlock, 0, stream_>>>(
        int(cells), int(held), sorted_keys_.get(), start_.get());
    PW_CUDA_LAUNCH("shell_cell_starts");
  }

  // domain_list's instances. C4: the candidates' type; Exact: mixed's float tests with the band
  // decided in double.
  template <class C4>
  using ListKernel = void (*)(int, int, const C4*, const int*, ShellCellsP, double, double, int,
                              int*, int*, int*, int*, unsigned char*, DomainBand);

  // The full lists of the local atoms over build_cells' cells; a list longer than the capacity
  // grows it and builds again.
  void build_list() {
    if constexpr (kMixed) {
      if (float_lists_) return build_list(list_kernel<float4, true>(), cell_pos_f_.get());
    }
    build_list(list_kernel<R4, false>(), cell_pos_.get());
  }
  template <class C4>
  void build_list(ListKernel<C4> kernel, const C4* cell_pos) {
    const ShellCellsP c = cells_;
    const std::size_t cells = std::size_t(c.n[0]) * c.n[1] * c.n[2];
    nbr_count_.reserve(n_, stream_);
    // Mixed's float lists: the band of r_list decided in double, m = 2^-18 (extent + r_list) wide
    // (a float offset from the shell's corner is within 2^-24 of the extent of the double: m is
    // 64 times one rounding), as the single-GPU engine's.
    double extent = 0;
    for (int d = 0; d < 3; ++d) extent = std::max(extent, c.n[d] * c.width[d]);
    const bool exact = !std::is_same_v<C4, R4>;
    const double margin = exact ? std::ldexp(extent + r_list_, -18) : 0.0;
    DomainBand band;
    if constexpr (kMixed) {
      if (exact) {
        band.pos = pos_.get();
        const double lo = std::max(0.0, r_list_ - margin);
        band.lo2 = float(lo * lo);
        band.r_list2 = r_list_ * r_list_;
      }
    }
    const double hi = r_list_ + margin;
    // The screen's margin: far above the rounding of a candidate's distance to the home atoms'
    // bounding box (float for single), far below the cell width.
    const double screen = hi * (1 + 1e-3);
    if (overlap_) split_.reserve(2 * n_, stream_);
    for (;;) {
      nbr_.reserve(n_ * std::size_t(capacity_), stream_);
      PW_CUDA(cudaMemsetAsync(counters_.get() + 4, 0, 2 * sizeof(int), stream_));  // + next cell
      if (n_ > 0) {
        constexpr int warps = kDomainBlock / 32;
        const int needed = int((cells + warps - 1) / warps);
        kernel<<<std::min(needed, list_blocks(kernel)), kDomainBlock, 0, stream_>>>(
            int(cells), int(n_), cell_pos, start_.get(), c, hi * hi, screen * screen, capacity_,
            nbr_.get(), nbr_count_.get(), counters_.get() + 4, counters_.get() + 5,
            overlap_ ? split_.get() : nullptr, band);
        PW_CUDA_LAUNCH("domain_list");
      }
      int overflow = 0;
      PW_CUDA(cudaMemcpyAsync(&overflow, counters_.get() + 4, sizeof overflow,
                              cudaMemcpyDeviceToHost, stream_));
      PW_CUDA(cudaStreamSynchronize(stream_));
      if (overflow <= capacity_) break;
      capacity_ = (overflow + overflow / 8 + 11) & ~7;
      ++stats_.regrows;
    }
    if (overlap_) split_atoms();
  }

  // The overlapped step's atom lists from domain_list's flags: interior_ (no ghost in the list)
  // and boundary_, each in slot order.
  void split_atoms() {
    fill_iota_to(n_);
    interior_.reserve(n_, stream_), boundary_.reserve(n_, stream_);
    select(iota_.get(), split_.get(), interior_.get(), n_, 0);
    select(iota_.get(), split_.get() + n_, boundary_.get(), n_, 1);
    const std::vector<int> c = read_counters(2);
    n_interior_ = std::size_t(c[0]), n_boundary_ = std::size_t(c[1]);
  }

  // iota_[k] = k for k < count (at least).
  void fill_iota_to(std::size_t count) {
    if (iota_.capacity() >= count && iota_filled_ >= count) return;
    iota_.reserve(count, stream_);
    iota_filled_ = iota_.capacity();
    fill_iota<<<blocks_of(iota_filled_), kDomainBlock, 0, stream_>>>(int(iota_filled_),
                                                                     iota_.get());
    PW_CUDA_LAUNCH("fill_iota");
  }

  // domain_list with PAIRWISE_MD_LIST_MINB = 8, 12 or 16 resident blocks an SM asked of its
  // registers, else as many as they give.
  template <class C4, bool Exact>
  ListKernel<C4> list_kernel() const {
    if (list_min_blocks_ == 8) return domain_list<C4, 8, Exact>;
    if (list_min_blocks_ == 12) return domain_list<C4, 12, Exact>;
    if (list_min_blocks_ == 16) return domain_list<C4, 16, Exact>;
    return domain_list<C4, 1, Exact>;
  }

  // The resident blocks of the build's domain_list (one wave), queried once.
  template <class Kernel>
  int list_blocks(Kernel kernel) {
    if (list_blocks_ == 0) {
      int dev = 0, sms = 0, per_sm = 0;
      PW_CUDA(cudaGetDevice(&dev));
      PW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      PW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kDomainBlock, 0));
      list_blocks_ = std::max(1, per_sm) * sms;
    }
    return list_blocks_;
  }

  // ---- forces -------------------------------------------------------------------------------

  // `ahead`: domain_forces also applies the next step's first half kick (and stores no force).
  void compute_forces(bool kick, std::uint64_t step, bool ahead = false,
                      const int* stop = nullptr) {
    if (n_ == 0) return;
    launch_forces(kick, ahead, nullptr, n_, stream_, stop);
    andersen(kick, step, stop);
  }

  // domain_forces over `count` atoms: those listed in `atoms`, or [0, count) when it is null.
  void launch_forces(bool kick, bool ahead, const int* atoms, std::size_t count, cudaStream_t s,
                     const int* stop = nullptr) {
    if (count == 0) return;
    const DynP d = dyn();
    const int blocks = blocks_of(count * kForceThreads);
    auto launch = [&](auto sf, auto fixed, auto fast, auto one) {
      auto go = [&](auto kernel) {
        kernel<<<blocks, kDomainBlock, 0, s>>>(int(count), pos_.get(), vel_.get(), force_.get(),
                                               fixed_.get(), fixed_p_, nbr_.get(), nbr_count_.get(),
                                               capacity_, types_, d, kick, ahead, atoms, stop);
      };
      constexpr bool SF = decltype(sf)::value, Fixed = decltype(fixed)::value;
      constexpr bool Fast = decltype(fast)::value, One = decltype(one)::value;
      if constexpr (kMixed && Fixed) {
        if (force_min_blocks_ == 15) return go(domain_forces<R, P, A, SF, Fixed, Fast, One, 15>);
      }
      go(domain_forces<R, P, A, SF, Fixed, Fast, One>);
    };
    using T = std::true_type;
    using F = std::false_type;
    // Shifted force: exact division. Otherwise single takes the approximate reciprocal and mixed
    // the IEEE division, as the single-GPU engine (mixed's NVE drift of the validation case
    // with the approximate one, 1.08e-4, is over the test's 1e-4: docs/performance.md).
    using FastRcp = std::bool_constant<std::is_same_v<A, float>>;
    auto with_types = [&](auto sf, auto fixed, auto fast) {
      if (types_ == 1)
        launch(sf, fixed, fast, T{});
      else
        launch(sf, fixed, fast, F{});
    };
    if constexpr (std::is_same_v<P, float>) {
      if (any_sf_) {
        if (use_fixed_)
          with_types(T{}, T{}, F{});
        else
          with_types(T{}, F{}, F{});
      } else {
        if (use_fixed_)
          with_types(F{}, T{}, FastRcp{});
        else
          with_types(F{}, F{}, FastRcp{});
      }
    } else {
      if (any_sf_)
        with_types(T{}, F{}, F{});
      else
        with_types(F{}, F{}, F{});
    }
    PW_CUDA_LAUNCH("domain_forces");
  }

  // Andersen's collisions after the second half kick (all local atoms, on stream_).
  void andersen(bool kick, std::uint64_t step, const int* stop = nullptr) {
    const DynP d = dyn();
    if (n_ > 0 && kick && d.thermostat == 2) {
      domain_andersen<<<blocks_of(n_), kDomainBlock, 0, stream_>>>(int(n_), vel_.get(), id_.get(),
                                                                   d, step, stop);
      PW_CUDA_LAUNCH("domain_andersen");
    }
  }

  // Mixed: the fixed-point copy of the held atoms' positions from `first` on (the local atoms'
  // come from domain_kick_drift between rebuilds); `snapshot` (when set): also the local atoms'
  // copies there.
  void fix_positions(std::size_t first, const int* stop = nullptr, int4* snapshot = nullptr) {
    if (!use_fixed_ || held_ == 0) return;
    fixed_.reserve(held_, stream_);
    if (held_ > first)
      fixed_positions<<<blocks_of(held_ - first), kDomainBlock, 0, stream_>>>(
          int(first), int(held_), pos_.get(), fixed_p_, fixed_.get(), stop, snapshot, int(n_));
    PW_CUDA_LAUNCH("fixed_positions");
  }
  int4* fixed_local() { return use_fixed_ ? fixed_.get() : nullptr; }

  EngineOptions options_;
  Communicator& comm_;
  std::unique_ptr<parallel::GpuCollectives> gpu_;
  cudaStream_t stream_ = nullptr;
  std::string device_, name_ = "cuda domains";
  DomainGrid grid_;
  DomainP geo_{};
  ShellCellsP cells_{};
  PairTable table_;
  int types_ = 1;
  bool any_sf_ = false;
  static constexpr bool kMixed = std::is_same_v<R, double> && std::is_same_v<P, float>;
  bool use_fixed_ = false;  // mixed's fixed-point pair displacements (PAIRWISE_MD_FIXED=0: off)
  int list_min_blocks_ = kListMinBlocks;         // domain_list (PAIRWISE_MD_LIST_MINB)
  int force_min_blocks_ = kMixedForceMinBlocks;  // mixed's domain_forces (PAIRWISE_MD_FORCE_MINB)
  // The overlapped step (PAIRWISE_MD_OVERLAP): the interior and boundary atoms (build_list).
  bool overlap_ = false;
  bool early_forward_ = true;      // PAIRWISE_MD_EARLY_FORWARD (see the constructor)
  engine::PinnedBuffer top_host_;  // the rebuild test's top-2 displacements (an async copy)
  cudaEvent_t top_ready_ = nullptr;
  cudaStream_t interior_stream_ = nullptr;
  cudaEvent_t kicked_ = nullptr, interior_done_ = nullptr;
  DeviceArray<unsigned char> split_;
  DeviceArray<int> interior_, boundary_;
  std::size_t n_interior_ = 0, n_boundary_ = 0;
  // The local atoms' cell-order sort (migrate): `sort_every` steps apart, or every
  // resort_every_-th rebuild (PAIRWISE_MD_RESORT; 0: unset); the re-sorts done at rebuilds.
  int resort_every_ = 0, rebuilds_since_sort_ = 0;
  std::uint64_t steps_since_sort_ = 0;
  long long resorts_ = 0;
  FixedP fixed_p_{};
  DeviceArray<int4> fixed_;  // the held atoms' fixed-point positions (use_fixed_)
  // Mixed's rebuild test from the fixed-point copies (domain_kick_drift's x0_fixed; with
  // use_fixed_ unless PAIRWISE_MD_FIXED_X0=0): the local atoms' copies at the last rebuild.
  bool fixed_x0_ = false;
  DeviceArray<int4> x0_fixed_;
  double r_list_ = 0;
  std::size_t total_ = 0, n_ = 0, held_ = 0;
  std::vector<std::uint32_t> ids_;  // by set_state slot (every rank reads the whole system)
  int capacity_ = 0;
  int list_blocks_ = 0;  // list_blocks()
  EngineStats stats_;
  // Local atoms [0, n_) (pos_ and slot_: then the ghosts up to held_).
  DeviceArray<R4> pos_, vel_, force_, x0_;
  DeviceArray<int4> image_;
  DeviceArray<unsigned> id_;
  DeviceArray<int> slot_;
  // Ghost exchange: the kept send lists, their lengths and the received counts per stage.
  DeviceArray<int> send_[3][2];
  std::size_t sent_[3][2] = {}, received_[3][2] = {};
  DeviceArray<R4> send_pos_;
  DeviceArray<int> send_slot_, iota_;
  // The device ghost stages (exchange_ghosts_on_device; PAIRWISE_MD_GHOSTS=host: the host
  // stages).
  bool device_ghosts_ = true;
  std::size_t ghost_capacity_ = 0;  // at least this many held atoms (after an overflow)
  // The atoms a side's message of a stage across ranks holds (the same on every rank: set from
  // all-reduced counts; 0: not yet estimated), kMessageSlack times the longest side seen; the
  // neighbours' messages land in recv_pos_ and recv_slot_ before ghost_stage_receive.
  static constexpr double kMessageSlack = 1.25;
  std::size_t message_capacity_ = 0;
  DeviceArray<R4> recv_pos_;
  DeviceArray<int> recv_slot_;
  // The ghost slots' estimate over the shell's volume (PAIRWISE_MD_GHOST_SLACK; 0 in a test: the
  // first stages overflow, grow and are redone).
  double ghost_slack_ = 1.1;
  DeviceArray<GhostCounts> ghost_counts_;
  DeviceArray<unsigned char> sides_;
  DeviceArray<int2> ghost_blocks_;
  // The forward positions of the device stages' ghosts in one launch (forward_own_ghosts, from
  // each ghost's local atom and shifts in origin_; PAIRWISE_MD_FORWARD=stages: a launch a stage):
  // own_stages_, the stages it covers since the last rebuild (0: none).
  bool compose_forward_ = true;
  int own_stages_ = 0;
  DeviceArray<int2> origin_;
  // The cell lists by counting sort (sort_by_cell; PAIRWISE_MD_CELL_SORT=radix: cub's radix sort).
  bool radix_cells_ = false;
  DeviceArray<int> cell_count_;
  std::size_t iota_filled_ = 0;
  // Migration.
  DeviceArray<Record> moves_a_, moves_b_, send_moves_;
  // migrate_across_ranks: the device counts, and the records a way's message holds (the same on
  // every rank: set from all-reduced counts; 0: not yet estimated).
  DeviceArray<MigrationCounts> migration_counts_;
  std::size_t migration_message_ = 0;
  DeviceArray<unsigned char> flags_;
  DeviceArray<int> leave_down_, leave_up_, holes_, fillers_;  // the migration's index lists
  DeviceArray<int2> leaver_blocks_;                           // leaver_flags' block counts
  // Cell list and neighbour list.
  DeviceArray<int> keys_, index_, sorted_keys_, order_, start_, nbr_, nbr_count_;
  DeviceArray<R4> cell_pos_;  // the held atoms' positions in cell order (the build's candidates)
  // Mixed's float lists (PAIRWISE_MD_FLOAT_LISTS=0: the double tests): the candidates as float
  // offsets from the shell's corner, the band of r_list decided in double (domain_list, Exact).
  bool float_lists_ = false;
  DeviceArray<float4> cell_pos_f_;
  // Reductions, counters (0-2 selections or the migration's counts, 3 far atom, 4 overflow, 5 the
  // list build's next cell), CUB's scratch.
  DeviceArray<double2> top2_;
  DeviceArray<double2> rank_top2_;  // every rank's merged top-2 (the batched steps across ranks)
  // The batched steps (advance_batched): steps a batch (PAIRWISE_MD_BATCH; 1: the per-step host
  // test), the device's stop flag and the step it fired at.
  int batch_ = kDefaultBatch;
  bool batch_ranks_ = false;  // PAIRWISE_MD_BATCH_RANKS=1: batched steps across ranks
  // Steps since the last rebuild in advance_batched, and the steps between the last two (a
  // rebuild's step counted in the interval it ends): the next batch's length.
  int since_ = 0, last_interval_ = 1 << 20;
  DeviceArray<int> stop_;
  DeviceArray<double> partial_, result_;
  DeviceArray<int> counters_;
  DeviceArray<char> scratch_;
  // PAIRWISE_MD_PROFILE=1: host-timed phases (stream synchronized between them).
  bool profile_ = false;
  double t_step_ = 0, t_test_ = 0, t_forward_ = 0, t_rebuild_ = 0;
  double t_phase_[4] = {0, 0, 0, 0};  // rebuilds: migration, ghosts, cell list, neighbour lists
  // PAIRWISE_MD_PROFILE: host time between marks, the stream synchronized at each.
  struct LapClock {
    std::chrono::steady_clock::time_point mark = std::chrono::steady_clock::now();
    double lap(cudaStream_t s) {  // seconds since the last lap (or the clock's start)
      PW_CUDA(cudaStreamSynchronize(s));
      const auto now = std::chrono::steady_clock::now();
      const double seconds = std::chrono::duration<double>(now - mark).count();
      mark = now;
      return seconds;
    }
  };
  // PAIRWISE_MD_PROFILE: the migration's parts (across the ranks, the re-sort), a lap of
  // migration_clock_ each.
  double t_migration_[2] = {0, 0};
  LapClock migration_clock_;
  // PAIRWISE_MD_PROFILE: GPU time (events) of the rebuild's selection kernels, spans kSpanNames.
  static constexpr int kSpans = 6;
  // The fourth: every ghost stage on the device, their messages included; the last two: the host
  // stages' flags (ghost_flags) and selections (the two DeviceSelects; PAIRWISE_MD_GHOSTS=host).
  static constexpr const char* kSpanNames[kSpans] = {"leaver_flags",     "leaver_scan",
                                                     "leaver_place",     "ghost stages",
                                                     "host ghost flags", "host ghost selections"};
  double t_span_[kSpans] = {};
  cudaEvent_t span_events_[2] = {nullptr, nullptr};
  // `launch` (work on stream_) timed by events into t_span_[k] when profiling a rebuild (the
  // stream synchronized at its end), else just run; a span inside another runs untimed (its
  // time is in the outer one's).
  template <class F>
  void span(int k, F&& launch) {
    if (!timing_rebuild_ || in_span_) return launch();
    in_span_ = true;
    if (!span_events_[0]) {
      PW_CUDA(cudaEventCreate(&span_events_[0]));
      PW_CUDA(cudaEventCreate(&span_events_[1]));
    }
    PW_CUDA(cudaEventRecord(span_events_[0], stream_));
    launch();
    in_span_ = false;
    PW_CUDA(cudaEventRecord(span_events_[1], stream_));
    PW_CUDA(cudaEventSynchronize(span_events_[1]));
    float ms = 0;
    PW_CUDA(cudaEventElapsedTime(&ms, span_events_[0], span_events_[1]));
    t_span_[k] += 1e-3 * ms;
  }
  bool timing_rebuild_ = false;  // profiling this rebuild's migration and ghost stages
  bool in_span_ = false;         // span() is timing a launch
  void mark_migration(int k) {
    if (timing_rebuild_) t_migration_[k] += migration_clock_.lap(stream_);
  }
  long long timed_steps_ = 0, timed_rebuilds_ = 0;
};

}  // namespace

std::unique_ptr<MdEngine> make_cuda_domain_engine(const EngineOptions& o,
                                                  parallel::Communicator& comm) {
  switch (o.precision) {
    case Precision::single:
      return std::make_unique<CudaDomainEngine<float, float, float>>(o, comm);
    case Precision::mixed:
      return std::make_unique<CudaDomainEngine<double, float, double>>(o, comm);
    case Precision::double_:
      return std::make_unique<CudaDomainEngine<double, double, double>>(o, comm);
  }
  throw Error("unknown precision");
}

}  // namespace pairwise::md
