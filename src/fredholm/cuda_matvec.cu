// The cuda backend of the Fredholm kernel sum: the all-pairs engine (engine/all_pairs.cuh) with
// MatvecPolicy (cuda_matvec_policy.cuh). Targets t_i are held in registers (kI per thread), sources
// (s_j, w_j g_j) are staged in shared memory a j-tile at a time, and y_i = Σ_j w_j g_j K(t_i, s_j)
// is reduced in fixed order (deterministic). Layouts (F = float in single and mixed, double in
// double):
//   targets  F[kDim · n_i]                       (kDim = 1 for 1-D problems, 3 for 2-D and 3-D)
//   sources  Source{F c[kDim]; F w[kC]}[n_j]     (kC = 1 real, 2 complex: w_j g_j)
// The sources' weights are packed on the device from g (double) by pack_kernel, so a product
// moves 8 N (16 N complex) bytes each way.
//
// e^{ts} in single and mixed precision is one MUFU.EX2 per pair: the target holds t·log2(e), the
// pair is FMUL (t'·s), MUFU.EX2, FFMA (+= w g · e): the special-function unit's 16 results per
// clock per SM bound it at 4.18 T pairs/s on an H200.
#include <cuda_runtime.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda_check.cuh"
#include "core/timing.hpp"
#include "engine/all_pairs.cuh"
#include "engine/device_buffer.cuh"
#include "engine/formula/nvrtc_loader.hpp"
#include "engine/formula/runtime_library.cuh"
#include "fredholm/cuda_formula_matvec.hpp"
#include "fredholm/cuda_matvec_policy.cuh"
#include "fredholm/device_rows.hpp"
#include "fredholm/matvec.hpp"
#include "pairwise/error.hpp"

namespace pairwise::fredholm {
namespace {

using device::MatvecArgs;
using device::MatvecPolicy;
using device::Source;
using engine::AllPairsPlan;

// A custom kernel (formulas) on the host side: its functor exists only in the NVRTC program
// (cuda_formula_matvec.cpp); the host needs kComplex and its layout in MatvecArgs (an empty struct
// there as here), never its operator().
template <bool kC>
struct FormulaTag {
  static constexpr bool kComplex = kC;
};
template <class K>
inline constexpr bool kIsFormula = false;
template <bool kC>
inline constexpr bool kIsFormula<FormulaTag<kC>> = true;

// The NVRTC-compiled all-pairs kernel of a formula variant, loaded with the runtime's library API
// (into whichever device is current when it launches), unloaded with the matvec.
class FormulaMatvecKernel {
 public:
  FormulaMatvecKernel(const CustomKernel& kernel, const FormulaMatvecVariant& v) {
    const formula::CompiledProgram c =
        formula::compile_cuda_program(formula_matvec_program(kernel, v));
    compile_seconds_ = c.seconds;
    from_cache_ = c.from_cache;
    library_ = std::make_unique<formula::RuntimeLibrary>(c.cubin);
    fn_ = library_->kernel(c.lowered.at(0));
    blocks_per_sm_ = formula::resident_blocks_per_sm(fn_, engine::kAllPairsThreads, 1);
  }
  FormulaMatvecKernel(const FormulaMatvecKernel&) = delete;
  FormulaMatvecKernel& operator=(const FormulaMatvecKernel&) = delete;
  int blocks_per_sm() const { return blocks_per_sm_; }
  double compile_seconds() const { return compile_seconds_; }
  bool from_cache() const { return from_cache_; }
  template <class Args>
  void launch(const Args& a, cudaStream_t stream) const {
    void* params[] = {const_cast<Args*>(&a)};
    PW_CUDA(cudaLaunchKernel(fn_, dim3(unsigned(a.plan.i_blocks) * unsigned(a.plan.splits)),
                             dim3(engine::kAllPairsThreads), params, 0, stream));
  }

