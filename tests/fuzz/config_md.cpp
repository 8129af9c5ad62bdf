// md TOML configuration through its validation: Config::parse, read_md_config, and (for systems
// small enough to build quickly) build_system, which validates the atoms and force field.
#include "core/config.hpp"
#include "fuzz_target.hpp"
#include "md/run.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  auto config = pairwise::config::Config::parse(pairwise::fuzz::text(data, size), "fuzz.toml");
  const auto rc = pairwise::md::read_md_config(config);
  const long long cells = 1LL * rc.cells[0] * rc.cells[1] * rc.cells[2];
  if (rc.data_file.empty() && cells <= 512) pairwise::md::build_system(rc);
}
