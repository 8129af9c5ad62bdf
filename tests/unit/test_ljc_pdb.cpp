// PDB plus a parameter table as ljc input (src/ljc/pdb_molecule.hpp, issue 5 item 3): parameters
// per (residue, atom name) with a wildcard residue, bonds from distances, and errors naming
// file:line for an atom without parameters and for bad table entries.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/io/pdb.hpp"
#include "error_message.hpp"
#include "ljc/pdb_molecule.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {
namespace {

using pairwise::test::error_of;

constexpr const char* kWaterDimerPdb =
    "REMARK two TIP3P waters\n"
    "ATOM      1  OH2 TIP3A   1       0.000   0.000   0.000  1.00  0.00\n"
    "ATOM      2  H1  TIP3A   1       0.957   0.000   0.000  1.00  0.00\n"
    "ATOM      3  H2  TIP3A   1      -0.240   0.927   0.000  1.00  0.00\n"
    "ATOM      4  OH2 TIP3A   2       3.000   0.200   0.100  1.00  0.00\n"
    "ATOM      5  H1  TIP3A   2       3.500   1.000   0.300  1.00  0.00\n"
    "ATOM      6  H2  TIP3A   2       3.400  -0.500   0.200  1.00  0.00\n"
    "END\n";

constexpr const char* kTable =
    "# RESNAME ATOMNAME CHARGE SIGMA EPSILON MASS\n"
    "TIP3 OH2 -0.834 3.15061 0.1521 15.9994\n"
    "*    H1   0.417 0.4     0.046   1.008   # the wildcard residue\n"
    "*    H2   0.417 0.4     0.046   1.008\n"
    "TIP3 H2   0.400 0.5     0.050   2.000   # the exact residue wins over '*'\n";

std::vector<io::AtomRecord> atoms() {
  std::istringstream in(kWaterDimerPdb);
  return io::parse_pdb(in, "w.pdb");
}

ParameterTable table(const std::string& text) {
  std::istringstream in(text);
  return parse_parameter_table(in, "t.prm");
}

TEST(LjcPdb, ParametersFromTheTable) {
  const Molecule m = molecule_from_pdb(atoms(), table(kTable), 250.0, "w.pdb", "t.prm");
  ASSERT_EQ(m.size(), 6u);
  EXPECT_DOUBLE_EQ(m.q[0], -0.834);
  EXPECT_DOUBLE_EQ(m.sigma[0], 3.15061);
  EXPECT_DOUBLE_EQ(m.epsilon[0], 0.1521);
  EXPECT_DOUBLE_EQ(m.mass[0], 15.9994);
  EXPECT_DOUBLE_EQ(m.q[1], 0.417);  // '* H1'
  EXPECT_DOUBLE_EQ(m.mass[1], 1.008);
  EXPECT_DOUBLE_EQ(m.q[2], 0.4);  // 'TIP3 H2' before '* H2'
  EXPECT_DOUBLE_EQ(m.mass[2], 2.0);
  EXPECT_DOUBLE_EQ(m.x[3], 3.0);
  EXPECT_DOUBLE_EQ(m.z[5], 0.2);
  // Four O-H bonds, none between the waters, r0 the file's distance, k as given.
  ASSERT_EQ(m.bonds.size(), 4u);
  EXPECT_EQ(m.bonds[0].i, 0);
  EXPECT_EQ(m.bonds[0].j, 1);
  EXPECT_NEAR(m.bonds[0].r0, 0.957, 1e-12);
  EXPECT_DOUBLE_EQ(m.bonds[0].k, 250.0);
  EXPECT_EQ(m.bonds[3].i, 3);
  EXPECT_EQ(m.bonds[3].j, 5);
}

TEST(LjcPdb, AtomWithoutParametersNamesFileAndLine) {
  const std::string msg = error_of([] {
    molecule_from_pdb(atoms(), table("TIP3 OH2 -0.834 3.15 0.15 16.0\n* H1 0.417 0.4 0.05 1.0\n"),
                      300.0, "w.pdb", "t.prm");
  });
  EXPECT_NE(msg.find("w.pdb:4"), std::string::npos) << msg;  // atom 3, the first H2
  EXPECT_NE(msg.find("'H2'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no parameters"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t.prm"), std::string::npos) << msg;
}

TEST(LjcPdb, BadTableEntries) {
  auto msg = error_of([] { table("TIP3 OH2 -0.834 3.15 0.15 16.0\nTIP3 H1 0.4 0.4 1.0\n"); });
  EXPECT_NE(msg.find("t.prm:2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("5 fields"), std::string::npos) << msg;
  msg = error_of([] { table("TIP3 OH2 -0.834 3.15 abc 16.0\n"); });
  EXPECT_NE(msg.find("t.prm:1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("epsilon"), std::string::npos) << msg;
  msg = error_of(
      [] { table("# c\nTIP3 OH2 -0.8 3.15 0.15 16.0\n\nTIP3 OH2 -0.8 3.15 0.15 16.0\n"); });
  EXPECT_NE(msg.find("t.prm:4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("duplicate"), std::string::npos) << msg;
  EXPECT_NE(msg.find("t.prm:2"), std::string::npos) << msg;  // the first entry
  msg = error_of([] { table("* H1 0.4 0.4 0.05 0\n"); });
  EXPECT_NE(msg.find("mass must be > 0"), std::string::npos) << msg;
  msg = error_of([] { table("* H1 0.4 -1 0.05 1\n"); });
  EXPECT_NE(msg.find("sigma must be > 0"), std::string::npos) << msg;
  msg = error_of([] { molecule_from_pdb(atoms(), table("# empty\n"), 300.0, "w.pdb", "t.prm"); });
  EXPECT_NE(msg.find("no entries"), std::string::npos) << msg;
}

}  // namespace
}  // namespace pairwise::ljc
