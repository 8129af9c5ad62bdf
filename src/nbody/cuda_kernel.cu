// The cuda backend of GravityKernel: device memory, transfers and the launch sequence.
//
// Memory on the device (N particles):
//   master state  14 double arrays (m, x, v, a, jerk, t_last)             112 N bytes
//   j arrays      pos (+ lo) + vel: 32 N (single), 48 N (mixed), 64 N (double) bytes
//   results       up to 13 doubles per target (forces + predicted x, v)   104 N bytes
//   partial sums  kComponents × splits × targets accumulators (capped, see kMaxPartialBytes),
//                 in the all-pairs engine's workspace (engine/device_buffer.cuh)
// Host↔device traffic per block step is O(n_active): the active list and results go one way, the
// corrected values the other; every particle is predicted on the device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "engine/device_buffer.cuh"
#include "nbody/backends.hpp"
#include "nbody/cuda_formula.cuh"
#include "nbody/cuda_formula_split.cuh"
#include "nbody/cuda_formula_split.hpp"
#include "nbody/cuda_gravity.cuh"
#include "nbody/cuda_ranks.hpp"
#include "nbody/custom_gravity.hpp"
#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"
#include "parallel/gpu_collectives.hpp"

namespace pairwise::nbody {
namespace {

using cuda::ForceArgs;
using cuda::ForcePlan;
using cuda::MasterState;

constexpr std::size_t kMaxPartialBytes = std::size_t(256) << 20;

using engine::DeviceBuffer;
using engine::PinnedBuffer;

class CudaGravityKernel final : public GravityKernel, public RankSharedEvaluations {
 public:
  explicit CudaGravityKernel(const KernelOptions& options) : options_(options) {
    std::string why;
    const auto devices = cuda_devices(&why);
    const auto it = std::find_if(devices.begin(), devices.end(),
                                 [&](const DeviceInfo& d) { return d.index == options.device; });
    if (it == devices.end())
      throw Error("CUDA device " + std::to_string(options.device) + " is not usable" +
                      (why.empty() ? std::string() : ": " + why),
                  "backend");
    info_ = *it;
    PW_CUDA(cudaSetDevice(options.device));
    PW_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    PW_CUDA(cudaEventCreate(&start_));
    PW_CUDA(cudaEventCreate(&stop_));
    PW_CUDA(cudaEventCreateWithFlags(&commit_done_, cudaEventDisableTiming));
    PW_CUDA(cudaEventRecord(commit_done_, stream_));
    // A custom potential: kernels with its pair term, compiled at run time (run_forces): the
    // Newton-3 kernels for full evaluations in single and mixed precision, the split path for
    // double precision and for listed targets (block steps, ranges) in every precision.
    if (options.custom) formula_ = std::make_unique<cuda::FormulaKernels>(*options.custom);
    // Refuse a known-too-large problem before the caller builds its particles on the host.
    if (options.expected_n > 0) check_memory(options.expected_n);
  }
  ~CudaGravityKernel() override {
    cudaStreamSynchronize(stream_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaEventDestroy(commit_done_);
    cudaStreamDestroy(stream_);
  }

  std::string device_name() const override {
    return "cuda: " + info_.name +
           (options_.custom ? ", custom potential " + options_.custom->text() : std::string());
  }
  BackendKind backend() const override { return BackendKind::cuda; }
  Precision precision() const override { return options_.precision; }

  void set_particles(const Particles& p) override {
    PW_CUDA(cudaSetDevice(options_.device));
    check_memory(p.size());
    if (int(p.size()) != n_) order_valid_ = false;
    n_ = int(p.size());
    plans_.clear();
    split_plans_.clear();
    host_m_ = p.m;
    equal_mass_ = !p.m.empty() && p.m.front() > 0.0 &&
                  std::all_of(p.m.begin(), p.m.end(), [&](double m) { return m == p.m.front(); });
    state_buf_.reserve(sizeof(double) * cuda::kStateArrays * std::max(n_, 1));
    for (int a = 0; a < cuda::kStateArrays; ++a)
      state_.p[a] = state_buf_.as<double>() + std::size_t(a) * std::max(n_, 1);
    const std::vector<double>* src[] = {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
    for (int a = 0; a < 7; ++a)
      PW_CUDA(cudaMemcpyAsync(state_.p[a], src[a]->data(), sizeof(double) * n_,
                              cudaMemcpyHostToDevice, stream_));
    // Zero Hermite terms until set_hermite_terms: prediction is then the identity.
    PW_CUDA(
        cudaMemsetAsync(state_.p[cuda::kAx_], 0, sizeof(double) * 7 * std::max(n_, 1), stream_));
    const std::size_t j_bytes = (options_.precision == Precision::double_ ? 32 : 16);
    jpos_.reserve(j_bytes * std::max(n_, 1));
    jvel_.reserve(j_bytes * std::max(n_, 1));
    if (options_.precision == Precision::mixed) jlo_.reserve(16 * std::max(n_, 1));
    build_j(false, 0.0);
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  void compute(ForceKind kind, Forces& out) override {
    const bool jerk = kind == ForceKind::accel_jerk;
    out.resize(n_, jerk);
    if (n_ == 0) return;
    ensure_master_j(spatial_order(jerk, true));
    if (gpu_ && splits_evaluation(kind))
      run_shared_newton3(jerk);
    else
      run_forces(jerk, true, nullptr, n_, false, 0.0);
    download_forces(jerk, n_, out);
  }

  // The targets [begin, end) from every source, on the split path (its target index holds them).
  void compute_range(ForceKind kind, std::size_t begin, std::size_t end, Forces& out) override {
    const bool jerk = kind == ForceKind::accel_jerk;
    const int n_i = int(end - begin);
    if (n_i == n_) return compute(kind, out);  // (the plan cache keys on n_i: keep full plans)
    out.resize(n_i, jerk);
    if (n_i == 0) return;
    ensure_master_j(false);
    std::vector<int> targets(n_i);
    std::iota(targets.begin(), targets.end(), int(begin));
    range_index_.reserve(sizeof(int) * n_i);
    PW_CUDA(cudaMemcpyAsync(range_index_.as<int>(), targets.data(), sizeof(int) * n_i,
                            cudaMemcpyHostToDevice, stream_));
    run_forces(jerk, true, range_index_.as<int>(), n_i, false, 0.0);
    download_forces(jerk, n_i, out);
  }

  // ---- many ranks (nbody/cuda_ranks.hpp) ----
  void share_across_ranks(parallel::Communicator& comm, parallel::GpuCollectives& gpu) override {
    comm_ = &comm;
    gpu_ = &gpu;
  }
  bool splits_evaluation(ForceKind kind) override {
    if (n_ == 0) return false;
    if (formula_) return formula_newton3();
    return plan_for(kind == ForceKind::accel_jerk, true, nullptr, n_).newton3;
  }

  // The first n_rows rows of results_ (forces, finalized) to `out`.
  void download_forces(bool jerk, int n_rows, Forces& out) {
    const int n_comp = jerk ? 7 : 4;
    host_.reserve(sizeof(double) * n_comp * n_rows);
    PW_CUDA(cudaMemcpyAsync(host_.as<double>(), results_.as<double>(),
                            sizeof(double) * n_comp * n_rows, cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    const double* h = host_.as<double>();
    std::vector<double>* dst[] = {&out.ax, &out.ay, &out.az, &out.pot, &out.jx, &out.jy, &out.jz};
    for (int c = 0; c < n_comp; ++c)
      std::memcpy(dst[c]->data(), h + std::size_t(c) * n_rows, sizeof(double) * n_rows);
  }

  // A full Newton-3 evaluation shared by the ranks (nbody/cuda_ranks.hpp): this rank's tiles, its
  // partial sums finalized to double (rank 0 alone removes the self term of φ), then summed across
  // ranks on the device.
  void run_shared_newton3(bool jerk) {
    const int k_i = formula_ ? (jerk ? 4 : 8) : plan_for(jerk, true, nullptr, n_).i_per_thread;
    const long long tiles = engine::triangle_tiles((n_ + 32 * k_i - 1) / (32 * k_i));
    const int p = comm_->size(), r = comm_->rank();
    auto cut = [&](int q) {  // rank q's first tile: a multiple of a block's warps
      return q >= p ? tiles : tiles * q / p / cuda::kNewton3Warps * cuda::kNewton3Warps;
    };
    share_ = TileShare{cut(r), cut(r + 1) - cut(r), r == 0};
    run_forces(jerk, true, nullptr, n_, false, 0.0);
    share_ = TileShare{};
    gpu_->allreduce_sum(results_.as<double>(), std::size_t(jerk ? 7 : 4) * std::size_t(n_),
                        stream_);
  }

  void set_hermite_terms(const HermiteTerms& terms) override {
    if (int(terms.size()) != n_)
      throw Error("set_hermite_terms: " + std::to_string(terms.size()) + " entries for " +
                  std::to_string(n_) + " particles");
    const std::vector<double>* src[] = {&terms.ax, &terms.ay, &terms.az, &terms.jx,
                                        &terms.jy, &terms.jz, &terms.t};
    for (int a = 0; a < 7; ++a)
      PW_CUDA(cudaMemcpyAsync(state_.p[cuda::kAx_ + a], src[a]->data(), sizeof(double) * n_,
                              cudaMemcpyHostToDevice, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  void predict_and_compute(double t, std::span<const int> active, Forces& out,
                           Particles& predicted) override {
    const int n_a = int(active.size());
    out.resize(n_a, true);
    predicted.resize(n_a);
    if (n_a == 0) return;
    // Active list up (n_a ints), results down (13 n_a doubles): O(n_active) traffic.
    host_.reserve(std::max(sizeof(double) * 13 * n_a, sizeof(int) * n_a));
    active_.reserve(sizeof(int) * n_a);
    std::memcpy(host_.as<int>(), active.data(), sizeof(int) * n_a);
    PW_CUDA(cudaMemcpyAsync(active_.as<int>(), host_.as<int>(), sizeof(int) * n_a,
                            cudaMemcpyHostToDevice, stream_));
    // (Not on the small-problem path, which keeps the particles' own order.)
    if (!formula_ && cuda::near_far_groups(options_.precision, n_) &&
        !plan_for(true, true, active_.as<int>(), n_a, true).small) {
      // Mixed near/far source groups (cuda_gravity.cu, GravityPolicy): every particle predicted
      // into the j arrays in a spatial order, each 32-source group's box, and the targets sorted
      // by their entries (their results still go to their places in `active`).
      update_order();
      build_j(true, t, true);
      boxes_.reserve(cuda::group_boxes_bytes(n_));
      cuda::launch_group_boxes(jpos_.as<void>(), n_, boxes_.as<void>(), stream_);
      sorted_active_.reserve(2 * sizeof(int) * n_a);
      sort_scratch_.reserve(cuda::sorted_targets_bytes(n_a));
      int* const entries = sorted_active_.as<int>();
      cuda::sorted_targets(active_.as<int>(), n_a, inverse_.as<int>(), n_, entries, entries + n_a,
                           sort_scratch_.as<void>(), stream_);
      j_is_master_ = false;
      run_forces(true, true, entries, n_a, true, t, entries + n_a);
    } else {
      // Predict all N on the device (in particle order: the split path, for custom potentials
      // too).
      build_j(true, t);
      j_is_master_ = false;
      run_forces(true, true, active_.as<int>(), n_a, true, t);
    }
    PW_CUDA(cudaMemcpyAsync(host_.as<double>(), results_.as<double>(), sizeof(double) * 13 * n_a,
                            cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    const double* h = host_.as<double>();
    std::vector<double>* dst[] = {&out.ax,      &out.ay,      &out.az,       &out.pot,
                                  &out.jx,      &out.jy,      &out.jz,       &predicted.x,
                                  &predicted.y, &predicted.z, &predicted.vx, &predicted.vy,
                                  &predicted.vz};
    for (int c = 0; c < 13; ++c)
      std::memcpy(dst[c]->data(), h + std::size_t(c) * n_a, sizeof(double) * n_a);
    masses_for(active, predicted.m);
  }

  void commit(std::span<const int> active, const Particles& corrected,
              const HermiteTerms& terms) override {
    const int n_a = int(active.size());
    if (n_a == 0) return;
    // One upload: 13 rows of doubles then the indices.
    const std::size_t rows_bytes = sizeof(double) * cuda::kCommitRows * n_a;
    const std::size_t bytes = rows_bytes + sizeof(int) * n_a;
    // The staging buffers are reused: wait until the previous commit's copy has left them.
    PW_CUDA(cudaEventSynchronize(commit_done_));
    commit_host_.reserve(bytes);
    commit_dev_.reserve(bytes);
    double* h = commit_host_.as<double>();
    const std::vector<double>* src[] = {&corrected.x,  &corrected.y,  &corrected.z, &corrected.vx,
                                        &corrected.vy, &corrected.vz, &terms.ax,    &terms.ay,
                                        &terms.az,     &terms.jx,     &terms.jy,    &terms.jz,
                                        &terms.t};
    for (int r = 0; r < cuda::kCommitRows; ++r)
      std::memcpy(h + std::size_t(r) * n_a, src[r]->data(), sizeof(double) * n_a);
    std::memcpy(reinterpret_cast<char*>(h) + rows_bytes, active.data(), sizeof(int) * n_a);
    PW_CUDA(cudaMemcpyAsync(commit_dev_.as<char>(), h, bytes, cudaMemcpyHostToDevice, stream_));
    cuda::launch_commit(state_, commit_dev_.as<double>(),
                        reinterpret_cast<const int*>(commit_dev_.as<char>() + rows_bytes), n_a,
                        stream_);
    PW_CUDA(cudaEventRecord(commit_done_, stream_));
    j_is_master_ = false;  // the j arrays no longer match the master state
    // No wait here: the next call on the stream is ordered after the scatter.
  }

  // The path of a full evaluation (planned as run_forces plans it).
  std::string force_path(bool jerk) {
    if (n_ == 0) return "none";
    if (formula_ && formula_newton3())
      return std::string("newton3 formula kI=") + (jerk ? "4" : "8") +
             (formula_unit() ? " equal-mass" : "") + mixed_positions(true);
    if (formula_) {
      const ForcePlan p = formula_split_plan(jerk, true, n_);
      return "split formula kI=" + std::to_string(p.i_per_thread) + " q=" + std::to_string(p.q) +
             " splits=" + std::to_string(p.splits);
    }
    const ForcePlan p = cuda::plan_forces(options_.precision, jerk, true, n_, n_,
                                          info_.multiprocessors, kMaxPartialBytes, true);
    const std::string tile = " kI=" + std::to_string(p.i_per_thread);
    if (p.newton3)
      return "newton3" + tile + (cuda::newton3_equal_mass(equal_mass_) ? " equal-mass" : "") +
             mixed_positions();
    if (p.small) return "small" + tile;
    return "split" + tile + " q=" + std::to_string(p.q) + " splits=" + std::to_string(p.splits);
  }

  // The newton3::PositionMode of this kernel's Newton-3 evaluations (custom ones when `formula`):
  // near/far is the built-in kernels' alone and never a rank's share's, which take double-single.
  int position_mode(bool formula) const {
    const int mode = cuda::newton3_position_mode(options_.precision, n_);
    return mode == cuda::newton3::kMixedFar && (formula || share_.count >= 0)
               ? cuda::newton3::kMixedDs
               : mode;
  }

  // Mixed Newton-3 positions, for benchmark records.
  std::string mixed_positions(bool formula = false) const {
    if (options_.precision != Precision::mixed) return "";
    switch (position_mode(formula)) {
      case cuda::newton3::kMixedGroup:
        return " group-origins";
      case cuda::newton3::kMixedFar:
        return " near-far";
      default:
        return " double-single";
    }
  }

  double formula_compile_seconds() const { return formula_ ? formula_->compile_seconds() : -1.0; }

  double time_compute(ForceKind kind, int repeats) override {
    return time_forces(kind == ForceKind::accel_jerk, true, repeats);
  }

  // Events around each of `repeats` back-to-back evaluations (one launch each), no transfers.
  // Shared by ranks (share_across_ranks): this rank's tiles, the all-reduce and the finalize.
  double time_forces(bool jerk, bool potential, int repeats) {
    if (n_ == 0) return 0.0;
    ensure_master_j(spatial_order(jerk, potential));
    const bool shared =
        potential && gpu_ && splits_evaluation(jerk ? ForceKind::accel_jerk : ForceKind::accel);
    auto evaluate = [&] {
      if (shared)
        run_shared_newton3(jerk);
      else
        run_forces(jerk, potential, nullptr, n_, false, 0.0);
    };
    repeats = std::max(repeats, 1);
    for (int w = 0; w < 2; ++w) evaluate();  // warm-up
    std::vector<cudaEvent_t> events(repeats + 1);
    for (auto& e : events) PW_CUDA(cudaEventCreate(&e));
    PW_CUDA(cudaEventRecord(events[0], stream_));
    for (int r = 0; r < repeats; ++r) {
      evaluate();
      PW_CUDA(cudaEventRecord(events[r + 1], stream_));
    }
    PW_CUDA(cudaEventSynchronize(events[repeats]));
    std::vector<double> seconds(repeats);
    for (int r = 0; r < repeats; ++r) {
      float ms = 0;
      PW_CUDA(cudaEventElapsedTime(&ms, events[r], events[r + 1]));
      seconds[r] = ms * 1e-3;
    }
    for (auto& e : events) cudaEventDestroy(e);
    std::nth_element(seconds.begin(), seconds.begin() + repeats / 2, seconds.end());
    return seconds[repeats / 2];
  }

 private:
  // Bytes the device needs for N particles (everything but the capped partial sums counted
  // exactly); throws the DESIGN.md out-of-memory message when they exceed the free memory.
  void check_memory(std::size_t n_particles) {
    const std::size_t n = std::max<std::size_t>(n_particles, 1);
    const std::size_t j_bytes = options_.precision == Precision::double_ ? 64
                                : options_.precision == Precision::mixed ? 48
                                                                         : 32;
    const std::size_t partial_estimate =
        std::min(kMaxPartialBytes, std::size_t(cuda::kComponents) * 8 * n * 4);
    // Single and mixed precision: the Newton-3 path's exact accumulator (and mixed's second-level
    // sums, at most 16 blocks of 4 warps a multiprocessor).
    const std::size_t exact_bytes =
        options_.precision != Precision::double_
            ? cuda::newton3_exact_bytes(
                  int(std::min<std::size_t>(n, std::numeric_limits<int>::max())),
                  options_.precision == Precision::mixed ? 16 * info_.multiprocessors : 0)
            : 0;
    const std::size_t need =
        (8 * cuda::kStateArrays + j_bytes + 8 * 13) * n + partial_estimate + exact_bytes;
    std::size_t free_b = 0, total_b = 0;
    PW_CUDA(cudaMemGetInfo(&free_b, &total_b));
    const std::size_t held = state_buf_.bytes() + jpos_.bytes() + jvel_.bytes() + jlo_.bytes() +
                             results_.bytes() + workspace_.bytes() + exact_.bytes();
    if (need > free_b + held || n_particles > std::size_t(std::numeric_limits<int>::max()))
      throw Error("problem too large for GPU memory: " + std::to_string(n_particles) +
                      " particles need " + std::to_string(need) + " bytes, " +
                      std::to_string(free_b + held) + " bytes free on " + info_.name,
                  "cuda backend");
  }

  void build_j(bool predict, double t, bool sorted = false) {
    cuda::BuildArgs b;
    b.inverse = sorted ? inverse_.as<int>() : nullptr;
    b.precision = options_.precision;
    b.state = state_;
    b.n = n_;
    b.predict = predict;
    b.t = t;
    b.jpos = jpos_.as<void>();
    b.jlo = jlo_.as<void>();
    b.jvel = jvel_.as<void>();
    b.stream = stream_;
    if (n_ > 0) cuda::launch_build_j(b);
    j_is_master_ = !predict;
    j_sorted_ = sorted;
  }

  // The j arrays of the master state, in spatial order when `sorted`.
  void ensure_master_j(bool sorted) {
    if (j_is_master_ && j_sorted_ == sorted) return;
    if (sorted) update_order();
    build_j(false, 0.0, sorted);
  }

  // Mixed-precision Newton-3 evaluations with group origins or near/far tile pairs take the
  // particles in a spatial order (cuda_newton3_kernel.cuh); double-single does not (its 256-source
  // float sums are less accurate in a spatial order).
  bool spatial_order(bool jerk, bool potential) {
    const int mode = position_mode(formula_ != nullptr);
    if (n_ == 0 || (mode != cuda::newton3::kMixedGroup && mode != cuda::newton3::kMixedFar))
      return false;
    if (formula_) return formula_newton3();
    return plan_for(jerk, potential, nullptr, n_).newton3;
  }

  // The Morton order of the master state (cuda::morton_order), recomputed after kResortEvery uses:
  // positions drift slowly, and a stale order costs accuracy only, never correctness.
  static constexpr int kResortEvery = 16;
  void update_order() {
    if (order_valid_ && ++order_uses_ < kResortEvery) return;
    order_.reserve(sizeof(int) * std::max(n_, 1));
    inverse_.reserve(sizeof(int) * std::max(n_, 1));
    keys_.reserve(sizeof(unsigned) * std::max(n_, 1));
    cuda::morton_order(state_, n_, order_.as<int>(), inverse_.as<int>(), keys_.as<unsigned>(),
                       stream_);
    order_valid_ = true;
    order_uses_ = 0;
  }

  // The plan of an evaluation of n_i targets (cached per (kind, n_i): planning queries occupancy,
  // which would otherwise add host time between back-to-back launches).
  // near_far: the split path's kernels with near/far source groups (block steps).
  const ForcePlan& plan_for(bool jerk, bool potential, const int* i_index, int n_i,
                            bool near_far = false) {
    const long long key = (static_cast<long long>(n_i) << 3) | (near_far ? 4 : 0) | (jerk ? 2 : 0) |
                          (potential ? 1 : 0);
    auto it = plans_.find(key);
    if (it == plans_.end())
      it = plans_
               .emplace(key, cuda::plan_forces(options_.precision, jerk, potential, n_i, n_,
                                               info_.multiprocessors, kMaxPartialBytes,
                                               i_index == nullptr, near_far))
               .first;
    return it->second;
  }

  // Forces on n_i targets (i_index or 0..n_i-1) into results_ (finalized, double). i_slot (block
  // steps with near/far source groups: the targets sorted by entry, the j arrays in a spatial order
  // with their boxes in boxes_): where target k's results go (ForceArgs::i_slot).
  void run_forces(bool jerk, bool potential, const int* i_index, int n_i, bool predict, double t,
                  const int* i_slot = nullptr) {
    if (formula_) {
      if (i_index == nullptr && formula_newton3()) return run_formula(jerk, potential, n_i);
      return run_formula_split(jerk, potential, i_index, n_i, predict, t);
    }
    const bool guard = !(options_.eps2 > 0.0);
    const bool near_far = i_slot != nullptr;
    plan_ = plan_for(jerk, potential, i_index, n_i, near_far);
    if (plan_.newton3) {
      const std::size_t bytes = cuda::newton3_exact_bytes(n_, level2_blocks(plan_.i_blocks));
      if (bytes > exact_.bytes()) {  // zeroed once; every evaluation leaves it zeroed
        exact_.reserve(bytes);
        PW_CUDA(cudaMemsetAsync(exact_.as<void>(), 0, exact_.bytes(), stream_));
      }
    } else {
      workspace_.prepare(plan_, cuda::partial_bytes(options_.precision, plan_, n_i), stream_);
    }
    results_.reserve(sizeof(double) * 13 * n_i);
    ForceArgs a;
    a.precision = options_.precision;
    a.jerk = jerk;
    a.potential = potential;
    a.guard_zero = guard;
    a.equal_mass = equal_mass_;
    a.jpos = jpos_.as<void>();
    a.jlo = jlo_.as<void>();
    a.jvel = jvel_.as<void>();
    a.n_j = n_;
    a.i_index = i_index;
    a.i_slot = i_slot;
    a.boxes = near_far ? boxes_.as<void>() : nullptr;
    a.n_i = n_i;
    a.eps2 = options_.eps2;
    a.partial = workspace_.partial();
    a.tickets = workspace_.tickets();
    a.exact = exact_.as<unsigned long long>();
    a.plan = plan_;
    a.order = j_sorted_ ? order_.as<int>() : nullptr;
    a.tile_begin = share_.begin, a.tile_count = share_.count, a.remove_self = share_.remove_self;
    a.out = results_.as<double>();
    a.state = state_;
    a.predict = predict;
    a.t = t;
    a.stream = stream_;
    cuda::launch_forces(a);
  }

  // The equal-mass Newton-3 kernels with a custom pair term: only when the formula vanishes at the
  // unit-mass pads (r² = +inf).
  bool formula_unit() const {
    return equal_mass_ && formula_->vanishes_at_infinity() && cuda::newton3_equal_mass(true);
  }

  // Full evaluations of a custom potential take its Newton-3 kernels in single and mixed precision;
  // double precision and listed targets take the split path (run_formula_split).
  bool formula_newton3() const { return options_.precision != Precision::double_; }

  // The split path's plan for a custom potential (the engine's planner with gravity's costs and
  // the formula kernel's occupancy), cached per (kind, n_i) as plan_for's.
  const ForcePlan& formula_split_plan(bool jerk, bool potential, int n_i) {
    const long long key = (static_cast<long long>(n_i) << 2) | (jerk ? 2 : 0) | (potential ? 1 : 0);
    auto it = split_plans_.find(key);
    if (it != split_plans_.end()) return it->second;
    const cuda::FormulaKernels::Kernel k = formula_->split(options_.precision, jerk, potential);
    const engine::AllPairsCostModel model = formula_split_model(jerk, k.blocks_per_sm);
    return split_plans_
        .emplace(key, ForcePlan(engine::plan_all_pairs(model, n_i, n_, info_.multiprocessors,
                                                       kMaxPartialBytes)))
        .first->second;
  }
  engine::AllPairsCostModel formula_split_model(bool jerk, int blocks_per_sm) const {
    engine::AllPairsCostModel model;
    model.per_pair = jerk ? 28.0 : 14.2;  // gravity's (cuda_gravity.cu); the formula's cost aside
    model.loads_per_source = jerk ? 2.0 : 1.0;
    model.components = jerk ? 7 : 4;
    model.partial_bytes_per_target =
        std::size_t(model.components) * (options_.precision == Precision::single ? 4 : 8);
    model.shapes = {{cuda::formula_split_tile(options_.precision), blocks_per_sm, 1.0}};
    return model;
  }

  // A custom potential on the split path: the targets i_index (nullptr: all n_i = N) against every
  // source (the j arrays as built: master or predicted), with their predicted x, v when `predict`,
  // into results_.
  void run_formula_split(bool jerk, bool potential, const int* i_index, int n_i, bool predict,
                         double t) {
    const cuda::FormulaKernels::Kernel k = formula_->split(options_.precision, jerk, potential);
    const ForcePlan plan = formula_split_plan(jerk, potential, n_i);
    workspace_.prepare(
        plan,
        engine::all_pairs_partial_bytes(formula_split_model(jerk, k.blocks_per_sm), plan, n_i),
        stream_);
    results_.reserve(sizeof(double) * 13 * std::max(n_i, 1));
    cuda::FormulaSplitArgs a;
    a.n_i = n_i;
    a.n_j = n_;
    a.plan = plan;
    a.partial = workspace_.partial();
    a.tickets = workspace_.tickets();
    a.jpos = jpos_.as<void>();
    a.jlo = jlo_.as<void>();
    a.jvel = jvel_.as<void>();
    a.i_index = i_index;
    a.out = results_.as<double>();
    for (int d = 0; d < 3; ++d) {
      a.x[d] = state_.p[cuda::kX + d];
      a.v[d] = state_.p[cuda::kVx + d];
      a.a[d] = state_.p[cuda::kAx_ + d];
      a.j[d] = state_.p[cuda::kJx_ + d];
    }
    a.t_last = state_.p[cuda::kT];
    a.predict = predict;
    a.t = t;
    void* params[] = {&a};
    PW_CUDA(cudaLaunchKernel(k.fn, dim3(unsigned(plan.i_blocks) * unsigned(plan.splits)),
                             dim3(engine::kAllPairsThreads), params, 0, stream_));
    PW_CUDA_LAUNCH("gravity all_pairs_kernel (split path, formula)");
  }

  // A custom potential's full Newton-3 evaluation of every particle (single and mixed precision;
  // the j arrays as built: master, possibly in spatial order).
  void run_formula(bool jerk, bool potential, int n_i) {
    const int k_i = jerk ? 4 : 8;
    const bool unit = formula_unit();
    const cuda::FormulaKernels::Kernel k =
        formula_->get(jerk, potential, unit, position_mode(true), k_i);
    const long long nb = (n_ + 32 * k_i - 1) / (32 * k_i);
    const long long tiles = nb * (nb + 1) / 2;
    const int blocks = int(std::max<long long>(
        1, std::min<long long>((long long)k.blocks_per_sm * info_.multiprocessors,
                               (tiles + cuda::kNewton3Warps - 1) / cuda::kNewton3Warps)));
    const std::size_t bytes = cuda::newton3_exact_bytes(n_, level2_blocks(blocks));
    if (bytes > exact_.bytes()) {  // zeroed once; every evaluation leaves it zeroed
      exact_.reserve(bytes);
      PW_CUDA(cudaMemsetAsync(exact_.as<void>(), 0, exact_.bytes(), stream_));
    }
    results_.reserve(sizeof(double) * 13 * std::max(n_i, 1));
    ForceArgs a;
    a.precision = options_.precision;
    a.jerk = jerk;
    a.potential = potential;
    a.equal_mass = unit;
    a.jpos = jpos_.as<void>();
    a.jlo = jlo_.as<void>();
    a.jvel = jvel_.as<void>();
    a.n_j = n_;
    a.n_i = n_;
    a.eps2 = options_.eps2;
    a.exact = exact_.as<unsigned long long>();
    a.plan = ForcePlan(engine::AllPairsPlan{1, 1, blocks, k_i, 0}, true);
    a.custom_newton3 = k.fn;
    a.order = j_sorted_ ? order_.as<int>() : nullptr;
    a.state = state_;
    a.stream = stream_;
    a.tile_begin = share_.begin, a.tile_count = share_.count, a.remove_self = share_.remove_self;
    a.out = results_.as<double>();
    cuda::launch_forces(a);
  }

  // The blocks whose second-level sums the exact buffer holds after its words: mixed precision's
  // Newton-3 kernels alone use them (newton3_exact_bytes), so single precision sizes none.
  int level2_blocks(int blocks) const {
    return options_.precision == Precision::mixed ? blocks : 0;
  }

  // Masses never change: a host copy fills `predicted.m`.
  void masses_for(std::span<const int> active, std::vector<double>& m) {
    for (std::size_t k = 0; k < active.size(); ++k) m[k] = host_m_[active[k]];
  }

  KernelOptions options_;
  DeviceInfo info_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr, commit_done_ = nullptr;
  int n_ = 0;
  bool j_is_master_ = false;
  ForcePlan plan_;
  std::map<long long, ForcePlan> plans_;        // valid for the current N; cleared by set_particles
  std::map<long long, ForcePlan> split_plans_;  // a custom potential's split path (the same)
  MasterState state_;
  DeviceBuffer state_buf_, jpos_, jlo_, jvel_, results_, active_, commit_dev_;
  DeviceBuffer exact_;  // the Newton-3 path's exact accumulator (cuda::newton3_exact_bytes)
  engine::AllPairsWorkspace workspace_;  // partial sums and ticket counters of the split path
  PinnedBuffer host_, commit_host_;
  std::vector<double> host_m_;
  bool equal_mass_ = false;                        // every mass the same (ForceArgs::equal_mass)
  std::unique_ptr<cuda::FormulaKernels> formula_;  // a custom potential's kernels
  // Mixed near/far (Newton-3 tiles, block steps' source groups): the spatial order of the
  // particles (cuda::morton_order), its inverse and its sort keys.
  DeviceBuffer order_, inverse_, keys_;
  // Block steps with near/far source groups: the groups' boxes, the targets' entries then slots
  // (cuda::sorted_targets) and its scratch.
  DeviceBuffer boxes_, sorted_active_, sort_scratch_;
  bool order_valid_ = false;
  int order_uses_ = 0;
  bool j_sorted_ = false;  // the j arrays are in order_'s order
  // Many ranks (share_across_ranks): the tiles of the evaluation under way (ForceArgs::tile_*),
  // and the target index of compute_range.
  struct TileShare {
    long long begin = 0, count = -1;
    bool remove_self = true;
  } share_;
  parallel::Communicator* comm_ = nullptr;
  parallel::GpuCollectives* gpu_ = nullptr;
  DeviceBuffer range_index_;
};

}  // namespace

std::unique_ptr<GravityKernel> make_cuda_gravity_kernel(const KernelOptions& options) {
  return std::make_unique<CudaGravityKernel>(options);
}

std::string cuda_force_path(GravityKernel& kernel, bool jerk) {
  auto* cuda_kernel = dynamic_cast<CudaGravityKernel*>(&kernel);
  return cuda_kernel ? cuda_kernel->force_path(jerk) : std::string();
}

double cuda_formula_compile_seconds(GravityKernel& kernel) {
  auto* cuda_kernel = dynamic_cast<CudaGravityKernel*>(&kernel);
  return cuda_kernel ? cuda_kernel->formula_compile_seconds() : -1.0;
}

double cuda_time_accel_without_potential(GravityKernel& kernel, int repeats) {
  auto* cuda_kernel = dynamic_cast<CudaGravityKernel*>(&kernel);
  return cuda_kernel ? cuda_kernel->time_forces(false, false, repeats) : -1.0;
}

}  // namespace pairwise::nbody
