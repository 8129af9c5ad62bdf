// LAMMPS data files (core/io/lammps_data.hpp).
#include "core/io/lammps_data.hpp"
#include "fuzz_target.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  pairwise::io::parse_lammps_data(pairwise::fuzz::text(data, size), "fuzz.data");
}
