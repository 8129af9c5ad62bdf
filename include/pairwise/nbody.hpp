// Public API of the nbody workload (direct-summation gravity in Hénon units: G = 1, total mass 1,
// E = -1/4 for a virialized system): build particles from arrays, the generators `pairwise run`
// uses (Plummer, uniform sphere, Kepler pair) or a particle table; compute accelerations and
// potentials once; integrate to a time with observers; read the state and diagnostics back.
//
//   auto p = pairwise::nbody::plummer(1024, 1);
//   pairwise::nbody::Settings set;  set.eps = 0.01;
//   pairwise::nbody::Simulation sim(p, set);
//   sim.run_to(1.0, {{0.125, [&](double t) { auto d = sim.diagnostics(); ... }}});
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pairwise/types.hpp"

namespace pairwise::nbody {

// N particles: masses (N), positions and velocities x0 y0 z0 x1 ... (3N).
struct ParticleArrays {
  std::vector<double> masses, positions, velocities;
};

// The initial conditions of [system] initial = plummer | uniform_sphere | kepler (docs: README).
ParticleArrays plummer(std::size_t n, std::uint64_t seed);
ParticleArrays uniform_sphere(std::size_t n, std::uint64_t seed);
ParticleArrays kepler(double eccentricity, double semi_major_axis = 1.0);
// A particle table (m x y z vx vy vz a line, docs/formats.md) and the time in its header.
ParticleArrays read_table(const std::string& path, double* time = nullptr);

struct Settings {
  RunOptions run;
  double eps = 0.01;                         // Plummer softening length (the kernels use ε²)
  std::string integrator = "hermite_block";  // leapfrog | hermite | hermite_block
  double dt = 1.0 / 128;                     // leapfrog step
  double eta = 0.01;                         // Hermite: Aarseth accuracy parameter
  double dt_max = 1.0 / 16;                  // Hermite: largest step
  double dt_min = 1.0 / (1ull << 40);        // Hermite: smallest step before an error
  // φ(r) per unit masses as a formula in r and eps (docs/formulas.md, [system] potential), e.g.
  // "-1/sqrt(r^2 + eps^2)"; "": Plummer-softened Newton. Its force and jerk are derived from it.
  std::string potential;
};

// The diagnostic row of `pairwise run` (columns t, steps, K, W, E, dE/E0, |p|, |L|, Q).
struct DiagnosticsRow {
  double time = 0;
  std::uint64_t steps = 0;
  double kinetic = 0, potential = 0, total = 0, energy_error = 0;
  double momentum = 0, angular_momentum = 0, virial_ratio = 0;
};

// Accelerations (3N) and potentials φ (N) of every particle from all the others.
struct ForceResult {
  std::vector<double> accelerations, potentials;
};

class Simulation {
 public:
  Simulation(const ParticleArrays& particles, const Settings& settings);
  // A TOML config as `pairwise run` reads it (workload = "nbody"); configured_t_end() and
  // configured_interval() give its [run] t_end and [output] interval.
  static Simulation from_config(const std::string& path);

  Simulation(Simulation&&) noexcept;
  Simulation& operator=(Simulation&&) noexcept;
  ~Simulation();

  std::size_t size() const;
  BackendKind backend() const;
  Precision precision() const;
  std::string device_name() const;
  double time() const;
  double configured_t_end() const;     // from_config: [run] t_end; else 1
  double configured_interval() const;  // from_config: [output] interval; else 0.125

  // Forces of the current (synchronized) state, on the simulation's backend and precision.
  ForceResult compute_forces();
  // Diagnostics of the current state; the energy error is relative to the energy at t = 0.
  DiagnosticsRow diagnostics();
  ParticleArrays state() const;

  // Integrates to t_end (> time()). Observers are called at every multiple of their interval and
  // at t_end, with every particle synchronized. Throws pairwise::Error when the state becomes
  // non-finite or a step underflows dt_min (the CLI's messages).
  void run_to(double t_end, const TimeObservers& observers = {});

 private:
  struct Impl;
  explicit Simulation(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pairwise::nbody
