// Maps of many frames (trajectories, docs/potmap.md): the map of each frame combined point by
// point into their average, minimum or maximum, or kept one by one; and periodic images of a
// frame's atoms for cutoff maps of periodic cells.
#pragma once

#include <array>
#include <memory>
#include <string_view>
#include <vector>

#include "potmap/map.hpp"

namespace pairwise::potmap {

enum class Combine { average, minimum, maximum, all };
Combine parse_combine(std::string_view text);  // avg | min | max | all; throws pairwise::Error
std::string_view to_string(Combine c);

// Accumulates the maps of frames on one backend (validated input; the lattice and options are
// fixed for all frames, the atoms may differ in number). The cuda backend keeps its buffers and
// the running combination on the device and returns from add() before the frame's map is done,
// so the caller reads the next frame while the device sums this one.
class FrameMaps {
 public:
  virtual ~FrameMaps() = default;
  virtual void add(const Atoms& atoms) = 0;
  // The combined map (e/Å): the average (sum / frames), minimum or maximum; for Combine::all the
  // last frame's map. Waits for the device.
  virtual std::vector<double> result() = 0;
  // The running combination before the average's division: the sum of the frames' maps (average),
  // their minimum or maximum; empty before the first frame. Waits for the device.
  virtual std::vector<double> accumulated() = 0;
  long frames() const { return frames_; }
  virtual std::string device() const = 0;

 protected:
  long frames_ = 0;
};

// backend: reference, cpu or cuda (resolved).
std::unique_ptr<FrameMaps> make_frame_maps(BackendKind backend, const Lattice& lattice,
                                           const MapOptions& options, Combine combine);

// The host accumulation (reference and cpu backends, and the oracle of the tests): `sum` holds the
// running combination of `frames` maps; combine_into adds `map` to it.
void combine_into(std::vector<double>& acc, const std::vector<double>& map, Combine combine,
                  long frames_before);

// An orthorhombic periodic cell: [origin, origin + length) along x, y, z (Å).
struct Cell {
  std::array<double, 3> origin{}, length{};
};

// The lattice spanning the cell: points origin + i h for i h < length (counts = ceil(length / h),
// within 1e-9 relative), so that for a length that is a multiple of h the map is one period.
Lattice lattice_of_cell(const Cell& cell, double spacing);

// The atoms wrapped into the cell and every periodic image closer than `cutoff` to the lattice's
// bounding box: a plain (non-periodic) cutoff map of the result equals the sum over all images,
//   V(p) = Σ_j Σ_n q_j s(|p − x_j − n L|) / |p − x_j − n L|,
// for every lattice point. For rc < L/2 each point sees at most one image of an atom (the minimum
// image); otherwise the images of several shells. Throws pairwise::Error for a cell length <= 0.
Atoms periodic_images(const Atoms& atoms, const Cell& cell, const Lattice& lattice, double cutoff);

}  // namespace pairwise::potmap
