#include "core/io/pdb.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

// Columns [first, last] (1-based, inclusive) of `line`, trimmed; "" past its end.
std::string columns(const std::string& line, std::size_t first, std::size_t last) {
  if (line.size() < first) return {};
  std::string s = line.substr(first - 1, last - first + 1);
  const auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(' ');
  return s.substr(b, e - b + 1);
}

}  // namespace

std::vector<AtomRecord> parse_pdb(std::istream& in, const std::string& source) {
  std::vector<AtomRecord> atoms;
  std::string line;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("ENDMDL", 0) == 0) break;  // the first model only
    if (line.rfind("ATOM", 0) != 0 && line.rfind("HETATM", 0) != 0) continue;
    const std::string where = source + ":" + std::to_string(line_no);
    if (line.size() < 54) {
      throw Error("PDB atom record of " + std::to_string(line.size()) +
                      " characters (coordinates need columns 31-54)",
                  where);
    }
    AtomRecord a;
    a.line = line_no;
    const std::string serial = columns(line, 7, 11);
    // Serial numbers past 99999 are often written in hexadecimal or as '*****': keep 0 then.
    if (!serial.empty() && std::all_of(serial.begin(), serial.end(), ::isdigit))
      a.serial = parse_field_long(serial, "serial", where + ":serial");
    a.name = columns(line, 13, 16);
    a.resname = columns(line, 18, 21);  // col 21 too: CHARMM writes 4-character names (TIP3)
    a.chain = columns(line, 22, 22);
    const std::string resid = columns(line, 23, 26);
    if (!resid.empty() &&
        std::all_of(resid.begin(), resid.end(), [](char c) { return c == '-' || std::isdigit(c); }))
      a.resid = parse_field_long(resid, "resSeq", where + ":resSeq");
    a.x = parse_field_double(columns(line, 31, 38), "x", where + ":x");
    a.y = parse_field_double(columns(line, 39, 46), "y", where + ":y");
    a.z = parse_field_double(columns(line, 47, 54), "z", where + ":z");
    atoms.push_back(std::move(a));
  }
  if (in.bad()) throw Error("read error", source);
  return atoms;
}

std::vector<AtomRecord> read_pdb(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot open PDB file: " + std::string(std::strerror(errno)), path.string());
  return parse_pdb(in, path.string());
}

ChargeTable parse_charge_table(std::istream& in, const std::string& source) {
  ChargeTable table;
  std::string line;
  long line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> f;
    for (std::string w; words >> w;) f.push_back(w);
    if (f.empty()) continue;
    const std::string where = source + ":" + std::to_string(line_no);
    if (f.size() != 3 && f.size() != 4) {
      throw Error("charge table entry with " + std::to_string(f.size()) +
                      " fields (expected 'RESNAME ATOMNAME CHARGE [RADIUS]')",
                  where);
    }
    ChargeEntry e;
    e.charge = parse_field_double(f[2], "charge", where + ":charge");
    if (f.size() == 4) e.radius = parse_field_double(f[3], "radius", where + ":radius");
    e.where = where;
    const auto [it, inserted] = table.emplace(std::make_pair(f[0], f[1]), e);
    if (!inserted) {
      throw Error("duplicate charge table entry " + f[0] + " " + f[1] + " (first at " +
                      it->second.where + ")",
                  where);
    }
  }
  if (table.empty()) throw Error("charge table has no entries", source);
  return table;
}

ChargeTable read_charge_table(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw Error("cannot open charge table: " + std::string(std::strerror(errno)), path.string());
  }
  return parse_charge_table(in, path.string());
}

void assign_charges(std::vector<AtomRecord>& atoms, const ChargeTable& table,
                    const std::string& source) {
  for (auto& a : atoms) {
    auto it = table.find({a.resname, a.name});
    if (it == table.end()) it = table.find({"*", a.name});
    if (it == table.end()) {
      throw Error("no charge for atom " + a.name + " of residue " + a.resname + " " +
                      std::to_string(a.resid) + " (serial " + std::to_string(a.serial) +
                      ") in the charge table",
                  source);
    }
    a.charge = it->second.charge;
    a.radius = it->second.radius;
  }
}

}  // namespace pairwise::io
