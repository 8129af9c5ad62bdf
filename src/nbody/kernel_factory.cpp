#include "core/backend_factory.hpp"
#include "nbody/backends.hpp"
#include "nbody/custom_gravity.hpp"
#include "nbody/ranked_kernel.hpp"
#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::nbody {

void GravityKernel::compute_range(ForceKind kind, std::size_t begin, std::size_t end, Forces& out) {
  Forces all;
  compute(kind, all);
  const bool jerk = kind == ForceKind::accel_jerk;
  out.resize(end - begin, jerk);
  auto keep = [&](const std::vector<double>& from, std::vector<double>& to) {
    std::copy(from.begin() + long(begin), from.begin() + long(end), to.begin());
  };
  keep(all.ax, out.ax), keep(all.ay, out.ay), keep(all.az, out.az), keep(all.pot, out.pot);
  if (jerk) keep(all.jx, out.jx), keep(all.jy, out.jy), keep(all.jz, out.jz);
}

namespace {
std::unique_ptr<GravityKernel> make_backend_kernel(BackendKind backend,
                                                   const KernelOptions& options) {
  if (options.custom) return make_custom_gravity_kernel(backend, options);
  return make_for_backend(
      backend, "make_gravity_kernel", [&] { return make_reference_gravity_kernel(options); },
      [&] { return make_cpu_gravity_kernel(options); },
      [&] { return make_cuda_gravity_kernel(options); });
}
}  // namespace

// Many ranks: each computes the forces on its block of targets, the forces are all-gathered
// (ranked_kernel.hpp).
std::unique_ptr<GravityKernel> make_gravity_kernel(BackendKind backend,
                                                   const KernelOptions& options) {
  auto kernel = make_backend_kernel(backend, options);
  parallel::Communicator& comm = parallel::world();
  if (comm.size() == 1) return kernel;
  return std::make_unique<RankedGravityKernel>(std::move(kernel), comm);
}

}  // namespace pairwise::nbody