 private:
  std::unique_ptr<formula::RuntimeLibrary> library_;
  const void* fn_ = nullptr;
  int blocks_per_sm_ = 1;
  double compile_seconds_ = 0;
  bool from_cache_ = false;
};

// w_j g_j into the sources (coordinates are written once at construction).
template <class F, int kDim, int kC>
__global__ void pack_kernel(Source<F, kDim, kC>* sources, const double* w, const double* g, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
#pragma unroll
  for (int c = 0; c < kC; ++c) sources[j].w[c] = F(w[j] * g[std::size_t(j) * kC + c]);
}

template <class F, int kDim>
__global__ void coords_kernel(F* out, const double* xyz, int n) {  // xyz: [n][3] double
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#pragma unroll
  for (int d = 0; d < kDim; ++d) out[std::size_t(i) * kDim + d] = F(xyz[std::size_t(i) * 3 + d]);
}

template <class F, int kDim, int kC>
__global__ void source_coords_kernel(Source<F, kDim, kC>* sources, const double* xyz, int n) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
#pragma unroll
  for (int d = 0; d < kDim; ++d) sources[j].c[d] = F(xyz[std::size_t(j) * 3 + d]);
}

constexpr std::size_t kMaxPartialBytes = std::size_t(256) << 20;

template <class S, class K, class F, bool kMixed, int kDim>
class CudaMatvec final : public Matvec<S>, public DeviceRows<S> {
  static constexpr int kC = K::kComplex ? 2 : 1;
  using Policy = MatvecPolicy<K, F, kMixed, kDim>;
  using Src = Source<F, kDim, kC>;
  using Partial = typename Policy::Partial;
  // Register tiles: 8 targets per thread for FP32 e^{ts} (one LDS.64 per 8 pairs), else 4.
  static constexpr bool kWide = std::is_same_v<K, ph::ExpTs> && std::is_same_v<F, float>;
  static constexpr int kTile = kWide ? 8 : 4;

 public:
  CudaMatvec(const K& kernel, Precision precision, int device, const Nodes& nodes,
             const CustomKernel* custom = nullptr)
      : kernel_(kernel), precision_(precision), device_(device), nodes_(nodes) {
    std::string why;
    const auto devices = cuda_devices(&why);
    const auto it = std::find_if(devices.begin(), devices.end(),
                                 [&](const DeviceInfo& d) { return d.index == device; });
    if (it == devices.end())
      throw Error("CUDA device " + std::to_string(device) + " is not usable" +
                      (why.empty() ? std::string() : ": " + why),
                  "backend");
    info_ = *it;
    PW_CUDA(cudaSetDevice(device));
    const std::size_t n = nodes.size();
    if (n > std::size_t(std::numeric_limits<int>::max()))
      throw Error("too many nodes for the cuda backend: " + std::to_string(n), "cuda backend");
    const std::size_t need = n * (sizeof(F) * kDim + sizeof(Src) + 8 + 16 * kC + 24) + (64 << 20);
    if (need > info_.free_bytes)
      throw Error("problem too large for GPU memory: " + std::to_string(n) + " nodes need " +
                      std::to_string(need) + " bytes, " + std::to_string(info_.free_bytes) +
                      " bytes free on " + info_.name,
                  "cuda backend");
    PW_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    n_ = int(n);
    weights_.reserve(8 * n);
    targets_.reserve(sizeof(F) * kDim * n);
    sources_.reserve(sizeof(Src) * n);
    PW_CUDA(cudaMemsetAsync(sources_.as<void>(), 0, sizeof(Src) * n, stream_));
    PW_CUDA(cudaMemcpyAsync(weights_.as<void>(), nodes.w.data(), 8 * n, cudaMemcpyHostToDevice,
                            stream_));
    upload_points(nodes.p, targets_);
    source_coords_kernel<F, kDim, kC>
        <<<(n_ + 255) / 256, 256, 0, stream_>>>(sources_.as<Src>(), scratch_.as<double>(), n_);
    PW_CUDA_LAUNCH("fredholm source_coords_kernel");
    PW_CUDA(cudaStreamSynchronize(stream_));
    if constexpr (kIsFormula<K>) {
      FormulaMatvecVariant v;
      v.f = std::is_same_v<F, float> ? "float" : "double";
      v.mixed = kMixed, v.dim = kDim, v.tile = kTile;
      formula_ = std::make_unique<FormulaMatvecKernel>(*custom, v);
      formula_note_ = std::string(", formula kernel (NVRTC ") +
                      (formula_->from_cache() ? "cache " : "compile ") +
                      std::to_string(formula_->compile_seconds()) + " s)";
    }
  }
  ~CudaMatvec() override {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }

