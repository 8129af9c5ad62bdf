// nbody TOML configuration through its validation (read_run_config) and, for small N, the initial
// conditions it describes.
#include "core/config.hpp"
#include "fuzz_target.hpp"
#include "nbody/run.hpp"
#include "nbody/run_config.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  auto config = pairwise::config::Config::parse(pairwise::fuzz::text(data, size), "fuzz.toml");
  const auto rc = pairwise::nbody::read_run_config(config);
  if (rc.initial != pairwise::nbody::InitialKind::file && rc.n <= 256)
    pairwise::nbody::make_initial_conditions(rc, nullptr);
}
