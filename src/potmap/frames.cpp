#include "potmap/frames.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "pairwise/error.hpp"
#include "potmap/cuda_map.hpp"

namespace pairwise::potmap {

Combine parse_combine(std::string_view text) {
  if (text == "avg" || text == "average") return Combine::average;
  if (text == "min") return Combine::minimum;
  if (text == "max") return Combine::maximum;
  if (text == "all") return Combine::all;
  throw Error("unknown combination '" + std::string(text) + "' (expected avg, min, max or all)",
              "combine");
}

std::string_view to_string(Combine c) {
  switch (c) {
    case Combine::average:
      return "avg";
    case Combine::minimum:
      return "min";
    case Combine::maximum:
      return "max";
    case Combine::all:
      return "all";
  }
  return "?";
}

void combine_into(std::vector<double>& acc, const std::vector<double>& map, Combine combine,
                  long frames_before) {
  if (frames_before == 0 || combine == Combine::all) {
    acc = map;
    return;
  }
  const std::size_t n = map.size();
  switch (combine) {
    case Combine::average:
      for (std::size_t i = 0; i < n; ++i) acc[i] += map[i];
      break;
    case Combine::minimum:
      for (std::size_t i = 0; i < n; ++i) acc[i] = std::min(acc[i], map[i]);
      break;
    case Combine::maximum:
      for (std::size_t i = 0; i < n; ++i) acc[i] = std::max(acc[i], map[i]);
      break;
    case Combine::all:
      break;
  }
}

namespace {

class HostFrameMaps final : public FrameMaps {
 public:
  HostFrameMaps(BackendKind b, const Lattice& l, const MapOptions& o, Combine c)
      : backend_(b), lattice_(l), options_(o), combine_(c) {}
  void add(const Atoms& atoms) override {
    MapResult r = compute_map(backend_, atoms, lattice_, options_);
    device_ = r.device;
    combine_into(acc_, r.values, combine_, frames_);
    ++frames_;
  }
  std::vector<double> accumulated() override { return acc_; }
  std::vector<double> result() override {
    std::vector<double> out = acc_;
    if (combine_ == Combine::average && frames_ > 0) {
      for (double& v : out) v /= double(frames_);
    }
    return out;
  }
  std::string device() const override { return device_; }

 private:
  BackendKind backend_;
  Lattice lattice_;
  MapOptions options_;
  Combine combine_;
  std::vector<double> acc_;
  std::string device_;
};

}  // namespace

std::unique_ptr<FrameMaps> make_frame_maps(BackendKind backend, const Lattice& lattice,
                                           const MapOptions& options, Combine combine) {
  if (backend == BackendKind::cuda) return cuda_frame_maps(lattice, options, combine);
  return std::make_unique<HostFrameMaps>(backend, lattice, options, combine);
}

Lattice lattice_of_cell(const Cell& cell, double spacing) {
  if (!(spacing > 0)) throw Error("spacing must be > 0", "spacing");
  Lattice l;
  l.origin = cell.origin;
  l.spacing = spacing;
  for (int a = 0; a < 3; ++a) {
    const double L = cell.length[std::size_t(a)];
    if (!(L > 0) || !std::isfinite(L)) {
      throw Error("periodic cell length " + std::to_string(L) + " along " +
                      std::string(1, char('x' + a)) + " (must be > 0)",
                  "box");
    }
    l.counts[std::size_t(a)] = std::size_t(std::max(1.0, std::ceil(L / spacing * (1 - 1e-9))));
  }
  return l;
}

namespace {

// The images of one atom: calls emit(x, y, z) for every shift whose image is closer than rc to the
// box [lo, hi] (per axis the candidate shifts first, then the 3-D distance to the box).
template <class Emit>
void images_of(const double p[3], const Cell& cell, const double lo[3], const double hi[3],
               double cutoff, std::vector<double> (&shifted)[3], std::vector<double> (&gap2)[3],
               Emit&& emit) {
  const double rc2 = cutoff * cutoff;
  for (int a = 0; a < 3; ++a) {
    const double L = cell.length[std::size_t(a)], o = cell.origin[std::size_t(a)];
    const double w = p[a] - L * std::floor((p[a] - o) / L);  // wrapped into [o, o + L)
    shifted[a].clear(), gap2[a].clear();
    const long reach = long(std::ceil((cutoff + (hi[a] - lo[a])) / L)) + 1;
    for (long n = -reach; n <= reach; ++n) {
      const double v = w + double(n) * L;
      const double g = v < lo[a] ? lo[a] - v : v > hi[a] ? v - hi[a] : 0.0;
      if (g < cutoff) shifted[a].push_back(v), gap2[a].push_back(g * g);
    }
  }
  for (std::size_t ix = 0; ix < shifted[0].size(); ++ix) {
    for (std::size_t iy = 0; iy < shifted[1].size(); ++iy) {
      const double gxy = gap2[0][ix] + gap2[1][iy];
      if (gxy >= rc2) continue;
      for (std::size_t iz = 0; iz < shifted[2].size(); ++iz) {
        if (gxy + gap2[2][iz] >= rc2) continue;
        emit(shifted[0][ix], shifted[1][iy], shifted[2][iz]);
      }
    }
  }
}

}  // namespace

Atoms periodic_images(const Atoms& atoms, const Cell& cell, const Lattice& lattice, double cutoff) {
  for (int a = 0; a < 3; ++a) {
    if (!(cell.length[std::size_t(a)] > 0)) throw Error("periodic cell length must be > 0", "box");
  }
  double lo[3], hi[3];  // the lattice's extent
  for (int a = 0; a < 3; ++a) {
    lo[a] = lattice.origin[std::size_t(a)];
    hi[a] = lattice.coord(a, lattice.counts[std::size_t(a)] - 1);
  }
  // Two passes over blocks of atoms in parallel (count, then fill at the block's offset): the
  // order of the images is that of a serial loop, whatever the thread count.
  const std::size_t n = atoms.size();
  constexpr std::size_t kBlock = 4096;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<std::size_t> offset(blocks + 1, 0);
  Atoms out;
  for (int pass = 0; pass < 2; ++pass) {
#pragma omp parallel
    {
      std::vector<double> shifted[3], gap2[3];
#pragma omp for schedule(dynamic)
      for (long b = 0; b < long(blocks); ++b) {
        std::size_t k = pass == 0 ? 0 : offset[std::size_t(b)];
        const std::size_t j1 = std::min(n, std::size_t(b + 1) * kBlock);
        for (std::size_t j = std::size_t(b) * kBlock; j < j1; ++j) {
          const double p[3] = {atoms.x[j], atoms.y[j], atoms.z[j]};
          const double q = atoms.q[j];
          images_of(p, cell, lo, hi, cutoff, shifted, gap2, [&](double x, double y, double z) {
            if (pass == 1) out.x[k] = x, out.y[k] = y, out.z[k] = z, out.q[k] = q;
            ++k;
          });
        }
        if (pass == 0) offset[std::size_t(b) + 1] = k;  // the block's count, summed below
      }
    }
    if (pass == 0) {
      for (std::size_t b = 0; b < blocks; ++b) offset[b + 1] += offset[b];
      out.x.resize(offset[blocks]), out.y.resize(offset[blocks]);
      out.z.resize(offset[blocks]), out.q.resize(offset[blocks]);
    }
  }
  return out;
}

}  // namespace pairwise::potmap
