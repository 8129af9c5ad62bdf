// A molecule from a PDB file plus a parameter table (issue 5 item 3). The PDB gives names and
// positions (the shared reader src/core/io/pdb.hpp); the table gives every atom its charge, σ, ε
// and mass. Text, one entry a line, '#' starts a comment:
//
//   # RESNAME  ATOMNAME  CHARGE(e)  SIGMA(Å)  EPSILON(kcal/mol)  MASS(amu)
//   ALA        CB        -0.1825    3.39967   0.1094             12.011
//   *          HA         0.0823    2.47135   0.0157              1.008
//
// An atom takes the entry of its (residue name, atom name), else the wildcard ("*", atom name).
// Bonds are found by distance as for PQR input (pqr_molecule.hpp: 1.2 × the sum of covalent radii
// of the elements H C N O S P, from the atom name; atoms of other elements get no bonds), with
// r0 = the file's distance and k = `bond_k`; exclusions and 1-4 pairs follow from the bonds.
// Errors name file:line: a table line with the wrong number of fields or a bad number, a duplicate
// entry, σ or mass <= 0, ε < 0, and (in the PDB) an atom the table does not cover.
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/io/pqr.hpp"
#include "ljc/molecule.hpp"

namespace pairwise::ljc {

struct AtomParameters {
  double charge = 0, sigma = 0, epsilon = 0, mass = 0;
  std::string where;  // file:line of the entry
};

// Keyed by (residue name or "*", atom name).
using ParameterTable = std::map<std::pair<std::string, std::string>, AtomParameters>;

ParameterTable read_parameter_table(const std::filesystem::path& path);
ParameterTable parse_parameter_table(std::istream& in, const std::string& source);

// `pdb_source` and `table_source` name the two files in messages.
Molecule molecule_from_pdb(const std::vector<io::AtomRecord>& atoms, const ParameterTable& table,
                           double bond_k, const std::string& pdb_source,
                           const std::string& table_source);

}  // namespace pairwise::ljc