  std::string device_name() const override { return "cuda: " + info_.name + formula_note_; }
  BackendKind backend() const override { return BackendKind::cuda; }
  Precision precision() const override { return precision_; }

  void apply(std::span<const S> g, std::span<S> y) override {
    PW_CUDA(cudaSetDevice(device_));
    upload_g(g);
    launch(targets_.as<void>(), n_);
    download(y, n_);
  }

  void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) override {
    PW_CUDA(cudaSetDevice(device_));
    const int m = int(targets.size());
    if (m == 0) return;
    other_targets_.reserve(sizeof(F) * kDim * targets.size());
    upload_points(targets, other_targets_);
    upload_g(g);
    launch(other_targets_.as<void>(), m);
    download(y, m);
  }

  double time_apply(std::span<const S> g, int repeats) override {
    PW_CUDA(cudaSetDevice(device_));
    upload_g(g);
    for (int w = 0; w < 2; ++w) launch(targets_.as<void>(), n_);
    repeats = std::max(repeats, 1);
    std::vector<cudaEvent_t> events(repeats + 1);
    for (auto& e : events) PW_CUDA(cudaEventCreate(&e));
    PW_CUDA(cudaEventRecord(events[0], stream_));
    for (int r = 0; r < repeats; ++r) {
      launch(targets_.as<void>(), n_);
      PW_CUDA(cudaEventRecord(events[r + 1], stream_));
    }
    PW_CUDA(cudaEventSynchronize(events[repeats]));
    std::vector<double> s(repeats);
    for (int r = 0; r < repeats; ++r) {
      float ms = 0;
      PW_CUDA(cudaEventElapsedTime(&ms, events[r], events[r + 1]));
      s[r] = ms * 1e-3;
    }
    for (auto& e : events) cudaEventDestroy(e);
    return median(std::move(s));
  }

