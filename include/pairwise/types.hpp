// Shared types of the public API (DESIGN.md, "Library first"): the choice of backend and precision,
// a periodic orthorhombic box, the observers that a run calls every K steps and the state it hands
// back. Compiles with g++
// alone; every workload header (nbody.hpp, md.hpp, ljc.hpp, potmap.hpp, fredholm.hpp) includes it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "pairwise/backend.hpp"
#include "pairwise/error.hpp"
#include "pairwise/precision.hpp"

namespace pairwise {

// A bad argument to an API call (a step count, a time, an interval): a pairwise::Error that the
// Python package raises as ValueError. Failures during a run are plain pairwise::Error.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// Where and how a computation runs: backend automatic picks cuda when a usable device exists,
// else cpu; reference is double precision whatever `precision` says.
struct RunOptions {
  BackendKind backend = BackendKind::automatic;
  Precision precision = Precision::mixed;
};

// A periodic orthorhombic box [lo, hi) in each dimension.
struct PeriodicBox {
  std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 1};
  double length(int d) const { return hi[d] - lo[d]; }
  double volume() const { return length(0) * length(1) * length(2); }
};

// Called by a workload's run() after every `every` steps (and after the last step). The callback
// receives the step index; it may read the simulation's state or thermo. An exception thrown by it
// stops the run after that step and propagates to run()'s caller; the simulation stays usable.
struct Observer {
  std::int64_t every = 1;
  std::function<void(std::int64_t step)> call;
};

// Called by a run to a time t_end after every multiple of `interval` (in time units, counted from
// t = 0) and at t_end, with the time reached; exceptions behave as for Observer.
struct TimeObserver {
  double interval = 0.125;
  std::function<void(double time)> call;
};

// The observers of a run, called in this order when several are due after the same step: md and
// ljc run(steps, Observers), nbody run_to(t_end, TimeObservers).
using Observers = std::vector<Observer>;
using TimeObservers = std::vector<TimeObserver>;

// The state a dynamics run hands back (md and ljc State): the steps taken, positions and
// velocities (3N each, x0 y0 z0 x1 ..., in the order the particles were given).
struct DynamicsState {
  std::int64_t step = 0;
  std::vector<double> positions, velocities;
};

}  // namespace pairwise
