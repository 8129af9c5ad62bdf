// LAMMPS pair_style table files (core/io/pair_table.hpp) through the reader, the interpolator
// (linear and spline, LAMMPS's compute_table) and the CUDA source of the table
// (engine/table_cuda.hpp, no device needed). The first byte picks the style (bit 0), the
// internal table length N (bits 1-2: 2, 7, 50, 300) and the cutoff (bits 3-4: the table's own,
// 1.5, 2.5, 10); the rest is the file, whose section PAIR is read (the other sections are skipped
// as LAMMPS skips them).
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/io/pair_table.hpp"
#include "engine/table_cuda.hpp"
#include "engine/table_pair.hpp"
#include "fuzz_target.hpp"

PAIRWISE_FUZZ_TARGET(data, size) {
  using namespace pairwise;
  if (size < 1) return;
  // The reader takes a path (as pair_coeff does): one scratch file per process, rewritten per
  // input.
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("pairwise_fuzz_pair_table_" + std::to_string(::getpid()) + ".table");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), std::streamsize(size - 1));
  }
  const io::PairTableFile table = io::read_pair_table(file, "PAIR");
  const auto style = data[0] & 1 ? io::TableStyle::spline : io::TableStyle::linear;
  constexpr std::array<int, 4> kN = {2, 7, 50, 300};
  constexpr std::array<double, 4> kCutoff = {0, 1.5, 2.5, 10};
  const engine::TablePair pair(
      io::PairTableInterpolator(table, style, kN[(data[0] >> 1) & 3], kCutoff[(data[0] >> 3) & 3]),
      "table PAIR");
  const double inner2 = pair.table().inner_squared(), cut2 = pair.cutoff() * pair.cutoff();
  double e = 0, f = 0;
  for (double x : {0.0, inner2, 0.5 * (inner2 + cut2), cut2, 4 * cut2 + 1}) pair.reference(x, e, f);
  float ef = 0, ff = 0;
  pair.table().evaluate(float(0.5 * (inner2 + cut2)), ef, ff);
  (void)engine::table_cuda_function(pair, 1, "pw_table", "float", data[0] & 32);
  (void)engine::table_cuda_function(pair, 7, "pw_table", "double", !(data[0] & 32));
}
