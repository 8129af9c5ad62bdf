// nbody particle tables "m x y z vx vy vz" (nbody/particle_table.hpp).
#include <sstream>

#include "fuzz_target.hpp"
#include "nbody/particle_table.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  std::istringstream in(pairwise::fuzz::text(data, size));
  pairwise::nbody::read_particle_table(in, "fuzz.txt");
}
