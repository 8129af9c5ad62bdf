// The abstract LJ + Coulomb force kernel every ljc backend implements (OpenMM's Platform/Kernel
// split): drivers, tests and benchmarks talk to this interface only. Arrays cross it in double on
// the host; each backend computes in its own precision (pairwise/precision.hpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/dynamics.hpp"
#include "ljc/molecule.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/physics/ljc.hpp"
#include "pairwise/precision.hpp"

namespace pairwise::ljc {

// Forces (kcal/(mol·Å)) on every atom and the energy terms (kcal/mol): nonbonded LJ and Coulomb
// (1-4 pairs included, scaled) and harmonic bonds.
struct LjcForces {
  std::vector<double> fx, fy, fz;
  double lj = 0, coulomb = 0, bond = 0;
  double custom = 0;  // the custom non-bonded term ([forcefield] custom), 1-4 pairs scaled
  double energy() const { return lj + coulomb + bond + custom; }
  void resize(std::size_t n) {
    fx.assign(n, 0.0), fy.assign(n, 0.0), fz.assign(n, 0.0);
    lj = coulomb = bond = custom = 0;
  }
};

// Which CUDA pair kernel evaluates the all-pairs sum: one-sided (the shared all-pairs engine, each
// ordered pair) or Newton's third law (each unordered pair once per tile pair, j-forces passed
// across lanes). automatic: newton3 (faster at every N and precision measured).
enum class PairKernel { automatic, one_sided, newton3 };
PairKernel parse_pair_kernel(std::string_view text);  // throws pairwise::Error
std::string_view to_string(PairKernel k);

// How the cuda backend runs MD steps (advance): CUDA graphs of 20 steps around the pair kernel, or
// many steps inside one persistent cooperative kernel (src/ljc/cuda_persistent.cuh). automatic:
// persistent up to kPersistentMaxN atoms (where the benchmark measured it faster) when the system
// fits the device, graph above.
enum class StepKernel { automatic, graph, persistent };
StepKernel parse_step_kernel(std::string_view text);  // throws pairwise::Error
std::string_view to_string(StepKernel k);
inline constexpr std::size_t kPersistentMaxN = 1280;

class CustomNonbonded;

struct LjcKernelOptions {
  Precision precision = Precision::mixed;
  int device = 0;
  PairKernel pair_kernel = PairKernel::automatic;
  StepKernel step_kernel = StepKernel::automatic;
  // [forcefield] custom (ljc/custom_nonbonded.hpp): a formula term beside or instead of LJ +
  // Coulomb, on reference and cpu.
  std::shared_ptr<const CustomNonbonded> custom = nullptr;
};

class LjcKernel {
 public:
  virtual ~LjcKernel() = default;
  virtual std::string device_name() const = 0;
  virtual BackendKind backend() const = 0;
  virtual Precision precision() const = 0;

  // Loads topology, parameters and positions (the molecule must be valid).
  virtual void set_system(const Molecule& m, const NonbondedOptions& nb) = 0;
  // New positions of the loaded atoms (n each).
  virtual void set_positions(const double* x, const double* y, const double* z) = 0;
  // Forces and energies at the loaded positions.
  virtual void compute(LjcForces& out) = 0;
  // Seconds per force evaluation (median of `repeats` after a warm-up), backend work only.
  virtual double time_compute(int repeats) = 0;

  // Advances the positions and velocities of `m` (the loaded system) by `steps` steps of the
  // shared dynamics (engine::dynamics_step: velocity Verlet, or BAOAB Langevin; o.dt in fs),
  // numbered first_step + 1, ...; inv_mass[i] = kAccelFactor / m_i (Å/fs² per kcal/(mol·Å)).
  // On entry `f` holds the forces at the current positions; on return the forces and energies at
  // the new ones. This default loops engine::dynamics_step on the host; the cuda backend keeps the
  // whole step on the device (CUDA graphs) and transfers only at the end.
  virtual void advance(Molecule& m, const std::vector<double>& inv_mass,
                       const engine::DynamicsOptions& o, std::uint64_t first_step,
                       std::int64_t steps, LjcForces& f);
};

std::unique_ptr<LjcKernel> make_ljc_kernel(BackendKind backend, const LjcKernelOptions& options);

// ---- shared by the host backends (and the CUDA backend's setup) ----

struct ScaledPair {
  int j = 0;
  double lj = 0, coulomb = 0;  // 0, 0: excluded; the 1-4 factors: a 1-4 pair
};

// Topology and parameters in the form the loops use.
struct PreparedSystem {
  std::size_t n = 0;
  physics::DielectricKind dielectric = physics::DielectricKind::constant;
  physics::SigmoidalTerms<double> sigmoidal;
  std::vector<physics::LjcAtom<double>> atoms;  // scaled charge, σ/2, sqrt(ε)
  std::vector<int> row;                         // CSR over atoms: pairs[row[i] .. row[i+1])
  std::vector<ScaledPair> pairs;                // both directions, sorted by j in each row
  PairLists lists;
  std::vector<Bond> bonds;
  double scale14_lj = 0, scale14_coulomb = 0;
};
PreparedSystem prepare_system(const Molecule& m, const NonbondedOptions& nb);

// Harmonic bond forces and energy in double, added into `out`.
void add_bond_forces(const std::vector<Bond>& bonds, const double* x, const double* y,
                     const double* z, LjcForces& out);

// Calls f(std::integral_constant<DielectricKind, D>{}) for the runtime kind d.
template <class F>
decltype(auto) with_dielectric(physics::DielectricKind d, F&& f) {
  using physics::DielectricKind;
  switch (d) {
    case DielectricKind::linear:
      return f(std::integral_constant<DielectricKind, DielectricKind::linear>{});
    case DielectricKind::sigmoidal:
      return f(std::integral_constant<DielectricKind, DielectricKind::sigmoidal>{});
    case DielectricKind::constant:
      break;
  }
  return f(std::integral_constant<DielectricKind, DielectricKind::constant>{});
}

}  // namespace pairwise::ljc
