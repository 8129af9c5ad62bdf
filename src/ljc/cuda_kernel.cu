// The cuda backend of LjcKernel: device memory, transfers and the launch sequence
// (pack positions -> tile kernel -> bonds and 1-4 pairs -> finish). Per-tile exclusion masks are
// built on the host once per topology (tile_masks.hpp). A custom non-bonded term ([forcefield]
// custom, issue 13) runs as the same tile kernel with a pair functor generated from its formula
// (cuda_custom_term.hpp), instead of (custom_replaces) or after the built-in one, plus its 1-4
// pairs; its energy is summed apart (LjcForces::custom).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "engine/device_buffer.cuh"
#include "ljc/backends.hpp"
#include "ljc/cuda_custom_term.hpp"
#include "ljc/cuda_ljc.cuh"
#include "ljc/cuda_persistent.cuh"
#include "ljc/tile_masks.hpp"
#include "pairwise/error.hpp"
#include "pairwise/physics/dynamics.hpp"

namespace pairwise::ljc {
namespace {

struct CudaFree {
  void operator()(void* p) const { cudaFree(p); }
};
using DevicePtr = std::unique_ptr<void, CudaFree>;

DevicePtr device_alloc(std::size_t bytes) {
  void* p = nullptr;
  if (bytes == 0) bytes = 16;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("out of GPU memory: the ljc cuda backend needed " + std::to_string(bytes) +
                " more bytes");
  }
  return DevicePtr(p);
}

template <class T>
DevicePtr upload(const std::vector<T>& v) {
  DevicePtr p = device_alloc(v.size() * sizeof(T));
  if (!v.empty())
    PW_CUDA(cudaMemcpy(p.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

// Near/far lists of up to this many tiles a side (n_blocks² / 2 entries of 8 bytes each list:
// 268 MB at 8192, N = 1,048,576 atoms); larger systems run the double-single tiles.
constexpr long long kNearFarMaxBlocks = 8192;
// The default takes the near/far tiles from this many atoms on: at N = 65,536 they ran 1.93
// against 1.63 T N²-pairs/s, at 16,384 1.27 against 1.25 (H200); smaller systems have mostly near
// tiles and the per-call classification would weigh more (not measured there).
constexpr int kNearFarMinAtoms = 16384;

class CudaLjcKernel final : public LjcKernel {
 public:
  explicit CudaLjcKernel(const LjcKernelOptions& o) : options_(o) {
    PW_CUDA(cudaSetDevice(o.device));
    cudaDeviceProp prop{};
    PW_CUDA(cudaGetDeviceProperties(&prop, o.device));
    name_ = std::string("cuda: ") + prop.name;
    if (o.custom) name_ += " + custom term " + o.custom->text();
    sms_ = prop.multiProcessorCount;
    max_tile_warps_ = cuda::max_tile_warps(o.device);
    PW_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    // Mixed's Newton-3 tiles: near/far from kNearFarMinAtoms on by default;
    // PAIRWISE_LJC_MIXED_TILES=double-single keeps the input order and the double-single
    // displacement everywhere, =near-far takes the near/far tiles at every N (for comparisons
    // and tests), and PAIRWISE_LJC_FAR_KAPPA sets the far test's kappa (cuda_tile_args.hpp).
    if (const char* e = std::getenv("PAIRWISE_LJC_MIXED_TILES")) {
      const std::string v = e;
      if (v != "double-single" && v != "near-far")
        throw Error("PAIRWISE_LJC_MIXED_TILES must be 'double-single' or 'near-far', not '" + v +
                    "'");
      near_far_min_atoms_ = v == "near-far" ? 0 : std::numeric_limits<int>::max();
    }
    if (const char* e = std::getenv("PAIRWISE_LJC_FAR_KAPPA")) {
      char* end = nullptr;
      far_kappa_ = std::strtod(e, &end);
      if (end == e || *end != '\0' || !(far_kappa_ > 0))
        throw Error(std::string("PAIRWISE_LJC_FAR_KAPPA must be a number > 0, not '") + e + "'");
    }
  }
  ~CudaLjcKernel() override {
    destroy_graphs();
    cudaStreamDestroy(stream_);
  }

  std::string device_name() const override { return name_; }
  BackendKind backend() const override { return BackendKind::cuda; }
  Precision precision() const override { return options_.precision; }

  // Newton's third law by default: the benchmark measured it faster than the one-sided engine
  // kernel at every N and precision (docs/ljc.md). A custom term runs in the Newton-3 tiles only.
  bool newton3() const { return options_.pair_kernel != PairKernel::one_sided || options_.custom; }
  // Whether the built-in LJ + Coulomb is evaluated (not replaced by a custom term).
  bool builtin_pairs() const { return !options_.custom || !options_.custom->replaces(); }

  void set_system(const Molecule& m, const NonbondedOptions& nb) override {
    destroy_graphs();
    v_.reset(), inv_mass_.reset(), step_.reset();
    system_ = prepare_system(m, nb);
    n_ = static_cast<int>(system_.n);
    const bool n3 = newton3();
    masks_newton3_ = n3;
    // Targets per lane of the Newton-3 tiles: 1 for small N (more warps to fill the GPU), the wide
    // tile (4 in FP32, 2 in FP64: fewer shuffles per pair) from N = 8192 on.
    const int kI = n_ < 8192 ? 1 : (options_.precision == Precision::double_ ? 2 : 4);
    // Every atom the same σ and ε (as in the benchmark system): the tile kernels' unmasked tiles
    // take the pair's LJ parameters from constants instead of mixing the atoms' own.
    uniform_lj_ = n_ > 0;
    for (int i = 1; i < n_ && uniform_lj_; ++i) {
      uniform_lj_ = system_.atoms[i].half_sigma == system_.atoms[0].half_sigma &&
                    system_.atoms[i].sqrt_eps == system_.atoms[0].sqrt_eps;
    }
    // Mixed precision's near/far tiles (cuda_tile_args.hpp): the atoms in a spatial order of
    // compact tiles, the masks built in it (not with a custom term, whose tiles share pos_ and
    // the masks with the atoms' own order).
    const int block = 32 * (n3 ? kI : 1);
    const long long n_blocks = (n_ + block - 1) / block;
    near_far_ = n_ >= near_far_min_atoms_ && options_.precision == Precision::mixed && n3 &&
                !options_.custom && n_ > 0 && n_blocks <= kNearFarMaxBlocks;
    order_.clear();
    if (near_far_) {
      order_ = spatial_tile_order(n_, m.x.data(), m.y.data(), m.z.data(), block);
      masks_ = build_tile_masks(n_, lists_in_order(system_.lists, order_), kI, true);
    } else {
      masks_ = build_tile_masks(n_, system_.lists, n3 ? kI : 1, true);
    }
    if (!n3) {
      const RowMasks rows = build_row_masks(n_, system_.lists);
      row_start_ = upload(rows.row_start);
      row_masks_ = upload(rows.entries);
      plan_ = cuda::plan_one_sided(options_.precision, system_.dielectric, n_, sms_,
                                   std::size_t(256) << 20);
      workspace_.prepare(plan_, cuda::one_sided_partial_bytes(options_.precision, plan_, n_),
                         stream_);
    }
    padded_ = masks_.n_blocks * masks_.block;
    const bool dbl = options_.precision == Precision::double_;
    const std::size_t v4 = dbl ? 32 : 16;
    pos_ = device_alloc(padded_ * v4);
    pos_lo_ = device_alloc(options_.precision == Precision::mixed ? padded_ * 16 : 16);
    // Parameters, padded with zeros.
    if (dbl) {
      std::vector<double> p(4 * padded_, 0.0);
      for (int i = 0; i < n_; ++i) {
        p[4 * i] = system_.atoms[i].q, p[4 * i + 1] = system_.atoms[i].half_sigma;
        p[4 * i + 2] = system_.atoms[i].sqrt_eps, p[4 * i + 3] = double(i);
      }
      par_ = upload(p);
    } else {
      // By atom (the one-sided, bonded and persistent kernels), and with near/far tiles also in
      // slot order for the tiles.
      auto floats = [&](bool by_slot) {
        std::vector<float> p(4 * padded_, 0.0f);
        for (int s = 0; s < n_; ++s) {
          const int i = by_slot ? order_[s] : s;
          p[4 * s] = float(system_.atoms[i].q), p[4 * s + 1] = float(system_.atoms[i].half_sigma);
          p[4 * s + 2] = float(system_.atoms[i].sqrt_eps);
          std::memcpy(&p[4 * s + 3], &i, sizeof(float));  // the index, as float bits
        }
        return upload(p);
      };
      par_ = floats(false);
      tile_par_ = near_far_ ? floats(true) : DevicePtr();
    }
    if (near_far_) {
      const std::size_t nb = masks_.n_blocks, tiles = nb * (nb + 1) / 2;
      order_dev_ = upload(order_);
      boxes_ = device_alloc(sizeof(cuda::TileBox) * nb);
      pos_off_ = device_alloc(padded_ * 16);
      row_counts_ = device_alloc(sizeof(int) * 2 * (nb + 1));
      tile_counts_ = device_alloc(sizeof(int) * 2);
      near_list_ = device_alloc(sizeof(cuda::TilePair) * tiles);
      far_list_ = device_alloc(sizeof(cuda::TilePair) * tiles);
    } else {
      order_dev_.reset(), boxes_.reset(), pos_off_.reset(), row_counts_.reset();
      tile_counts_.reset(), near_list_.reset(), far_list_.reset();
    }
    mask_index_ = upload(masks_.index);
    mask_words_ = upload(masks_.words);
    std::vector<int> bij(2 * system_.bonds.size());
    std::vector<double> brk(2 * system_.bonds.size());
    const std::size_t nbnd = system_.bonds.size();
    for (std::size_t k = 0; k < nbnd; ++k) {
      bij[k] = system_.bonds[k].i, bij[nbnd + k] = system_.bonds[k].j;
      brk[k] = system_.bonds[k].r0, brk[nbnd + k] = system_.bonds[k].k;
    }
    bond_ij_ = upload(bij);
    bond_rk_ = upload(brk);
    const std::size_t n14 = system_.lists.scaled14.size();
    std::vector<int> pij(2 * n14);
    for (std::size_t k = 0; k < n14; ++k) {
      pij[k] = system_.lists.scaled14[k].first, pij[n14 + k] = system_.lists.scaled14[k].second;
    }
    pair_ij_ = upload(pij);
    x_ = device_alloc(3 * sizeof(double) * n_);
    force_acc_ = device_alloc(3 * 8 * std::size_t(n_));
    // Energies: [3] fixed point, or double's slots (cuda_tile_args.hpp): the pair kernel's (a
    // tile launch's warps, or the one-sided kernel's targets), then the bonded kernel's blocks.
    pair_energy_slots_ = dbl ? (n3 ? max_tile_warps_ : n_) : 0;
    bonded_energy_slots_ =
        dbl ? cuda::bonded_blocks(int(system_.bonds.size()), int(system_.lists.scaled14.size()))
            : 0;
    const std::size_t energy_bytes =
        dbl ? sizeof(double) * cuda::kEnergySlotWidth *
                  std::size_t(pair_energy_slots_ + bonded_energy_slots_)
            : 24;
    energy_acc_ = device_alloc(energy_bytes);
    force_out_ = device_alloc(3 * sizeof(double) * n_);
    energy_out_ = device_alloc(3 * sizeof(double));
    PW_CUDA(cudaMemset(force_acc_.get(), 0, 3 * 8 * std::size_t(n_)));
    PW_CUDA(cudaMemset(energy_acc_.get(), 0, energy_bytes));
    prepare_custom(m);
    prepare_persistent();
    set_positions(m.x.data(), m.y.data(), m.z.data());
  }

  // The custom term's kernels for this tile width (compiled, or read from the NVRTC cache, the
  // first time) and its parameters: the atoms' own q, σ, ε, padded with zeros; its energy
  // accumulators (2).
  void prepare_custom(const Molecule& m) {
    if (!options_.custom) return;
    if (!custom_tiles_ || custom_tiles_->i_per_lane() != masks_.i_per_lane) {
      custom_tiles_ = std::make_unique<CudaCustomTiles>(*options_.custom, options_.precision,
                                                        masks_.i_per_lane);
    }
    if (options_.precision == Precision::double_) {
      std::vector<double> p(4 * padded_, 0.0);
      for (int i = 0; i < n_; ++i)
        p[4 * i] = m.q[i], p[4 * i + 1] = m.sigma[i], p[4 * i + 2] = m.epsilon[i];
      custom_par_ = upload(p);
    } else {
      std::vector<float> p(4 * padded_, 0.0f);
      for (int i = 0; i < n_; ++i) {
        p[4 * i] = float(m.q[i]), p[4 * i + 1] = float(m.sigma[i]);
        p[4 * i + 2] = float(m.epsilon[i]);
      }
      custom_par_ = upload(p);
    }
    // Every atom the same σ and ε (the benchmark's system): the unmasked tiles pass them as
    // constants (CustomPair::uniform).
    custom_uniform_ = n_ > 0;
    for (int i = 1; i < n_ && custom_uniform_; ++i)
      custom_uniform_ = m.sigma[i] == m.sigma[0] && m.epsilon[i] == m.epsilon[0];
    custom_sigma_ = n_ > 0 ? m.sigma[0] : 0.0, custom_epsilon_ = n_ > 0 ? m.epsilon[0] : 0.0;
    // Its energies: [2] fixed point, or double's slots: the tile launch's warps, then the 1-4
    // kernel's blocks.
    custom_energy_slots_ = 0;
    if (options_.precision == Precision::double_)
      custom_energy_slots_ = max_tile_warps_ + cuda::bonded_blocks(0, int(m_pairs14()));
    const std::size_t bytes = custom_energy_slots_ > 0 ? sizeof(double) * cuda::kEnergySlotWidth *
                                                             std::size_t(custom_energy_slots_)
                                                       : 2 * 8;
    custom_acc_ = device_alloc(bytes);
    custom_out_ = device_alloc(sizeof(double) * cuda::kEnergySlotWidth);
    PW_CUDA(cudaMemset(custom_acc_.get(), 0, bytes));
  }

  // The persistent step kernel (cuda_persistent.cuh): used when asked for, or by default up to
  // kPersistentMaxN atoms where it fits; its per-atom bond and 1-4 lists and position buffers.
  // Not with a custom term (its pair is the built-in one): the graph path runs that.
  void prepare_persistent() {
    persistent_ = false;
    if (options_.step_kernel == StepKernel::graph) return;
    if (options_.custom) {
      if (options_.step_kernel == StepKernel::persistent)
        throw Error(
            "step_kernel = 'persistent' does not run a custom term ([forcefield] custom): "
            "use step_kernel = 'graph' or 'auto'");
      return;
    }
    if (options_.step_kernel == StepKernel::automatic && system_.n > kPersistentMaxN) return;
    persistent_plan_ = cuda::plan_persistent(options_.precision, system_.dielectric, n_);
    if (!persistent_plan_.ok) {
      if (options_.step_kernel == StepKernel::persistent) {
        throw Error("step_kernel = 'persistent' cannot run " + std::to_string(n_) +
                    " atoms on this device: " + persistent_plan_.why);
      }
      return;
    }
    persistent_ = true;
    if (masks_newton3_) {
      const RowMasks rows = build_row_masks(n_, system_.lists);
      row_start_ = upload(rows.row_start);
      row_masks_ = upload(rows.entries);
    }
    // Both ends of every bond and 1-4 pair list it, in input order (CSR over atoms).
    std::vector<int> bstart(n_ + 1, 0), pstart(n_ + 1, 0);
    for (const auto& b : system_.bonds) ++bstart[b.i + 1], ++bstart[b.j + 1];
    for (const auto& p : system_.lists.scaled14) ++pstart[p.first + 1], ++pstart[p.second + 1];
    for (int i = 0; i < n_; ++i) bstart[i + 1] += bstart[i], pstart[i + 1] += pstart[i];
    std::vector<int> bj(bstart[n_]), pj(pstart[n_]);
    std::vector<double> brk(2 * std::size_t(bstart[n_]));
    std::vector<int> bfill(bstart.begin(), bstart.end() - 1),
        pfill(pstart.begin(), pstart.end() - 1);
    for (const auto& b : system_.bonds) {
      for (const auto [self, other] : {std::pair{b.i, b.j}, std::pair{b.j, b.i}}) {
        const int k = bfill[self]++;
        bj[k] = other, brk[2 * k] = b.r0, brk[2 * k + 1] = b.k;
      }
    }
    for (const auto& p : system_.lists.scaled14) {
      pj[pfill[p.first]++] = p.second;
      pj[pfill[p.second]++] = p.first;
    }
    bond_start_ = upload(bstart), bond_j_ = upload(bj), bond_rk_csr_ = upload(brk);
    p14_start_ = upload(pstart), p14_j_ = upload(pj);
    const std::size_t np = 32 * std::size_t((n_ + 31) / 32);
    const bool dbl = options_.precision == Precision::double_;
    xbuf_ = device_alloc(2 * 3 * sizeof(double) * n_);
    pbuf_ = device_alloc(2 * np * (dbl ? 32 : 16));
    pbuf_lo_ = device_alloc(options_.precision == Precision::mixed ? 2 * np * 16 : 16);
  }

  // Which step kernel advance() runs: "persistent" or "graph".
  std::string step_kernel_name() const { return persistent_ ? "persistent" : "graph"; }

  void set_positions(const double* x, const double* y, const double* z) override {
    double* d = static_cast<double*>(x_.get());
    // Ordered in the stream of the kernels (a plain cudaMemcpy from pageable memory may return
    // before its DMA has landed, and the stream does not wait for the legacy stream).
    PW_CUDA(cudaMemcpyAsync(d, x, sizeof(double) * n_, cudaMemcpyHostToDevice, stream_));
    PW_CUDA(cudaMemcpyAsync(d + n_, y, sizeof(double) * n_, cudaMemcpyHostToDevice, stream_));
    PW_CUDA(cudaMemcpyAsync(d + 2 * n_, z, sizeof(double) * n_, cudaMemcpyHostToDevice, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
  }

  void compute(LjcForces& out) override {
    launch_all(true);
    read_forces(out);
  }

  void read_forces(LjcForces& out) {
    out.resize(system_.n);
    std::vector<double> f(3 * std::size_t(n_));
    double e[3];
    PW_CUDA(cudaMemcpyAsync(f.data(), force_out_.get(), f.size() * sizeof(double),
                            cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaMemcpyAsync(e, energy_out_.get(), sizeof(e), cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    std::copy(f.begin(), f.begin() + n_, out.fx.begin());
    std::copy(f.begin() + n_, f.begin() + 2 * n_, out.fy.begin());
    std::copy(f.begin() + 2 * n_, f.end(), out.fz.begin());
    out.lj = e[0], out.coulomb = e[1], out.bond = e[2];
    if (options_.custom) {  // the custom term's two energies, read and zeroed
      if (options_.precision == Precision::double_) {
        double c[cuda::kEnergySlotWidth];
        double* sums = static_cast<double*>(custom_out_.get());
        cuda::launch_sum_energy_slots(custom_acc_.get(), custom_energy_slots_, sums, stream_);
        PW_CUDA(cudaMemcpyAsync(c, sums, sizeof c, cudaMemcpyDeviceToHost, stream_));
        PW_CUDA(cudaStreamSynchronize(stream_));
        out.custom = c[0] + c[1];
      } else {
        long long c[2];
        PW_CUDA(cudaMemcpyAsync(c, custom_acc_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_));
        PW_CUDA(cudaStreamSynchronize(stream_));
        out.custom = (double(c[0]) + double(c[1])) / cuda::kFixedScale;
        PW_CUDA(cudaMemsetAsync(custom_acc_.get(), 0, 2 * 8, stream_));
      }
    }
  }

  double time_compute(int repeats) override {
    launch_all(false);
    cudaEvent_t start, stop;
    PW_CUDA(cudaEventCreate(&start));
    PW_CUDA(cudaEventCreate(&stop));
    std::vector<float> t;
    for (int r = 0; r < std::max(1, repeats); ++r) {
      PW_CUDA(cudaEventRecord(start, stream_));
      launch_all(false);
      PW_CUDA(cudaEventRecord(stop, stream_));
      PW_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      PW_CUDA(cudaEventElapsedTime(&ms, start, stop));
      t.push_back(ms);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
    return 1e-3 * t[t.size() / 2];
  }

  // The whole step on the device: positions, velocities and forces stay there; the step's
  // kernels (first half, pack, tiles, bonded, finish, second half) are captured once into CUDA
  // graphs of 1 and kGraphSteps steps and replayed; the host copies the state back at the end.
  void advance(Molecule& m, const std::vector<double>& inv_mass, const engine::DynamicsOptions& o,
               std::uint64_t first_step, std::int64_t steps, LjcForces& f) override {
    if (o.thermostat == engine::Thermostat::andersen) {
      return LjcKernel::advance(m, inv_mass, o, first_step, steps, f);
    }
    const std::size_t bytes = 3 * sizeof(double) * n_;
    if (!v_) {
      v_ = device_alloc(bytes);
      inv_mass_ = device_alloc(sizeof(double) * n_);
      step_ = device_alloc(sizeof(unsigned long long));
    }
    set_positions(m.x.data(), m.y.data(), m.z.data());
    double* dv = static_cast<double*>(v_.get());
    auto h2d = [&](void* dst, const void* src, std::size_t b) {
      PW_CUDA(cudaMemcpyAsync(dst, src, b, cudaMemcpyHostToDevice, stream_));
    };
    h2d(dv, m.vx.data(), sizeof(double) * n_);
    h2d(dv + n_, m.vy.data(), sizeof(double) * n_);
    h2d(dv + 2 * n_, m.vz.data(), sizeof(double) * n_);
    h2d(inv_mass_.get(), inv_mass.data(), sizeof(double) * n_);
    const unsigned long long s0 = first_step;
    h2d(step_.get(), &s0, sizeof s0);
    PW_CUDA(cudaStreamSynchronize(stream_));
    // Forces at the current positions on the device (the host's f may come from another
    // evaluation order; this keeps the device trajectory self-consistent).
    launch_all(false);
    cuda::StepArgs sa;
    sa.x = static_cast<double*>(x_.get());
    sa.v = dv;
    sa.precision = options_.precision;
    sa.pos = near_far_ ? nullptr : pos_.get();  // near/far: packed by launch_pairs
    sa.pos_lo = pos_lo_.get();
    sa.force_acc = force_acc_.get();
    sa.f = static_cast<double*>(force_out_.get());
    sa.inv_mass = static_cast<const double*>(inv_mass_.get());
    sa.n = n_;
    sa.dt = o.dt;
    sa.langevin = o.thermostat == engine::Thermostat::langevin;
    const auto c = physics::langevin_coefficients(o.gamma, o.dt);
    sa.kT = o.kT, sa.c1 = c.c1, sa.c2 = c.c2, sa.seed = o.seed;
    sa.step = static_cast<unsigned long long*>(step_.get());
    sa.stream = stream_;
    last_step_args_ = sa;
    if (persistent_) {
      launch_persistent_steps(sa, o, steps);
    } else {
      run_graphs(sa, steps);
    }
    // Energies at the final positions (the forces are recomputed identically).
    launch_all(true);
    std::vector<double> h(3 * std::size_t(n_));
    PW_CUDA(cudaMemcpyAsync(h.data(), x_.get(), bytes, cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    std::copy(h.begin(), h.begin() + n_, m.x.begin());
    std::copy(h.begin() + n_, h.begin() + 2 * n_, m.y.begin());
    std::copy(h.begin() + 2 * n_, h.end(), m.z.begin());
    PW_CUDA(cudaMemcpyAsync(h.data(), dv, bytes, cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    std::copy(h.begin(), h.begin() + n_, m.vx.begin());
    std::copy(h.begin() + n_, h.begin() + 2 * n_, m.vy.begin());
    std::copy(h.begin() + 2 * n_, h.end(), m.vz.begin());
    read_forces(f);
  }

  // Seconds per full MD step (velocity Verlet, dt fs) on the device from the loaded positions at
  // rest, graph replays timed with events over `steps` steps (for benchmarks).
  double time_md_steps(double dt, std::int64_t steps) {
    Molecule m;
    m.resize(n_);
    std::vector<double> h(3 * std::size_t(n_));
    PW_CUDA(cudaMemcpyAsync(h.data(), x_.get(), h.size() * sizeof(double), cudaMemcpyDeviceToHost,
                            stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    std::copy(h.begin(), h.begin() + n_, m.x.begin());
    std::copy(h.begin() + n_, h.begin() + 2 * n_, m.y.begin());
    std::copy(h.begin() + 2 * n_, h.end(), m.z.begin());
    m.vx.assign(n_, 0.0), m.vy.assign(n_, 0.0), m.vz.assign(n_, 0.0);
    std::vector<double> inv_mass(n_, 4.184e-4 / 12.011);
    engine::DynamicsOptions o;
    o.dt = dt;
    LjcForces f;
    advance(m, inv_mass, o, 0, kGraphSteps, f);  // builds the graphs, warms up
    cudaEvent_t start, stop;
    PW_CUDA(cudaEventCreate(&start));
    PW_CUDA(cudaEventCreate(&stop));
    PW_CUDA(cudaEventRecord(start, stream_));
    if (persistent_) {
      launch_persistent_steps(last_step_args_, o, steps);
    } else {
      run_graphs(last_step_args_, steps);
    }
    PW_CUDA(cudaEventRecord(stop, stream_));
    PW_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    PW_CUDA(cudaEventElapsedTime(&ms, start, stop));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    set_positions(m.x.data(), m.y.data(), m.z.data());
    return 1e-3 * ms / double(steps);
  }

  // One force evaluation on the device from x_ into force_out_ (and energy_out_).
  void launch_all(bool energy) {
    if (!near_far_) {  // else packed by launch_pairs
      cuda::launch_pack_positions(options_.precision, static_cast<double*>(x_.get()), n_, padded_,
                                  pos_.get(), pos_lo_.get(), stream_);
    }
    launch_pairs(energy);
    cuda::launch_finish_forces(options_.precision, force_acc_.get(), energy_acc_.get(),
                               energy ? pair_energy_slots_ + bonded_energy_slots_ : 0, n_,
                               static_cast<double*>(force_out_.get()),
                               static_cast<double*>(energy_out_.get()), stream_);
  }

  // The pair sum and the bonded terms into the accumulators (positions already packed, but with
  // near/far tiles: those are packed here from x_, with their boxes, every call).
  void launch_pairs(bool energy) {
    if (near_far_) {
      cuda::launch_pack_tiles(static_cast<const double*>(x_.get()),
                              static_cast<const int*>(order_dev_.get()), n_, masks_.n_blocks,
                              masks_.block, pos_.get(), pos_lo_.get(), pos_off_.get(),
                              static_cast<cuda::TileBox*>(boxes_.get()), stream_);
      cuda::launch_classify_tiles(static_cast<const cuda::TileBox*>(boxes_.get()),
                                  static_cast<const int*>(mask_index_.get()), masks_.n_blocks,
                                  far_kappa_, static_cast<int*>(row_counts_.get()),
                                  static_cast<cuda::TilePair*>(near_list_.get()),
                                  static_cast<cuda::TilePair*>(far_list_.get()),
                                  static_cast<int*>(tile_counts_.get()), stream_);
    }
    const Precision p = options_.precision;
    const double sig[4] = {system_.sigmoidal.alpha, system_.sigmoidal.beta, system_.sigmoidal.gamma,
                           system_.sigmoidal.delta};
    if (!masks_newton3_) {
      cuda::OneSidedArgs o;
      o.n_i = o.n_j = n_;
      o.plan = plan_;
      o.partial = workspace_.partial();
      o.tickets = workspace_.tickets();
      o.precision = p;
      o.dielectric = system_.dielectric;
      o.energy = energy;
      o.pos = pos_.get();
      o.pos_lo = pos_lo_.get();
      o.par = par_.get();
      o.row_start = static_cast<const int*>(row_start_.get());
      o.row_masks = row_masks_.get();
      o.force = force_acc_.get();
      o.energy_acc = energy_acc_.get();
      for (int c = 0; c < 4; ++c) o.sig[c] = sig[c];
      o.stream = stream_;
      cuda::launch_one_sided(o);
    } else if (builtin_pairs()) {
      launch_newton3(energy, sig);
    }
    launch_bonded(energy, sig);
    if (options_.custom) launch_custom(energy);
  }

  // The custom term: the tile kernel with the formula's pair functor over the same tiles and
  // masks, then its 1-4 pairs (scale14_lj), into the force accumulators and custom_acc_.
  void launch_custom(bool energy) {
    cuda::TileKernelArgs a;
    a.n = n_;
    a.n_blocks = masks_.n_blocks;
    a.n_tiles = masks_.tiles();
    a.pos = pos_.get();
    a.pos_lo = pos_lo_.get();
    a.par = custom_par_.get();
    a.tile_mask_index = static_cast<const int*>(mask_index_.get());
    a.masks = static_cast<const std::uint32_t*>(mask_words_.get());
    a.force = force_acc_.get();
    a.energy_acc = custom_acc_.get();
    a.uniform_lj = custom_uniform_;
    a.lj_sigma2 = custom_sigma_, a.lj_eps24 = custom_epsilon_;
    custom_tiles_->launch_tiles(a, energy, sms_, stream_);
    cuda::Pairs14Args p;
    p.n = n_;
    p.n_pairs = int(system_.lists.scaled14.size());
    p.pair_ij = static_cast<const int*>(pair_ij_.get());
    p.scale = system_.scale14_lj;
    p.x = static_cast<const double*>(x_.get());
    p.par = custom_par_.get();
    p.force = force_acc_.get();
    p.energy_acc = energy_slots(custom_acc_, custom_energy_slots_ > 0 ? max_tile_warps_ : 0);
    p.energy = energy;
    custom_tiles_->launch_pairs14(p, stream_);
  }

  void launch_newton3(bool energy, const double (&sig)[4]) {
    const Precision p = options_.precision;
    cuda::TileArgs a;
    a.precision = p;
    a.dielectric = system_.dielectric;
    a.newton3 = masks_.newton3;
    a.energy = energy;
    a.n = n_;
    a.n_blocks = masks_.n_blocks;
    a.i_per_lane = masks_.i_per_lane;
    a.n_tiles = masks_.tiles();
    a.warps = 0;  // one wave of resident warps (launch_tiles), each a chunk of tiles
    a.pos = pos_.get();
    a.pos_lo = pos_lo_.get();
    a.par = par_.get();
    a.tile_mask_index = static_cast<const int*>(mask_index_.get());
    a.masks = static_cast<const std::uint32_t*>(mask_words_.get());
    a.force = force_acc_.get();
    a.energy_acc = energy_acc_.get();
    for (int c = 0; c < 4; ++c) a.sig[c] = sig[c];
    a.uniform_lj = uniform_lj_;
    if (uniform_lj_) {
      const double sigma = 2 * system_.atoms[0].half_sigma;
      const double eps = system_.atoms[0].sqrt_eps * system_.atoms[0].sqrt_eps;
      a.lj_sigma2 = sigma * sigma, a.lj_eps24 = 24 * eps, a.lj_eps48 = 48 * eps;
    }
    a.stream = stream_;
    if (!near_far_) return cuda::launch_tiles(a);
    // Mixed's near/far tiles: the near list, then the far list (launch_classify_tiles).
    a.par = tile_par_.get();
    a.atom_of_slot = static_cast<const int*>(order_dev_.get());
    a.tile_boxes = static_cast<const cuda::TileBox*>(boxes_.get());
    a.pos_off = pos_off_.get();
    const int* counts = static_cast<const int*>(tile_counts_.get());
    a.tile_set = cuda::TileSet::near;
    a.tile_list = static_cast<const cuda::TilePair*>(near_list_.get());
    a.tile_list_count = counts;
    cuda::launch_tiles(a);
    a.tile_set = cuda::TileSet::far;
    a.tile_list = static_cast<const cuda::TilePair*>(far_list_.get());
    a.tile_list_count = counts + 1;
    cuda::launch_tiles(a);
  }

  void launch_bonded(bool energy, const double (&sig)[4]) {
    const Precision p = options_.precision;
    cuda::BondedArgs b;
    b.precision = p;
    b.dielectric = system_.dielectric;
    b.energy = energy;
    b.n_bonds = int(system_.bonds.size());
    // The built-in 1-4 pairs only with the built-in pair term.
    b.n_pairs14 = builtin_pairs() ? int(system_.lists.scaled14.size()) : 0;
    b.bond_ij = static_cast<const int*>(bond_ij_.get());
    b.bond_rk = static_cast<const double*>(bond_rk_.get());
    b.pair_ij = static_cast<const int*>(pair_ij_.get());
    b.scale14_lj = system_.scale14_lj;
    b.scale14_coulomb = system_.scale14_coulomb;
    b.x = static_cast<const double*>(x_.get());
    b.par = par_.get();
    b.force = force_acc_.get();
    b.energy_acc = energy_slots(energy_acc_, pair_energy_slots_);
    b.n = n_;
    for (int c = 0; c < 4; ++c) b.sig[c] = sig[c];
    b.stream = stream_;
    cuda::launch_bonded(b);
  }

 private:
  static constexpr int kGraphSteps = 20;

  // The energy accumulator `acc` from slot `first` on (double's slots; 0 for the fixed point).
  static void* energy_slots(const DevicePtr& acc, long long first) {
    return static_cast<double*>(acc.get()) + cuda::kEnergySlotWidth * first;
  }
  std::size_t m_pairs14() const { return system_.lists.scaled14.size(); }

  // `steps` steps as graph replays (chains of kGraphSteps, then single steps).
  void run_graphs(const cuda::StepArgs& sa, std::int64_t steps) {
    if (!graphs_ready_ || !same_step(sa)) build_graphs(sa);
    std::int64_t left = steps;
    for (; left >= kGraphSteps; left -= kGraphSteps) PW_CUDA(cudaGraphLaunch(exec_many_, stream_));
    for (; left > 0; --left) PW_CUDA(cudaGraphLaunch(exec_one_, stream_));
  }

  // `steps` steps in one launch of the persistent kernel (x_, v_, force_out_ in and out).
  void launch_persistent_steps(const cuda::StepArgs& sa, const engine::DynamicsOptions& o,
                               std::int64_t steps) {
    cuda::PersistentArgs pa;
    pa.precision = options_.precision;
    pa.dielectric = system_.dielectric;
    pa.plan = persistent_plan_;
    pa.n = n_;
    pa.par = par_.get();
    pa.row_start = static_cast<const int*>(row_start_.get());
    pa.row_masks = row_masks_.get();
    pa.bond_start = static_cast<const int*>(bond_start_.get());
    pa.bond_j = static_cast<const int*>(bond_j_.get());
    pa.bond_rk = static_cast<const double*>(bond_rk_csr_.get());
    pa.p14_start = static_cast<const int*>(p14_start_.get());
    pa.p14_j = static_cast<const int*>(p14_j_.get());
    pa.scale14_lj = system_.scale14_lj, pa.scale14_coulomb = system_.scale14_coulomb;
    pa.sig[0] = system_.sigmoidal.alpha, pa.sig[1] = system_.sigmoidal.beta;
    pa.sig[2] = system_.sigmoidal.gamma, pa.sig[3] = system_.sigmoidal.delta;
    pa.x = sa.x, pa.v = sa.v, pa.f = sa.f, pa.inv_mass = sa.inv_mass;
    pa.dt = o.dt;
    pa.langevin = sa.langevin;
    pa.kT = sa.kT, pa.c1 = sa.c1, pa.c2 = sa.c2, pa.seed = sa.seed;
    pa.step = sa.step;
    pa.steps = steps;
    pa.xbuf = static_cast<double*>(xbuf_.get());
    pa.pbuf = pbuf_.get();
    pa.pbuf_lo = pbuf_lo_.get();
    pa.stream = stream_;
    cuda::launch_persistent(pa);
  }

  // A chain of `steps` steps: first half + packing, the pair kernel and bonded terms, then per
  // further step one fused kernel (second half of the last step, first half of the next) and the
  // pair kernels, and the second half (see cuda_ljc.cuh).
  cudaGraphExec_t capture(cuda::StepArgs sa, int steps) {
    cudaGraph_t graph = nullptr;
    PW_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
    sa.offset = 0;
    cuda::launch_step_first(sa);
    launch_pairs(false);
    for (int k = 1; k < steps; ++k) {
      sa.offset = k;
      cuda::launch_step_between(sa);
      launch_pairs(false);
    }
    sa.advance = steps;
    cuda::launch_step_second(sa);
    PW_CUDA(cudaStreamEndCapture(stream_, &graph));
    cudaGraphExec_t exec = nullptr;
    PW_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    PW_CUDA(cudaGraphDestroy(graph));
    return exec;
  }
  void build_graphs(const cuda::StepArgs& sa) {
    destroy_graphs();
    exec_one_ = capture(sa, 1);
    exec_many_ = capture(sa, kGraphSteps);
    graph_args_ = sa;
    graphs_ready_ = true;
  }
  bool same_step(const cuda::StepArgs& sa) const {
    const auto& g = graph_args_;
    return g.x == sa.x && g.v == sa.v && g.dt == sa.dt && g.langevin == sa.langevin &&
           g.kT == sa.kT && g.c1 == sa.c1 && g.seed == sa.seed && g.inv_mass == sa.inv_mass;
  }
  void destroy_graphs() {
    if (exec_one_) cudaGraphExecDestroy(exec_one_);
    if (exec_many_) cudaGraphExecDestroy(exec_many_);
    exec_one_ = exec_many_ = nullptr;
    graphs_ready_ = false;
  }

  LjcKernelOptions options_;
  std::string name_;
  int sms_ = 1;
  long long max_tile_warps_ = 1;  // double's energy slots of a tile launch
  // Double's energy slots: the pair kernel's and the bonded kernel's in energy_acc_, the custom
  // term's (tiles, then 1-4 pairs) in custom_acc_.
  long long pair_energy_slots_ = 0, bonded_energy_slots_ = 0, custom_energy_slots_ = 0;
  cudaStream_t stream_ = nullptr;
  PreparedSystem system_;
  TileMasks masks_;
  bool uniform_lj_ = false;
  // Mixed's near/far tiles: from how many atoms (PAIRWISE_LJC_MIXED_TILES), in use for this system;
  // the spatial order (slot -> atom) on the host and device, the tile boxes, the FP32 offsets.
  int near_far_min_atoms_ = kNearFarMinAtoms;
  bool near_far_ = false;
  double far_kappa_ = kNearFarKappa;
  std::vector<int> order_;
  DevicePtr order_dev_, tile_par_, boxes_, pos_off_, row_counts_, tile_counts_, near_list_,
      far_list_;
  int n_ = 0, padded_ = 0;
  DevicePtr v_, inv_mass_, step_, row_start_, row_masks_;
  engine::AllPairsPlan plan_;
  engine::AllPairsWorkspace workspace_;
  bool masks_newton3_ = true;
  cudaGraphExec_t exec_one_ = nullptr, exec_many_ = nullptr;
  cuda::StepArgs graph_args_, last_step_args_;
  bool persistent_ = false;
  cuda::PersistentPlan persistent_plan_;
  DevicePtr bond_start_, bond_j_, bond_rk_csr_, p14_start_, p14_j_, xbuf_, pbuf_, pbuf_lo_;
  bool graphs_ready_ = false;
  std::unique_ptr<CudaCustomTiles> custom_tiles_;  // the custom term's kernels
  DevicePtr custom_par_, custom_acc_, custom_out_;
  bool custom_uniform_ = false;
  double custom_sigma_ = 0, custom_epsilon_ = 0;
  DevicePtr pos_, pos_lo_, par_, mask_index_, mask_words_, bond_ij_, bond_rk_, pair_ij_, x_,
      force_acc_, energy_acc_, force_out_, energy_out_;
};

}  // namespace

std::unique_ptr<LjcKernel> make_cuda_ljc_kernel(const LjcKernelOptions& options) {
  return std::make_unique<CudaLjcKernel>(options);
}

std::string cuda_step_kernel(const LjcKernel& kernel) {
  const auto* k = dynamic_cast<const CudaLjcKernel*>(&kernel);
  return k ? k->step_kernel_name() : std::string();
}

double cuda_time_md_steps(LjcKernel& kernel, double dt, std::int64_t steps) {
  auto* k = dynamic_cast<CudaLjcKernel*>(&kernel);
  return k ? k->time_md_steps(dt, steps) : -1.0;
}

}  // namespace pairwise::ljc
