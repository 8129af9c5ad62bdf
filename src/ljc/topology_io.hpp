// Molecule input and output: a TOML or JSON topology (issue 5, item 3), one schema in either syntax
// (docs/ljc.md):
//   net_charge = 0.0                                   # optional: warns if the atoms sum otherwise
//   [types.C]  sigma = 3.0  epsilon = 0.12  mass = 12.011   (charge optional, a default)
//   atoms = [ {type = "C", charge = 0.4, pos = [x, y, z]}, ... ]   (sigma/epsilon/mass override
//            the type's; vel = [vx, vy, vz] optional, Å/fs)
//   bonds = [ [i, j, r0, k], ... ]                     # 0-based atoms, U = ½ k (r - r0)²
//   exclusions = [ [i, j], ... ]                       # in addition to those from bonds
// The format follows the file's extension (.toml, .json). Errors are pairwise::Error naming the
// file and the item ("mol.toml: atoms[17]"); unknown keys are errors with a did-you-mean.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

#include "ljc/molecule.hpp"

namespace pairwise::ljc {

// Reads and validates a topology; a declared net_charge that the atoms do not sum to (beyond
// 1e-6 e) is written to `warnings` as "warning: ...".
Molecule read_topology(const std::filesystem::path& file, std::ostream& warnings);
// The same from a parsed document; `source` names it in messages.
Molecule parse_topology(const nlohmann::json& doc, const std::string& source,
                        std::ostream& warnings);
// A TOML document as JSON (for parse_topology). Throws pairwise::Error on syntax errors.
nlohmann::json toml_to_json(const std::string& text, const std::string& source);

// The molecule as a JSON topology document (per-atom parameters, no types), written atomically.
nlohmann::json to_topology_json(const Molecule& m);
void write_topology(const std::filesystem::path& file, const Molecule& m);

}  // namespace pairwise::ljc
