// The cuda backend of LjcKernel: device memory, transfers and the launch sequence
// (pack positions -> tile kernel -> bonds and 1-4 pairs -> finish). Per-tile exclusion masks are
// built on the host once per topology (tile_masks.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "ljc/backends.hpp"
#include "ljc/cuda_ljc.cuh"
#include "ljc/tile_masks.hpp"
#include "pairwise/error.hpp"

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

class CudaLjcKernel final : public LjcKernel {
 public:
  explicit CudaLjcKernel(const LjcKernelOptions& o) : options_(o) {
    PW_CUDA(cudaSetDevice(o.device));
    cudaDeviceProp prop{};
    PW_CUDA(cudaGetDeviceProperties(&prop, o.device));
    name_ = std::string("cuda: ") + prop.name;
    sms_ = prop.multiProcessorCount;
    PW_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~CudaLjcKernel() override { cudaStreamDestroy(stream_); }

  std::string device_name() const override { return name_; }
  BackendKind backend() const override { return BackendKind::cuda; }
  Precision precision() const override { return options_.precision; }

  // Newton's third law by default in single and mixed (fixed-point sums, deterministic); double
  // defaults to one-sided (no FP64 atomics on the main sum's targets... see docs/ljc.md).
  bool newton3() const {
    if (options_.pair_kernel == PairKernel::newton3) return true;
    if (options_.pair_kernel == PairKernel::one_sided) return false;
    return options_.precision != Precision::double_;
  }

  void set_system(const Molecule& m, const NonbondedOptions& nb) override {
    system_ = prepare_system(m, nb);
    n_ = static_cast<int>(system_.n);
    const bool n3 = newton3();
    const int kI = options_.precision == Precision::double_ ? 1 : 2;
    masks_ = build_tile_masks(n_, system_.lists, kI, n3);
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
        p[4 * i + 2] = system_.atoms[i].sqrt_eps;
      }
      par_ = upload(p);
    } else {
      std::vector<float> p(4 * padded_, 0.0f);
      for (int i = 0; i < n_; ++i) {
        p[4 * i] = float(system_.atoms[i].q), p[4 * i + 1] = float(system_.atoms[i].half_sigma);
        p[4 * i + 2] = float(system_.atoms[i].sqrt_eps);
      }
      par_ = upload(p);
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
    energy_acc_ = device_alloc(8 * 3);
    force_out_ = device_alloc(3 * sizeof(double) * n_);
    energy_out_ = device_alloc(3 * sizeof(double));
    PW_CUDA(cudaMemset(force_acc_.get(), 0, 3 * 8 * std::size_t(n_)));
    PW_CUDA(cudaMemset(energy_acc_.get(), 0, 24));
    set_positions(m.x.data(), m.y.data(), m.z.data());
  }

  void set_positions(const double* x, const double* y, const double* z) override {
    double* d = static_cast<double*>(x_.get());
    PW_CUDA(cudaMemcpy(d, x, sizeof(double) * n_, cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(d + n_, y, sizeof(double) * n_, cudaMemcpyHostToDevice));
    PW_CUDA(cudaMemcpy(d + 2 * n_, z, sizeof(double) * n_, cudaMemcpyHostToDevice));
  }

  void compute(LjcForces& out) override {
    out.resize(system_.n);
    launch_all(true);
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

  // The device arrays of the step (for the device-resident MD loop): positions [3][n] and the
  // forces written by each launch_all, both double.
  double* device_positions() const { return static_cast<double*>(x_.get()); }
  const double* device_forces() const { return static_cast<const double*>(force_out_.get()); }
  cudaStream_t stream() const { return stream_; }

  // One force evaluation on the device from x_ into force_out_ (and energy_out_).
  void launch_all(bool energy) {
    const Precision p = options_.precision;
    cuda::launch_pack_positions(p, static_cast<double*>(x_.get()), n_, padded_, pos_.get(),
                                pos_lo_.get(), stream_);
    cuda::TileArgs a;
    a.precision = p;
    a.dielectric = system_.dielectric;
    a.newton3 = masks_.newton3;
    a.energy = energy;
    a.n = n_;
    a.n_blocks = masks_.n_blocks;
    a.i_per_lane = masks_.i_per_lane;
    a.n_tiles = masks_.tiles();
    // Enough warps to fill the GPU (16 per SM), each a chunk of at least one tile.
    a.warps = int(std::min<long long>(a.n_tiles, 16LL * sms_));
    a.pos = pos_.get();
    a.pos_lo = pos_lo_.get();
    a.par = par_.get();
    a.tile_mask_index = static_cast<const int*>(mask_index_.get());
    a.masks = static_cast<const std::uint32_t*>(mask_words_.get());
    a.force = force_acc_.get();
    a.energy_acc = energy_acc_.get();
    a.sig[0] = system_.sigmoidal.alpha, a.sig[1] = system_.sigmoidal.beta;
    a.sig[2] = system_.sigmoidal.gamma, a.sig[3] = system_.sigmoidal.delta;
    a.stream = stream_;
    cuda::launch_tiles(a);
    cuda::BondedArgs b;
    b.precision = p;
    b.dielectric = system_.dielectric;
    b.energy = energy;
    b.n_bonds = int(system_.bonds.size());
    b.n_pairs14 = int(system_.lists.scaled14.size());
    b.bond_ij = static_cast<const int*>(bond_ij_.get());
    b.bond_rk = static_cast<const double*>(bond_rk_.get());
    b.pair_ij = static_cast<const int*>(pair_ij_.get());
    b.scale14_lj = system_.scale14_lj;
    b.scale14_coulomb = system_.scale14_coulomb;
    b.x = static_cast<const double*>(x_.get());
    b.par = par_.get();
    b.force = force_acc_.get();
    b.energy_acc = energy_acc_.get();
    b.n = n_;
    for (int c = 0; c < 4; ++c) b.sig[c] = a.sig[c];
    b.stream = stream_;
    cuda::launch_bonded(b);
    cuda::launch_finish_forces(p, force_acc_.get(), energy_acc_.get(), n_,
                               static_cast<double*>(force_out_.get()),
                               static_cast<double*>(energy_out_.get()), stream_);
  }

 private:
  LjcKernelOptions options_;
  std::string name_;
  int sms_ = 1;
  cudaStream_t stream_ = nullptr;
  PreparedSystem system_;
  TileMasks masks_;
  int n_ = 0, padded_ = 0;
  DevicePtr pos_, pos_lo_, par_, mask_index_, mask_words_, bond_ij_, bond_rk_, pair_ij_, x_,
      force_acc_, energy_acc_, force_out_, energy_out_;
};

}  // namespace

std::unique_ptr<LjcKernel> make_cuda_ljc_kernel(const LjcKernelOptions& options) {
  return std::make_unique<CudaLjcKernel>(options);
}

}  // namespace pairwise::ljc
