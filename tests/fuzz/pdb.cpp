// PDB files and the charge tables that go with them (core/io/pdb.hpp): the first byte picks which.
#include <sstream>

#include "core/io/pdb.hpp"
#include "fuzz_target.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  if (size == 0) return;
  std::istringstream in(pairwise::fuzz::text(data + 1, size - 1));
  if (data[0] & 1) {
    pairwise::io::parse_charge_table(in, "fuzz.charges");
  } else {
    pairwise::io::parse_pdb(in, "fuzz.pdb");
  }
}
