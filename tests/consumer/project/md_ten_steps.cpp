// Ten steps of an fcc Lennard-Jones system through the installed public API: the total energy per
// atom after 10 NVE steps matches the start to 1e-3 (LAMMPS drifts 3e-4 on this melt), the observer
// ran at steps 5 and 10, and a bad backend name is a pairwise::Error with the CLI's message.
#include <pairwise/md.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  namespace md = pairwise::md;
  const md::SystemArrays system = md::lattice("fcc", 0.8442, {4, 4, 4}, 1.44, 87287);
  md::Settings settings;
  settings.run.backend = pairwise::BackendKind::cpu;
  settings.run.precision = pairwise::Precision::double_;
  md::Simulation sim(system, settings);
  const md::ThermoRow start = sim.thermo();
  std::vector<std::int64_t> seen;
  sim.run(10, {{5, [&](std::int64_t step) { seen.push_back(step); }}});
  const md::ThermoRow end = sim.thermo();
  std::printf("%zu atoms, step %lld: E %.10f -> %.10f, T %.6f -> %.6f\n", sim.size(),
              static_cast<long long>(sim.step()), start.total, end.total, start.temperature,
              end.temperature);
  bool ok = sim.size() == 256 && sim.step() == 10 && seen == std::vector<std::int64_t>{5, 10} &&
            std::abs(end.total - start.total) < 1e-3 * std::abs(start.total) &&
            sim.state().positions.size() == 3 * 256;
  try {
    settings.run.backend = pairwise::parse_backend("gpu");
    ok = false;
  } catch (const pairwise::Error& e) {
    std::printf("expected error: %s\n", e.what());
  }
  std::puts(ok ? "consumer: OK" : "consumer: FAILED");
  return ok ? 0 : 1;
}
