// PDB atom records (fixed columns, wwPDB v3.3) into io::AtomRecord, and a charge table that gives
// PDB atoms their charges and radii. Errors are pairwise::Error naming "file:line:field".
//
//   cols  1-6 record, 7-11 serial, 13-16 name, 18-20 resName (18-21: CHARMM's 4 characters),
//        22 chain, 23-26 resSeq,
//        31-38 x, 39-46 y, 47-54 z   (charge and radius stay 0 until assign_charges)
//
// Charge table: one entry a line, '#' starts a comment:
//   RESNAME ATOMNAME CHARGE [RADIUS]     ("*" as RESNAME matches every residue)
#pragma once

#include <filesystem>
#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/io/pqr.hpp"

namespace pairwise::io {

std::vector<AtomRecord> read_pdb(const std::filesystem::path& path);
std::vector<AtomRecord> parse_pdb(std::istream& in, const std::string& source);

struct ChargeEntry {
  double charge = 0, radius = 0;
  std::string where;  // file:line of the entry
};

// Keyed by (resname, atom name); resname "*" is the wildcard.
using ChargeTable = std::map<std::pair<std::string, std::string>, ChargeEntry>;

ChargeTable read_charge_table(const std::filesystem::path& path);
ChargeTable parse_charge_table(std::istream& in, const std::string& source);

// Sets charge and radius of every atom from the table (exact residue first, then "*"); throws for
// the first atom the table does not cover, naming it and `source` (the PDB file).
void assign_charges(std::vector<AtomRecord>& atoms, const ChargeTable& table,
                    const std::string& source);

}  // namespace pairwise::io
