// Regressions of the fuzzed LAMMPS pair_style table reader and interpolator
// (tests/fuzz/pair_table.cpp, docs/robustness.md lists the runs): each input that tripped a
// sanitizer is now a pairwise::Error naming the line or section, or a defined result.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/io/pair_table.hpp"
#include "pairwise/error.hpp"
#include "text_files.hpp"

namespace {

using namespace pairwise;
namespace fs = std::filesystem;

using test::write_temp_text;

std::string table_error(const std::string& text, int n = 10) {
  const fs::path f = write_temp_text("pw_fuzz_tab_", text);
  std::string what;
  try {
    io::PairTableInterpolator(io::read_pair_table(f, "PAIR"), io::TableStyle::linear, n);
  } catch (const Error& e) {
    what = e.what();
  }
  fs::remove(f);
  return what;
}

// N 4575630000 was converted to int (UBSan: float-cast-overflow); N is bounded as md's table_n.
TEST(PairTableLimits, HugeNIsAnErrorNamingTheLine) {
  const std::string e = table_error("# x\nPAIR\nN 4575630000\n\n1 1 1 1\n");
  EXPECT_NE(e.find("N must be an integer in [2, 16777216]"), std::string::npos) << e;
  EXPECT_NE(e.find(":3"), std::string::npos) << e;
  EXPECT_NE(table_error("OTHER\nN 1e300\n\nPAIR\nN 2\n\n1 1 1 1\n2 2 2 2\n").find(":2"),
            std::string::npos);
}

// R 1 1e200: r² overflows to infinity, the r² spacing with it; refused with the section's name.
TEST(PairTableLimits, UnrepresentableSpacingIsAnError) {
  const std::string e = table_error("PAIR\nN 2 R 1 1e200\n\n1 1 1 1\n2 2 2 2\n");
  EXPECT_NE(e.find("no usable r² spacing"), std::string::npos) << e;
  EXPECT_NE(e.find("PAIR"), std::string::npos) << e;
}

// An r² far beyond the table (or NaN) gave a bin index beyond int (UBSan: float-cast-overflow):
// the bin is clamped in double, so the last bin is extrapolated (the first for NaN and below).
TEST(PairTableLimits, FarOutsideTheTableUsesTheEndBins) {
  std::string text = "PAIR\nN 20 RSQ 1.0 2.0\n\n";
  for (int i = 0; i < 20; ++i) {
    const double x = 1.0 + 3.0 * i / 19.0;  // r², with E = x² and F = −dE/dr = −4 r³
    text += std::to_string(i + 1) + " 0 " + std::to_string(x * x) + " " +
            std::to_string(-4 * x * std::sqrt(x)) + "\n";
  }
  const fs::path f = write_temp_text("pw_fuzz_tab_far_", text);
  const io::PairTableInterpolator t(io::read_pair_table(f, "PAIR"), io::TableStyle::linear, 20);
  fs::remove(f);
  const std::size_t last = std::size_t(t.points() - 2);
  for (double x : {1e12, 1e300}) {
    double e = 0, fr = 0;
    t.evaluate(x, e, fr);
    const double fraction = (x - t.rsq()[last]) / t.delta();
    EXPECT_DOUBLE_EQ(e, t.e()[last] + fraction * t.de()[last]) << x;
    EXPECT_DOUBLE_EQ(fr, t.f()[last] + fraction * t.df()[last]) << x;
  }
  double e = 0, fr = 0;
  t.evaluate(std::nan(""), e, fr);
  EXPECT_TRUE(std::isnan(e));
  t.evaluate(-1e300, e, fr);
  EXPECT_DOUBLE_EQ(e, t.e()[0] + (-1e300 - t.rsq()[0]) / t.delta() * t.de()[0]);
}

}  // namespace
