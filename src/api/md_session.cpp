#include "api/md_session.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "pairwise/error.hpp"

namespace pairwise::md {

Session::Session(System s, const EngineOptions& o, BackendKind backend, bool load_state)
    : system(std::move(s)), options(o), engine(make_md_engine(backend, o)) {
  if (load_state) engine->set_state(system);
  const Box& b = system.box;
  max_speed = 0.5 * std::min({b.length(0), b.length(1), b.length(2)}) / o.dynamics.dt;
}

void Session::advance(std::int64_t steps) {
  while (steps > 0) {  // the engine takes an int count
    const int chunk = int(std::min<std::int64_t>(steps, INT_MAX));
    engine->advance(std::uint64_t(step + 1), chunk);
    step += chunk, steps -= chunk;
  }
}

Thermo Session::checked_thermo() {
  const Thermo t = engine->thermo();
  if (const std::uint32_t bad = engine->first_bad_atom(max_speed);
      bad != 0 || !std::isfinite(t.potential))
    throw Error(
        "the simulation blew up (non-finite or exploding atom) by step " + std::to_string(step),
        bad ? "atom id " + std::to_string(bad) : "potential energy");
  return t;
}

ThermoRow Session::thermo_row() {
  const Thermo t = checked_thermo();
  const std::size_t n = system.atoms.size();
  const double inv_n = n ? 1.0 / double(n) : 0.0;
  ThermoRow r;
  r.step = step;
  r.temperature = temperature_of(t.kinetic, n);
  r.potential = t.potential * inv_n;
  r.kinetic = t.kinetic * inv_n;
  r.total = (t.kinetic + t.potential) * inv_n;
  r.pressure = pressure(t, system.box.volume());
  r.virial = t.virial;
  r.rebuilds = engine->stats().rebuilds;
  return r;
}

System& Session::refresh_state() {
  engine->get_state(system);
  return system;
}

}  // namespace pairwise::md
