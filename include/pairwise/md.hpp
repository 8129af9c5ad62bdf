// Public API of the md workload (Lennard-Jones molecular dynamics in LAMMPS `units lj`): build a
// system from arrays, a LAMMPS data file or a TOML config (the one `pairwise run` reads), compute
// forces, energy and virial once, run N steps with observers, read the state back.
//
//   pairwise::md::SystemArrays sys = pairwise::md::lattice("fcc", 0.8442, {5, 5, 5}, 1.44, 87287);
//   pairwise::md::Settings set;  set.run.backend = pairwise::BackendKind::cpu;
//   pairwise::md::Simulation sim(sys, set);
//   sim.run(100, {{10, [&](std::int64_t step) { auto t = sim.thermo(); ... }}});
//   pairwise::md::State st = sim.state();
//
// Errors are pairwise::Error with the messages the command line prints. Compiles with g++ alone.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pairwise/types.hpp"

namespace pairwise::md {

// ε, σ and cutoff (0: the global one) of one type pair (types 1..T); unlisted pairs mix from the ii
// and jj ones.
struct PairCoefficients {
  int i = 1, j = 1;
  double epsilon = 1, sigma = 1, cutoff = 0;
};

// style = "custom": U(r) of each type pair from a formula (docs/formulas.md, the keys of
// [force_field] style = "custom"). A pair's parameters are, by priority: its own numbers, the
// combined ones, the global ones.
struct FormulaPair {
  int i = 1, j = 1;
  std::string energy;                        // "": FormulaForceField::energy
  std::map<std::string, double> parameters;  // this pair's numbers
  double cutoff = 0;                         // 0: the global cutoff
};
struct FormulaForceField {
  std::string energy;              // default U(r), e.g. "4*eps*(s6^2 - s6); s6 = (sig/r)^6"
  std::string truncation = "cut";  // cut | shift | shifted_force
  std::map<std::string, double> parameters;                      // global parameters
  std::map<int, std::map<std::string, double>> type_parameters;  // per type 1..T, combined by...
  std::map<std::string, std::string> combine;  // ...a formula in <name>1, <name>2 per pair
  std::vector<FormulaPair> pairs;
};

// style = "table": LAMMPS pair_style table files (linear | spline, N points in r²).
struct TablePair {
  int i = 1, j = 1;
  std::string file, keyword;  // "": TableForceField's
  double cutoff = 0;          // 0: TableForceField::cutoff
};
struct TableForceField {
  std::string file, keyword;     // the file and its section (pair_coeff's keyword)
  std::string style = "linear";  // linear | spline
  int n = 1000;                  // LAMMPS's N: points of the internal table
  double cutoff = 0;             // 0: the table's last r (LAMMPS's pair_coeff without a cutoff)
  std::vector<TablePair> pairs;
};

struct ForceFieldSpec {
  std::string style = "cut";            // cut | shift | shifted_force | custom | table
  double cutoff = 2.5;                  // global cutoff (σ); not used by style = "table"
  std::string mixing = "geometric";     // geometric | arithmetic
  std::vector<double> masses;           // per type (index type-1); empty: 1 for every type
  std::vector<PairCoefficients> pairs;  // empty: ε = σ = 1 for every type (built-in styles)
  FormulaForceField formula;            // style = "custom"
  TableForceField table;                // style = "table"
};

// A system as arrays: N atoms, positions and velocities x0 y0 z0 x1 ... (3N), types 1..T (empty:
// all 1), ids (empty: 1..N).
struct SystemArrays {
  PeriodicBox box;
  std::vector<double> positions, velocities;  // velocities empty: zero
  std::vector<int> types;
  std::vector<std::uint32_t> ids;
  ForceFieldSpec force_field;
};

// An fcc | bcc | sc lattice of n cells per side at reduced density ρ*, all type 1, with
// Maxwell-Boltzmann velocities at `temperature` (total momentum zero, 3N - 3 dof), as
// `pairwise run` builds it from [system].
SystemArrays lattice(const std::string& kind, double density, std::array<int, 3> cells,
                     double temperature, std::uint64_t velocity_seed = 87287);

struct Settings {
  RunOptions run;
  double skin = 0.3;          // neighbor-list skin (σ)
  int sort_every = 1000;      // steps between space-filling-curve reorders (0: never)
  int neighbor_capacity = 0;  // initial neighbor slots per atom (0: estimated)
  double dt = 0.005;
  std::string thermostat = "none";  // none | langevin | andersen
  double temperature = 1.0;         // thermostat kT
  double gamma = 1.0;               // Langevin friction
  double nu = 1.0;                  // Andersen collision frequency
  std::uint64_t seed = 1;           // thermostat random stream
  bool allow_overlap = false;       // accept atoms closer than 0.5 σ
};

// The thermo row of `pairwise run` (per-atom energies, as LAMMPS prints with thermo_modify norm).
struct ThermoRow {
  std::int64_t step = 0;
  double temperature = 0, potential = 0, kinetic = 0, total = 0, pressure = 0;
  double virial = 0;  // Σ_pairs r·f, total (not per atom)
  long long rebuilds = 0;
};

// The state in the order the atoms were given (DynamicsState): positions wrapped into the box,
// velocities, and the box, ids, types and image flags (3N, interleaved) of the atoms.
struct State : DynamicsState {
  PeriodicBox box;
  std::vector<std::uint32_t> ids;
  std::vector<int> types;
  std::vector<int> images;
};

// Forces (3N), total potential energy and virial of the current positions.
struct ForceResult {
  std::vector<double> forces;
  double potential = 0, virial = 0;
};

class Simulation {
 public:
  Simulation(const SystemArrays& system, const Settings& settings);
  // A LAMMPS data file (atomic style, with Masses and Pair Coeffs) and a force field's style,
  // cutoff and mixing (its masses and pairs are taken from the file; pairs listed are overrides).
  static Simulation from_data_file(const std::string& path, const ForceFieldSpec& force_field,
                                   const Settings& settings);
  // A TOML config as `pairwise run` reads it ([system], [force_field], [neighbor], [integrator],
  // [run]); its [output] keys are read and checked but not acted on: steps() is [integrator] steps.
  static Simulation from_config(const std::string& path);

  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  std::size_t size() const;
  BackendKind backend() const;
  Precision precision() const;
  std::string device_name() const;
  std::int64_t step() const;                     // steps taken so far
  std::int64_t configured_steps() const;         // from_config: [integrator] steps; else 0
  std::int64_t configured_thermo_every() const;  // from_config: [output] thermo_every; else 10
  double time() const;                           // step() · dt

  ForceResult compute_forces();
  ThermoRow thermo();
  State state();
  // Replaces positions and velocities (3N each; velocities may be empty to keep them).
  void set_state(const std::vector<double>& positions, const std::vector<double>& velocities);

  // Runs `steps` steps. Every observer is called after each multiple of its `every` (counted in
  // absolute steps) and after the last step. Throws pairwise::Error when the system blows up (the
  // CLI's message, checked at every observer call and at the end).
  void run(std::int64_t steps, const Observers& observers = {});

 private:
  struct Impl;
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pairwise::md
