// potmap TOML configuration through its validation (read_potmap_config).
#include "core/config.hpp"
#include "fuzz_target.hpp"
#include "potmap/run_config.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  auto config = pairwise::config::Config::parse(pairwise::fuzz::text(data, size), "fuzz.toml");
  pairwise::potmap::read_potmap_config(config);
}
