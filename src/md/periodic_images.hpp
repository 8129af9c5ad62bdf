// Image flags of periodic md boxes (LAMMPS's ix iy iz): how many box lengths an atom has crossed.
#pragma once

#include <algorithm>
#include <cstdint>

namespace pairwise::md {

// image + k periodic images, wrapping around (two's complement) instead of overflowing (undefined
// behaviour; found by the debug preset's UBSan): only a run that blew up, whose positions are
// meaningless and which the driver stops, moves an atom 2^31 box lengths. NaN adds nothing.
inline int add_images(int image, double k) {
  if (!(k == k)) return image;
  const double clamped = std::clamp(k, -2147483648.0, 2147483647.0);
  return int(std::uint32_t(image) + std::uint32_t(std::int64_t(clamped)));
}

}  // namespace pairwise::md