  // ---- DeviceRows (fredholm/device_rows.hpp): the product across ranks, all-gathered on GPUs ----
  void* device_stream() override { return stream_; }
  S* device_vector() override {
    g_dev_.reserve(sizeof(S) * std::size_t(n_));
    return g_dev_.as<S>();
  }
  void set_device_rows(std::size_t begin, std::size_t end) override {
    PW_CUDA(cudaSetDevice(device_));
    rows_m_ = int(end - begin);
    row_targets_.reserve(sizeof(F) * kDim * std::max<std::size_t>(end - begin, 1));
    if (rows_m_ > 0) upload_points(std::span(nodes_.p).subspan(begin, end - begin), row_targets_);
  }
  const S* apply_device_rows() override {
    PW_CUDA(cudaSetDevice(device_));
    device_vector();
    pack_g();
    rows_.reserve(sizeof(S) * std::size_t(std::max(rows_m_, 1)));
    if (rows_m_ == 0) return rows_.as<S>();
    launch(row_targets_.as<void>(), rows_m_);
    // out_ holds [c][m] doubles: S's layout for real; re, im interleaved for complex.
    const std::size_t m = std::size_t(rows_m_);
    for (int c = 0; c < kC; ++c)
      PW_CUDA(cudaMemcpy2DAsync(reinterpret_cast<double*>(rows_.as<S>()) + c, sizeof(S),
                                out_.as<double>() + std::size_t(c) * m, sizeof(double),
                                sizeof(double), m, cudaMemcpyDeviceToDevice, stream_));
    return rows_.as<S>();
  }
  void* device_scratch(std::size_t bytes) override {
    gather_.reserve(std::max<std::size_t>(bytes, 1));
    return gather_.as<void>();
  }
  void copy(void* dst, const void* src, std::size_t bytes, bool wait) override {
    if (bytes > 0) PW_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_));
    if (wait) PW_CUDA(cudaStreamSynchronize(stream_));
  }

 private:
  // Points (double, 3 coordinates) to `dst` as F[kDim] per point; also leaves them in scratch_.
  void upload_points(std::span<const Point> points, engine::DeviceBuffer& dst) {
    const std::size_t m = points.size();
    PW_CUDA(cudaStreamSynchronize(stream_));  // host_ and scratch_ may still be in use
    host_.reserve(24 * m);
    scratch_.reserve(24 * m);
    double* h = host_.as<double>();
    for (std::size_t i = 0; i < m; ++i)
      h[3 * i] = points[i].x, h[3 * i + 1] = points[i].y, h[3 * i + 2] = points[i].z;
    PW_CUDA(cudaMemcpyAsync(scratch_.as<void>(), h, 24 * m, cudaMemcpyHostToDevice, stream_));
    coords_kernel<F, kDim><<<unsigned((m + 255) / 256), 256, 0, stream_>>>(
        dst.as<F>(), scratch_.as<double>(), int(m));
    PW_CUDA_LAUNCH("fredholm coords_kernel");
  }

  void upload_g(std::span<const S> g) {
    const std::size_t bytes = sizeof(S) * std::size_t(n_);
    host_.reserve(bytes);
    g_dev_.reserve(bytes);
    PW_CUDA(cudaStreamSynchronize(stream_));  // host_ may still be in an earlier copy
    std::memcpy(host_.as<void>(), g.data(), bytes);
    PW_CUDA(cudaMemcpyAsync(g_dev_.as<void>(), host_.as<void>(), bytes, cudaMemcpyHostToDevice,
                            stream_));
    pack_g();
  }

  // The sources' weights w_j g_j from g_dev_.
  void pack_g() {
    pack_kernel<F, kDim, kC><<<(n_ + 255) / 256, 256, 0, stream_>>>(
        sources_.as<Src>(), weights_.as<double>(), g_dev_.as<double>(), n_);
    PW_CUDA_LAUNCH("fredholm pack_kernel");
  }

  void download(std::span<S> y, int m) {
    const std::size_t bytes = sizeof(double) * kC * std::size_t(m);
    host_.reserve(bytes);
    PW_CUDA(
        cudaMemcpyAsync(host_.as<void>(), out_.as<void>(), bytes, cudaMemcpyDeviceToHost, stream_));
    PW_CUDA(cudaStreamSynchronize(stream_));
    const double* h = host_.as<double>();
    for (int i = 0; i < m; ++i) {
      if constexpr (kIsComplex<S>) {
        y[i] = S(h[i], h[std::size_t(m) + i]);
      } else {
        y[i] = h[i];
      }
    }
  }

  const AllPairsPlan& plan_for(int n_i) {
    if (n_i == planned_n_i_) return plan_;
    engine::AllPairsCostModel model;
    // Issue-slot equivalents per pair: MUFU-bound e^{ts} in FP32 (one MUFU.EX2 per pair at 16
    // per clock per SM = 8 issue slots of 4 per clock), about 40 for the other kernels.
    model.per_pair = kWide ? 8.0 : 40.0;
    model.loads_per_source = 1.0;
    model.components = kC;
    model.partial_bytes_per_target = sizeof(Partial) * kC;
    if constexpr (kIsFormula<K>) {
      model.shapes.push_back({kTile, formula_->blocks_per_sm(), 1.0});
    } else {
      model.shapes.push_back({kTile, engine::all_pairs_blocks_per_sm<Policy, kTile, 1>(), 1.0});
    }
    plan_ = engine::plan_all_pairs(model, n_i, n_, info_.multiprocessors, kMaxPartialBytes);
    planned_n_i_ = n_i;
    workspace_.prepare(plan_, engine::all_pairs_partial_bytes(model, plan_, n_i), stream_);
    return plan_;
  }

  void launch(const void* targets, int n_i) {
    out_.reserve(sizeof(double) * kC * std::size_t(std::max(n_i, n_)));
    MatvecArgs<K> a;
    a.plan = plan_for(n_i);
    a.n_i = n_i;
    a.n_j = n_;
    a.partial = workspace_.partial();
    a.tickets = workspace_.tickets();
    a.targets = targets;
    a.sources = sources_.as<void>();
    a.out = out_.as<double>();
    a.kernel = kernel_;
    if constexpr (kIsFormula<K>) {
      formula_->launch(a, stream_);
      PW_CUDA_LAUNCH("fredholm all_pairs_kernel (matvec, formula kernel)");
    } else {
      engine::launch_all_pairs<Policy, kTile, 1>(a, stream_, "fredholm all_pairs_kernel (matvec)");
    }
  }

  K kernel_;
  Precision precision_;
  int device_ = 0;
  DeviceInfo info_;
  const Nodes& nodes_;
  cudaStream_t stream_ = nullptr;
  int n_ = 0;
  int planned_n_i_ = -1;
  AllPairsPlan plan_;
  engine::DeviceBuffer weights_, targets_, other_targets_, sources_, g_dev_, out_, scratch_;
  engine::DeviceBuffer row_targets_, rows_, gather_;  // DeviceRows: targets, rows, scratch
  int rows_m_ = 0;
  engine::PinnedBuffer host_;
  engine::AllPairsWorkspace workspace_;
  std::unique_ptr<FormulaMatvecKernel> formula_;  // a custom kernel's NVRTC kernel
  std::string formula_note_;
};

