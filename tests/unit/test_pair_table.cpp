// LAMMPS pair_style table files (core/io/pair_table): sections skipped by their N, R and RSQ grids
// replacing the file's r, BITMAP refused as LAMMPS refuses it for linear/spline, errors with
// file:line, and the interpolators: linear exact on a matching RSQ grid, both exact for data
// linear in r² (away from the spline's end bins, where LAMMPS's end slopes bend it).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/io/pair_table.hpp"
#include "pairwise/error.hpp"
#include "text_files.hpp"

namespace {

using namespace pairwise;
namespace fs = std::filesystem;

using test::write_temp_text;

std::string error_of(const fs::path& f, const std::string& keyword) {
  try {
    io::read_pair_table(f, keyword);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PairTable, SectionsGridsAndErrors) {
  const fs::path f =
      write_temp_text("pw_tab_",
                      "# two sections\n\nFIRST\nN 3\n\n1 1.0 3 0.1\n2 1.5 2 0.2\n3 2.0 1 0.3\n"
                      "\nSECOND\nN 3 R 1.0 3.0 FP 1 2\n\n1 9 1 1\n2 9 2 2\n3 9 3 3\n"
                      "\nTHIRD\nN 3 RSQ 1.0 2.0\n\n1 0 1 1\n2 0 2 2\n3 0 3 3\n"
                      "\nBITS\nN 4 BITMAP 1.0 2.0\n\n1 0 0 0\n2 0 0 0\n3 0 0 0\n4 0 0 0\n");
  const auto a = io::read_pair_table(f, "FIRST");
  EXPECT_EQ(a.r, (std::vector<double>{1.0, 1.5, 2.0}));
  EXPECT_EQ(a.e, (std::vector<double>{3, 2, 1}));
  const auto b = io::read_pair_table(f, "SECOND");
  EXPECT_EQ(b.r, (std::vector<double>{1.0, 2.0, 3.0}));  // R replaces the file's 9s
  EXPECT_TRUE(b.fp_given);
  EXPECT_EQ(b.fphi, 2.0);
  const auto c = io::read_pair_table(f, "THIRD");
  EXPECT_DOUBLE_EQ(c.r[1], std::sqrt(2.5));
  EXPECT_NE(error_of(f, "BITS").find("BITMAP"), std::string::npos);
  EXPECT_NE(error_of(f, "NONE").find("no section 'NONE' in the pair table file (it has FIRST, "
                                     "SECOND, THIRD, BITS)"),
            std::string::npos)
      << error_of(f, "NONE");
  const fs::path g = write_temp_text("pw_tab_bad_", "X\nN 3 Q 1 2\n\n");
  EXPECT_NE(error_of(g, "X").find("invalid keyword 'Q'"), std::string::npos);
  EXPECT_NE(error_of(g, "X").find(":2"), std::string::npos);
  const fs::path h = write_temp_text("pw_tab_short_", "X\nN 3\n\n1 1 1 1\n2 2 2 2\n");
  EXPECT_NE(error_of(h, "X").find("ends after 2 of 3 points"), std::string::npos)
      << error_of(h, "X");
  fs::remove(f), fs::remove(g), fs::remove(h);
}

// E linear in r² (E = 5 − r², F = −dE/dr = 2r, F/r = 2): the linear table reproduces it to
// rounding, on and between its points; the spline too (a line is a cubic).
TEST(PairTable, InterpolatorsAreExactForTheirOwnPolynomials) {
  std::string text = "LINE\nN 50 RSQ 1.0 3.0\n\n";
  for (int i = 0; i < 50; ++i) {
    const double r2 = 1.0 + 8.0 * i / 49.0, r = std::sqrt(r2);
    text += std::to_string(i + 1) + " " + std::to_string(r) + " " + std::to_string(5 - r2) + " " +
            std::to_string(2 * r) + "\n";
  }
  const fs::path f = write_temp_text("pw_tab_line_", text);
  const auto t = io::read_pair_table(f, "LINE");
  for (auto style : {io::TableStyle::linear, io::TableStyle::spline}) {
    const io::PairTableInterpolator in(t, style, 200);
    EXPECT_DOUBLE_EQ(in.cutoff(), 3.0);
    for (double r2 : {1.0, 1.3, 2.77, 5.5, 8.9}) {
      // LAMMPS's spline of E in r² takes −F as the end slope dE/d(r²) (not −F/2r), which bends
      // the last bins; the test keeps to the interior for it.
      if (style == io::TableStyle::spline && r2 > 8) continue;
      double e = 0, fr = 0;
      in.evaluate(r2, e, fr);
      EXPECT_NEAR(e, 5 - r2, 1e-5) << r2;  // the file's values have 6 digits
      EXPECT_NEAR(fr, 2.0, 1e-5) << r2;
    }
  }
  EXPECT_THROW(io::PairTableInterpolator(t, io::TableStyle::linear, 100, 3.5), Error);
  fs::remove(f);
}

}  // namespace
