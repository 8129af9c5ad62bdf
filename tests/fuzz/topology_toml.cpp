// ljc topologies in TOML (ljc/topology_io.hpp): toml_to_json, then parse_topology's validation.
#include <sstream>

#include "fuzz_target.hpp"
#include "ljc/topology_io.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  const auto doc = pairwise::ljc::toml_to_json(pairwise::fuzz::text(data, size), "fuzz.toml");
  std::ostringstream warnings;
  pairwise::ljc::parse_topology(doc, "fuzz.toml", warnings);
}
