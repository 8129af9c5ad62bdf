// A computed map as the files users keep: values converted from e/Å into the chosen units, the
// comment lines naming the units, and the writer chosen by the file's extension (.dx, .dx.gz,
// .npy). Shared by `pairwise potmap` (run.cpp) and the public API (src/api/potmap.cpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/io/opendx.hpp"
#include "potmap/map.hpp"

namespace pairwise::potmap {

enum class OutputKind { dx, dx_gz, npy };
// By extension (case-insensitive): .dx.gz, .dx or .npy; else throws pairwise::Error naming the
// file.
OutputKind output_kind(const std::filesystem::path& output);

// values (e/Å) *= unit_factor(units), in parallel; FP32 maps (`single`) rounded to FP32 after the
// product in FP64, so the file holds what an FP32 map in those units is.
void convert_units(std::vector<double>& values, Units units, bool single);

// The two comment lines every map file starts with ("pairwise potmap VERSION: <units sentence>",
// "units: kT/e").
std::vector<std::string> unit_comments(Units units);

// The grid of a map on `lattice` with values already in `units`; `comments` follow the unit lines.
io::ScalarGrid map_grid(const Lattice& lattice, std::vector<double> values, bool single,
                        Units units, const std::vector<std::string>& comments);

// Writes the grid as the extension of `path` says (temp + rename; .npy as float32 when single).
void write_map_file(const std::filesystem::path& path, const io::ScalarGrid& grid, bool single);

}  // namespace pairwise::potmap
