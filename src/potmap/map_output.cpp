#include "potmap/map_output.hpp"

#include <cctype>

#include "pairwise/error.hpp"

namespace pairwise::potmap {

OutputKind output_kind(const std::filesystem::path& output) {
  if (output.empty()) throw Error("no output file", "output");
  std::string name = output.filename().string();
  for (auto& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  auto ends = [&](std::string_view e) {
    return name.size() >= e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".dx.gz")) return OutputKind::dx_gz;
  if (ends(".dx")) return OutputKind::dx;
  if (ends(".npy")) return OutputKind::npy;
  throw Error("output file must end in .dx, .dx.gz or .npy", output.string());
}

void convert_units(std::vector<double>& values, Units units, bool single) {
  const double f = unit_factor(units);
  double* v = values.data();
  const long n = long(values.size());
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) v[i] = single ? double(float(v[i] * f)) : v[i] * f;
}

std::vector<std::string> unit_comments(Units units) {
  return {"pairwise potmap " PAIRWISE_VERSION ": " + describe_units(units),
          "units: " + std::string(to_string(units))};
}

io::ScalarGrid map_grid(const Lattice& lattice, std::vector<double> values, bool single,
                        Units units, const std::vector<std::string>& comments) {
  io::ScalarGrid grid;
  grid.origin = lattice.origin;
  grid.spacing = {lattice.spacing, lattice.spacing, lattice.spacing};
  grid.counts = lattice.counts;
  grid.values = std::move(values);
  grid.single_precision = single;
  grid.comments = unit_comments(units);
  grid.comments.insert(grid.comments.end(), comments.begin(), comments.end());
  return grid;
}

void write_map_file(const std::filesystem::path& path, const io::ScalarGrid& grid, bool single) {
  switch (output_kind(path)) {
    case OutputKind::npy:
      io::write_npy(path, grid, single);
      break;
    case OutputKind::dx:
      io::write_dx(path, grid);
      break;
    case OutputKind::dx_gz:
      io::write_dx_gz(path, grid);
      break;
  }
}

}  // namespace pairwise::potmap
