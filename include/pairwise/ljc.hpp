// Public API of the ljc workload: all-pairs Lennard-Jones + Coulomb molecules in implicit solvent
// (Å, kcal/mol, e, amu, fs; Coulomb constant 332.0636), harmonic bonds, exclusions and scaled 1-4
// pairs derived from the bonds, a constant, linear or sigmoidal dielectric; velocity Verlet (NVE)
// or BAOAB Langevin dynamics (docs/ljc.md).
//
//   auto mol = pairwise::ljc::globule(256, 1);
//   pairwise::ljc::Settings set;  set.dielectric = "sigmoidal";  set.thermostat = "langevin";
//   pairwise::ljc::Simulation sim(mol, set);
//   sim.run(1000, {{100, [&](std::int64_t) { auto row = sim.thermo(); ... }}});
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pairwise/physics/dielectric.hpp"
#include "pairwise/types.hpp"

namespace pairwise::ljc {

// U = ½ k (r - r0)², atoms i, j 0-based.
struct BondSpec {
  int i = 0, j = 0;
  double r0 = 0, k = 0;
};

// N atoms: positions and velocities (Å/fs; empty: thermal at Settings::temperature) x0 y0 z0 ...
// (3N), per-atom charge (e), σ (Å), ε (kcal/mol), mass (amu), bonds and explicit exclusions.
struct MoleculeArrays {
  std::vector<double> positions, velocities, charges, sigmas, epsilons, masses;
  std::vector<BondSpec> bonds;
  std::vector<std::pair<int, int>> exclusions;
};

// The test globule of `pairwise run` ([system] molecule = "globule"): an n-bead chain folded into a
// compact globule, charges ±charge, consecutive beads bonded.
MoleculeArrays globule(std::size_t n, std::uint64_t seed, double charge = 0.4);
// A topology file (.toml / .json, docs/ljc.md) or a PQR file (every atom ε = pqr_epsilon, bonds
// by distance with k = pqr_bond_k), as [system] molecule = "file" reads it.
MoleculeArrays read_molecule(const std::string& path, double pqr_epsilon = 0.1,
                             double pqr_bond_k = 300.0);

struct Settings {
  RunOptions run;
  std::string dielectric = "constant";  // constant | linear | sigmoidal
  double epsilon = 1.0;                 // constant dielectric
  double linear_factor = 1.0;           // linear: ε(r) = s r
  physics::SigmoidalCoefficients sigmoidal = physics::kSigmoidalDefault;  // docs/ljc.md
  double scale14_lj = 0.5, scale14_coulomb = 1.0 / 1.2;
  std::string thermostat = "none";  // none (velocity Verlet) | langevin (BAOAB)
  double dt = 1.0;                  // fs
  double temperature = 300.0;       // K: thermal velocities and the Langevin bath
  double friction = 1.0;            // 1/ps
  std::uint64_t seed = 1;
  // A custom non-bonded term (docs/formulas.md, [forcefield] custom): U(r) in kcal/mol as a
  // formula in r (Å) and q1 q2 sigma1 sigma2 epsilon1 epsilon2, with exclusions and 1-4 scaling
  // (scale14_lj) as the LJ term; "": none. custom_replaces: instead of LJ + Coulomb (bonds stay).
  std::string custom;
  bool custom_replaces = false;
};

// The thermo row of `pairwise run` (kcal/mol; drift (E - E0)/|E0| from the first row).
struct ThermoRow {
  std::int64_t step = 0;
  double time_ps = 0, temperature = 0, kinetic = 0, lj = 0, coulomb = 0, bond = 0, total = 0;
  double drift = 0;
  double custom = 0;  // the custom non-bonded term (Settings::custom), part of total
};

struct ForceResult {
  std::vector<double> forces;  // kcal/(mol·Å), 3N
  double lj = 0, coulomb = 0, bond = 0, custom = 0;
};

using State = DynamicsState;  // positions in Å, velocities in Å/fs

class Simulation {
 public:
  Simulation(const MoleculeArrays& molecule, const Settings& settings);
  // A TOML config as `pairwise run` reads it (workload = "ljc"); configured_steps() and
  // configured_interval() give its [run] steps and [output] interval.
  static Simulation from_config(const std::string& path);

  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  std::size_t size() const;
  BackendKind backend() const;
  Precision precision() const;
  std::string device_name() const;
  std::int64_t step() const;
  std::int64_t configured_steps() const;     // from_config: [run] steps; else 0
  std::int64_t configured_interval() const;  // from_config: [output] interval; else 100

  ForceResult compute_forces() const;  // at the current positions (no new evaluation)
  ThermoRow thermo();  // throws pairwise::Error when the state is not finite (the CLI's message)
  State state() const;

  // Runs `steps` steps; observers as in types.hpp. Throws pairwise::Error when the state becomes
  // non-finite (checked at every observer call and at the end).
  void run(std::int64_t steps, const Observers& observers = {});

 private:
  struct Impl;
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pairwise::ljc
