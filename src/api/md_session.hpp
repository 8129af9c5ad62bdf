// The md state behind both clients of the workload: pairwise::md::Simulation (include/pairwise/
// md.hpp) and the command line's run (md_run.cpp). The engine, the step count, the blow-up check
// and the thermo row are written here once.
#pragma once

#include <cstdint>
#include <memory>

#include "md/engine.hpp"
#include "md/system.hpp"
#include "pairwise/md.hpp"

namespace pairwise::md {

struct Session {
  System system;  // the atoms in the order given (the host copy that refresh_state() updates)
  EngineOptions options;
  std::unique_ptr<MdEngine> engine;
  std::int64_t step = 0;  // steps taken
  double max_speed = 0;   // the blow-up threshold: half the smallest box length per step

  // `system` validated (md::validate), `backend` resolved. The engine gets the system's state
  // unless `load_state` is false (a restart loads a checkpoint into the engine instead).
  Session(System system, const EngineOptions& options, BackendKind backend, bool load_state = true);

  // Steps step + 1 .. step + steps (the thermostats' random counter is the step index).
  void advance(std::int64_t steps);
  // The engine's thermo, or pairwise::Error when an atom is non-finite or moves faster than
  // max_speed ("the simulation blew up ... by step N", naming the atom).
  Thermo checked_thermo();
  // The thermo row of `pairwise run` (checked_thermo, per-atom energies, pressure).
  ThermoRow thermo_row();
  // The engine's positions, images and velocities copied into `system`.
  System& refresh_state();
};

}  // namespace pairwise::md
