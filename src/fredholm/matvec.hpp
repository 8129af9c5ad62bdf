// The kernel sum of the Nyström matrix-vector product, behind one interface per backend (the
// OpenMM Platform/Kernel split, as nbody/gravity_kernel.hpp):
//   y_i = Σ_j w_j K(t_i, s_j) g_j,   i over the targets, j over the nodes.
// The targets are the nodes themselves (apply) or any other points (apply_at: Nyström
// interpolation). S is double for real kernels and std::complex<double> for complex ones; arrays
// cross the interface in double on the host, each backend computes in its own precision:
// single = FP32 kernel and sums; mixed = FP32 kernel, FP64 sums; double = FP64.
#pragma once

#include <complex>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fredholm/problem.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::fredholm {

template <class S>
class Matvec {
 public:
  virtual ~Matvec() = default;
  virtual std::string device_name() const = 0;
  virtual BackendKind backend() const = 0;
  virtual Precision precision() const = 0;
  // y = Σ_j w_j K(node_i, node_j) g_j for every node i.
  virtual void apply(std::span<const S> g, std::span<S> y) = 0;
  // The same sum at other targets (y has targets.size() entries).
  virtual void apply_at(std::span<const Point> targets, std::span<const S> g, std::span<S> y) = 0;
  // Seconds per apply() on g (kernel work only where the backend can tell; CUDA: events around
  // the launch): median of `repeats` after a warm-up. For benchmarks.
  virtual double time_apply(std::span<const S> g, int repeats) = 0;
};

struct MatvecOptions {
  BackendKind backend = BackendKind::cpu;  // resolved (not automatic)
  Precision precision = Precision::double_;
  int device = 0;
};

// Throws pairwise::Error when the backend is not compiled in or the problem does not fit.
template <class S>
std::unique_ptr<Matvec<S>> make_matvec(const MatvecOptions& options, const Spec& spec,
                                       const Nodes& nodes);

// Per backend (reference.cpp, cpu.cpp, cuda_matvec.cu).
template <class S>
std::unique_ptr<Matvec<S>> make_reference_matvec(const Spec& spec, const Nodes& nodes);
template <class S>
std::unique_ptr<Matvec<S>> make_cpu_matvec(Precision precision, const Spec& spec,
                                           const Nodes& nodes);
template <class S>
std::unique_ptr<Matvec<S>> make_cuda_matvec(Precision precision, int device, const Spec& spec,
                                            const Nodes& nodes);

}  // namespace pairwise::fredholm
