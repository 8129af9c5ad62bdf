// Atom records of PQR files (APBS/pdb2pqr) and PDB files, shared by the workloads that read
// molecules (potmap, ljc). Errors are pairwise::Error naming "file:line" and the field.
//
// PQR: whitespace-separated ATOM/HETATM records
//   ATOM serial name resName [chainID] resSeq x y z charge radius
// (the chain is optional: 10 or 11 fields). Other records (REMARK, TER, END, ...) are skipped.
#pragma once

#include <filesystem>
#include <istream>
#include <string>
#include <vector>

namespace pairwise::io {

struct AtomRecord {
  long serial = 0;
  std::string name, resname, chain;
  long resid = 0;
  double x = 0, y = 0, z = 0;  // Å
  double charge = 0;           // e
  double radius = 0;           // Å
  long line = 0;               // line of the record in its file (1-based)
};

// Reads a PQR file; throws pairwise::Error ("cannot open", or a bad field with file:line).
std::vector<AtomRecord> read_pqr(const std::filesystem::path& path);
// Parses PQR text; `source` names it in messages.
std::vector<AtomRecord> parse_pqr(std::istream& in, const std::string& source);

// Parses a number of a record field; throws pairwise::Error("bad <field> '<text>'...", where).
double parse_field_double(const std::string& text, const char* field, const std::string& where);
long parse_field_long(const std::string& text, const char* field, const std::string& where);

}  // namespace pairwise::io
