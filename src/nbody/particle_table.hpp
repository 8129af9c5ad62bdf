// The plain N-body particle table (docs/formats.md): one particle a line, seven numbers separated
// by white space, `m x y z vx vy vz` in Hénon units; lines starting with '#' are comments. Files
// written here start with
//   # pairwise nbody snapshot t=0.125 n=1024
//   # m x y z vx vy vz
#pragma once

#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "nbody/particles.hpp"

namespace pairwise::nbody {

struct ParticleTable {
  Particles particles;
  double time = 0;  // from "t=..." in a header comment, else 0
};

// Reads a table; every problem is a pairwise::Error naming "file:line:field": a field that is not a
// number, the wrong number of fields, NaN or infinite values, a non-positive mass, no particles.
ParticleTable read_particle_table(const std::filesystem::path& file);
// The same from a stream; `source` names it in messages.
ParticleTable read_particle_table(std::istream& in, const std::string& source);

// Writes the table (header with t and n, then 17 significant digits so a round trip is exact).
void write_particle_table(std::ostream& out, const Particles& p, double time);
// Writes the table atomically (temporary file + rename).
void write_particle_table(const std::filesystem::path& file, const Particles& p, double time);

}  // namespace pairwise::nbody
