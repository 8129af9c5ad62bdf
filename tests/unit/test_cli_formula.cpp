// Custom pair styles through the `pairwise` executable (issue 13): a bad formula (unknown name
// with did-you-mean, syntax error, division by zero at a point, non-finite at rc, an unused pair
// parameter) stops with `error: <what> at column C in [force_field] <key>, file:line`, exit 1 and
// no file written; a table style with a missing section names the file.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.hpp"

namespace {

using pairwise::test::CliTest;

class CliFormula : public CliTest {
 protected:
  // A small melt whose pair_1_1.energy is line 9 of melt.toml.
  void write_melt(const std::string& energy, const std::string& extra = "") {
    write("melt.toml",
          "workload = \"md\"\n"       // 1
          "[system]\n"                // 2
          "cells = \"4 4 4\"\n"       // 3
          "[force_field]\n"           // 4
          "style = \"custom\"\n"      // 5
          "cutoff = 2.5\n"            // 6
          "pair_1_1.epsilon = 1.0\n"  // 7
          "pair_1_1.sigma = 1.0\n"    // 8
          "pair_1_1.energy = \"" +
              energy + "\"\n" +  // 9
              extra +
              "[integrator]\nsteps = 10\n[run]\nbackend = \"cpu\"\n[output]\nprogress = false\n");
  }
};

TEST_F(CliFormula, UnknownNameWithColumnAndSuggestion) {
  write_melt("4*epsilon*( (sigm/r)^12 - (sigma/r)^6)");
  expect_error("run melt.toml", {"error: unknown name 'sigm' at column 14 in [force_field] "
                                 "pair_1_1.energy, did you mean 'sigma'?, melt.toml:9"});
}

TEST_F(CliFormula, SyntaxDivisionByZeroAndNonFiniteAtCutoff) {
  write_melt("4*epsilon*((sigma/r)^12 - (sigma/r)^6");
  expect_error("run melt.toml", {"syntax error: expected ')', got the end at column 38 in "
                                 "[force_field] pair_1_1.energy, melt.toml:9"});
  write_melt("epsilon/(r - sigma)");
  expect_error("run melt.toml",
               {"division by zero (at r = 1) at column 8 in [force_field] pair_1_1.energy"});
  write_melt("epsilon*log(2.5 - r) + sigma");
  expect_error("run melt.toml", {"at r = rc = 2.5", "pair_1_1.energy, melt.toml:9"});
  write_melt("epsilon*sqrt(2 - r)*sigma");
  expect_error("run melt.toml", {"non-finite value at r = rc = 2.5"});
}

TEST_F(CliFormula, UnusedParameterAndTableErrors) {
  write_melt("4*epsilon*((1/r)^12 - (1/r)^6)");
  expect_error("run melt.toml",
               {"[force_field] pair_1_1.sigma: the formula does not use 'sigma'", "melt.toml:8"});
  write("lj.table", "# nothing\n\nOTHER\nN 2 R 1.0 2.0\n\n1 1.0 0 0\n2 2.0 0 0\n");
  write("table.toml",
        "workload = \"md\"\n[system]\ncells = \"4 4 4\"\n[force_field]\nstyle = \"table\"\n"
        "table_file = \"lj.table\"\ntable_keyword = \"LJ\"\n[run]\nbackend = \"cpu\"\n");
  expect_error("run table.toml",
               {"no section 'LJ' in the pair table file (it has OTHER)", "lj.table"});
}

TEST_F(CliFormula, CustomRunWritesThermo) {
  write_melt("4*epsilon*(s6^2 - s6); s6 = (sigma/r)^6", "truncation = \"shift\"\n");
  const auto r = pairwise("run melt.toml");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("pair custom (formula), truncation shift rc 2.5"), std::string::npos)
      << r.output;
}

}  // namespace
