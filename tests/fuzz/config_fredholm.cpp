// fredholm problem TOML through its validation (read_run_config) and, for small problems, the
// quadrature nodes it describes.
#include "core/config.hpp"
#include "fredholm/problem.hpp"
#include "fredholm/run.hpp"
#include "fuzz_target.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  auto config = pairwise::config::Config::parse(pairwise::fuzz::text(data, size), "fuzz.toml");
  const auto rc = pairwise::fredholm::read_run_config(config);
  pairwise::fredholm::make_nodes(rc.spec);
}