template <class S, class K, class F, bool kMixed>
std::unique_ptr<Matvec<S>> make_dim(const K& kernel, Precision p, int device, const Spec& spec,
                                    const Nodes& nodes) {
  if constexpr (std::is_same_v<K, ph::SquareWell>) {
    return std::make_unique<CudaMatvec<S, K, F, kMixed, 1>>(kernel, p, device, nodes);
  } else if constexpr (std::is_same_v<K, ph::Helmholtz>) {
    return std::make_unique<CudaMatvec<S, K, F, kMixed, 3>>(kernel, p, device, nodes);
  } else {
    if (spec.dim == 1)
      return std::make_unique<CudaMatvec<S, K, F, kMixed, 1>>(kernel, p, device, nodes);
    return std::make_unique<CudaMatvec<S, K, F, kMixed, 3>>(kernel, p, device, nodes);
  }
}

template <class S, bool kC, class F, bool kMixed>
std::unique_ptr<Matvec<S>> make_formula(Precision p, int device, const Spec& spec,
                                        const Nodes& nodes) {
  using K = FormulaTag<kC>;
  if (spec.dim == 1)
    return std::make_unique<CudaMatvec<S, K, F, kMixed, 1>>(K{}, p, device, nodes,
                                                            spec.custom.get());
  return std::make_unique<CudaMatvec<S, K, F, kMixed, 3>>(K{}, p, device, nodes, spec.custom.get());
}

template <class S, bool kC>
std::unique_ptr<Matvec<S>> make_formula(Precision precision, int device, const Spec& spec,
                                        const Nodes& nodes) {
  switch (precision) {
    case Precision::single:
      return make_formula<S, kC, float, false>(precision, device, spec, nodes);
    case Precision::mixed:
      return make_formula<S, kC, float, true>(precision, device, spec, nodes);
    case Precision::double_:
      break;
  }
  return make_formula<S, kC, double, false>(precision, device, spec, nodes);
}

}  // namespace

template <class S>
std::unique_ptr<Matvec<S>> make_cuda_matvec(Precision precision, int device, const Spec& spec,
                                            const Nodes& nodes) {
  if (spec.custom) {  // formulas: compiled by NVRTC (cuda_formula_matvec.cpp)
    if (spec.custom->is_complex() != kIsComplex<S>)
      throw Error("the kernel's scalar type does not match the vectors'");
    return make_formula<S, kIsComplex<S>>(precision, device, spec, nodes);
  }
  return with_kernel(spec, [&](auto kernel) -> std::unique_ptr<Matvec<S>> {
    using K = decltype(kernel);
    constexpr bool kFormula =
        std::is_same_v<K, FormulaKernel> || std::is_same_v<K, ComplexFormulaKernel>;
    if constexpr (K::kComplex != kIsComplex<S> || kFormula) {  // (formulas: handled above)
      throw Error("the kernel's scalar type does not match the vectors'");
    } else {
      switch (precision) {
        case Precision::single:
          return make_dim<S, K, float, false>(kernel, precision, device, spec, nodes);
        case Precision::mixed:
          return make_dim<S, K, float, true>(kernel, precision, device, spec, nodes);
        case Precision::double_:
          break;
      }
      return make_dim<S, K, double, false>(kernel, precision, device, spec, nodes);
    }
  });
}

template std::unique_ptr<Matvec<double>> make_cuda_matvec<double>(Precision, int, const Spec&,
                                                                  const Nodes&);
template std::unique_ptr<Matvec<std::complex<double>>> make_cuda_matvec<std::complex<double>>(
    Precision, int, const Spec&, const Nodes&);

}  // namespace pairwise::fredholm
