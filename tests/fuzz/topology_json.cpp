// ljc topologies in JSON (ljc/topology_io.hpp): nlohmann's parser (syntax errors are the
// topology reader's "JSON syntax" errors), then parse_topology's validation.
#include <nlohmann/json.hpp>
#include <sstream>

#include "fuzz_target.hpp"
#include "ljc/topology_io.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  const auto doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return;  // read_topology reports it as a JSON syntax error
  std::ostringstream warnings;
  pairwise::ljc::parse_topology(doc, "fuzz.json", warnings);
}
