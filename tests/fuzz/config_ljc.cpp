// ljc TOML configuration through its validation (read_run_config).
#include "core/config.hpp"
#include "fuzz_target.hpp"
#include "ljc/run_config.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  auto config = pairwise::config::Config::parse(pairwise::fuzz::text(data, size), "fuzz.toml");
  pairwise::ljc::read_run_config(config);
}
