// The md workload's kernel interface (OpenMM's Platform/Kernel split): the run driver talks to an
// MdEngine; `reference` (double, brute force with minimum image: the oracle), `cpu` (OpenMP, cell
// list + half Verlet list with skin) and `cuda` (everything on the device) implement it.
//
// An engine owns the state after set_state(): advance() runs whole steps without handing the
// state back (the CUDA engine keeps it on the device and reads back only what thermo() and
// get_state() ask for). Atom order inside an engine is its own business (the cpu and cuda
// engines reorder along a space-filling curve); forces(), neighbor_pairs() and get_state() answer
// in the order of the atoms passed to set_state().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/dynamics.hpp"
#include "md/system.hpp"
#include "pairwise/backend.hpp"
#include "pairwise/precision.hpp"

namespace pairwise {
class CheckpointWriter;
class CheckpointReader;
}  // namespace pairwise

namespace pairwise::md {

struct EngineOptions {
  Precision precision = Precision::mixed;
  double skin = 0.3;
  engine::DynamicsOptions dynamics;  // dt, thermostat, kT, γ, ν, seed
  int sort_every = 1000;             // steps between space-filling-curve reorders (0: never)
  int neighbor_capacity = 0;         // initial slots per atom (0: estimated from the density)
};

struct Thermo {
  double kinetic = 0;    // Σ ½ m v²
  double potential = 0;  // Σ_pairs U
  double virial = 0;     // Σ_pairs r_ij · f_ij
};

struct EngineStats {
  long long rebuilds = 0;  // neighbor-list builds
  long long regrows = 0;   // capacity overflows (each followed by a rebuild in the same step)
  long long reorders = 0;  // space-filling-curve sorts
  int capacity = 0;        // neighbor slots per atom now
  // cuda, style = "custom": NVRTC compile (or cache read) time of the force + thermo kernels.
  double custom_compile_seconds = 0;
  bool custom_compiled_from_cache = false;
};

class MdEngine {
 public:
  virtual ~MdEngine() = default;
  virtual BackendKind backend() const = 0;
  virtual Precision precision() const = 0;
  virtual std::string device_name() const = 0;

  // Loads the system (box, force field, atoms) and computes the forces. Throws pairwise::Error.
  virtual void set_state(const System& s) = 0;
  // Positions (wrapped into the box), image flags and velocities, in set_state's order.
  virtual void get_state(System& s) = 0;
  // Runs `steps` steps; the first has index first_step (the random counter of the thermostats).
  virtual void advance(std::uint64_t first_step, int steps) = 0;
  virtual Thermo thermo() = 0;
  // The id of the first atom (in set_state's order) whose position or velocity is not finite or
  // whose speed exceeds `max_speed`; 0 if none.
  virtual std::uint32_t first_bad_atom(double max_speed) = 0;
  // Forces of the current state, in set_state's order.
  virtual void forces(std::vector<double>& fx, std::vector<double>& fy,
                      std::vector<double>& fz) = 0;
  // The current neighbor list as pairs (i < j) of set_state indices, sorted (reference: brute
  // force at cutoff + skin).
  virtual std::vector<std::pair<int, int>> neighbor_pairs() = 0;
  virtual EngineStats stats() const { return {}; }
  // Checkpoints (src/md/checkpoint.hpp): the engine's whole state, so that a restarted run
  // continues bitwise. `s` is the run's system (the initial one when loading: box, force field,
  // types, ids). The defaults save the positions, images and velocities of get_state() and load
  // them through set_state() (a continuation that is not bitwise: the host engines override them
  // with their storage order, raw positions and neighbour-list state; see exact_restart()).
  virtual void save_checkpoint(CheckpointWriter& w, System& s);
  virtual void load_checkpoint(CheckpointReader& r, System& s);
  virtual bool exact_restart() const { return false; }
  // Seconds per step of `steps` steps of dynamics, timed by the engine (device events on cuda).
  virtual double time_steps(int steps);
};

std::unique_ptr<MdEngine> make_reference_engine(const EngineOptions& o);
std::unique_ptr<MdEngine> make_cpu_engine(const EngineOptions& o);
std::unique_ptr<MdEngine> make_cuda_engine(const EngineOptions& o);  // throws without CUDA
// `backend` must be resolved (not automatic).
std::unique_ptr<MdEngine> make_md_engine(BackendKind backend, const EngineOptions& o);

// Pressure (2 KE + W) / (3 V) with the kinetic part from dof = 3N − 3 (LAMMPS's compute pressure
// with its default temperature): 2 KE here is dof · T.
double pressure(const Thermo& t, double volume);

}  // namespace pairwise::md
