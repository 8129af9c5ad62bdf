// The ljc custom non-bonded term (a formula, ljc/custom_nonbonded.hpp) on the GPU (issue 13),
// inside the built-in Newton-3 tile kernel: cuda_ljc_tiles.cuh is a template on its pair functor,
// and here a functor `CustomPair` is generated from the formula (its energy and F/r as one
// __device__ function of r², q1, q2, sigma1, sigma2, epsilon1, epsilon2) and the exact
// instantiations the cuda backend launches are compiled by NVRTC (formula/nvrtc_loader, cached on
// disk): the same tiles, warps, staging, lane rotation, fixed-point accumulation and exclusion
// masks as LJ + Coulomb. Excluded pairs are skipped by the tile masks exactly as the built-in
// skips them; the 1-4 pairs (also masked there) are added by pairs14_kernel times scale14_lj.
// The per-atom parameters are the molecule's own q, σ, ε (in par: x, y, z), so any per-atom
// combining rule the formula writes works. Plain C++ (g++): launches go through the driver API,
// on the cuda backend's stream; the CPU tests check the generated source and that it compiles.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/formula/nvrtc_loader.hpp"
#include "engine/formula/radial_program.hpp"
#include "ljc/cuda_tile_args.hpp"
#include "ljc/custom_nonbonded.hpp"

namespace pairwise::ljc {

// The term's energy and F/r as the pair program the GPU evaluates (formula::pair_program; inputs
// r², q1, q2, sigma1, sigma2, epsilon1, epsilon2): `uniform` for the tiles where every atom has the
// same σ and ε (all parameters loop-invariant), else the first atom's invariant over partners.
formula::RadialProgram ljc_pair_program(const CustomNonbonded& custom, bool uniform);

// The NVRTC program of the custom term for precision p and i_per_lane targets per lane (the tile
// width the cuda backend chose: 1, or 4 in FP32 and 2 in FP64): the CustomPair source, the
// embedded kernel headers and the name expressions of tiles_kernel (without and with energies)
// and pairs14_kernel. arch 0: device 0's. A table term (table_file) is its interpolation with the
// table in device memory (engine/table_cuda.hpp).
formula::CudaProgram ljc_custom_tiles_program(const CustomNonbonded& custom, Precision p,
                                              int i_per_lane, int arch = 0);

// The compiled and loaded kernels of one program, and their launches.
class CudaCustomTiles {
 public:
  CudaCustomTiles(const CustomNonbonded& custom, Precision p, int i_per_lane);
  int i_per_lane() const { return i_per_lane_; }
  // One wave of resident warps over a.n_tiles tiles (a.warps is set here), as the built-in
  // launcher does (cuda_ljc.cu: launch_tiles_for); `sms` multiprocessors.
  void launch_tiles(cuda::TileKernelArgs a, bool energy, int sms, void* stream) const;
  void launch_pairs14(const cuda::Pairs14Args& a, void* stream) const;
  double compile_seconds() const { return compiled_.seconds; }
  bool from_cache() const { return compiled_.from_cache; }

 private:
  formula::CompiledProgram compiled_;
  std::unique_ptr<formula::DeviceKernel> tiles_[2], pairs14_;  // tiles_[energy]
  int i_per_lane_ = 1;
  int blocks_per_sm_[2] = {1, 1};
};

}  // namespace pairwise::ljc
