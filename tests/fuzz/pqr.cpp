// PQR files (core/io/pqr.hpp).
#include <sstream>

#include "core/io/pqr.hpp"
#include "fuzz_target.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  std::istringstream in(pairwise::fuzz::text(data, size));
  pairwise::io::parse_pqr(in, "fuzz.pqr");
}
