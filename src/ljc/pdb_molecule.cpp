#include "ljc/pdb_molecule.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ljc/pqr_molecule.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {

ParameterTable parse_parameter_table(std::istream& in, const std::string& source) {
  ParameterTable table;
  std::string line;
  long line_no = 0;
  std::vector<std::string> f;
  while (std::getline(in, line)) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    f.clear();
    std::istringstream words(line);
    for (std::string w; words >> w;) f.push_back(w);
    if (f.empty()) continue;
    const std::string where = source + ":" + std::to_string(line_no);
    if (f.size() != 6) {
      throw Error("parameter entry with " + std::to_string(f.size()) +
                      " fields (expected 'RESNAME ATOMNAME CHARGE SIGMA EPSILON MASS')",
                  where);
    }
    AtomParameters p;
    p.charge = io::parse_field_double(f[2], "charge", where + ":charge");
    p.sigma = io::parse_field_double(f[3], "sigma", where + ":sigma");
    p.epsilon = io::parse_field_double(f[4], "epsilon", where + ":epsilon");
    p.mass = io::parse_field_double(f[5], "mass", where + ":mass");
    p.where = where;
    if (!(p.sigma > 0)) throw Error("sigma must be > 0 (got " + f[3] + ")", where);
    if (!(p.epsilon >= 0)) throw Error("epsilon must be >= 0 (got " + f[4] + ")", where);
    if (!(p.mass > 0)) throw Error("mass must be > 0 (got " + f[5] + ")", where);
    const auto [it, fresh] = table.emplace(std::make_pair(f[0], f[1]), p);
    if (!fresh) {
      throw Error("duplicate entry for residue '" + f[0] + "' atom '" + f[1] + "' (first at " +
                      it->second.where + ")",
                  where);
    }
  }
  if (in.bad()) throw Error("read error", source);
  return table;
}

ParameterTable read_parameter_table(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw Error("cannot open parameter table: " + std::string(std::strerror(errno)), path.string());
  }
  return parse_parameter_table(in, path.string());
}

Molecule molecule_from_pdb(const std::vector<io::AtomRecord>& atoms, const ParameterTable& table,
                           double bond_k, const std::string& pdb_source,
                           const std::string& table_source) {
  if (atoms.empty()) throw Error("the PDB file has no ATOM or HETATM records", pdb_source);
  if (table.empty()) throw Error("the parameter table has no entries", table_source);
  Molecule m;
  m.resize(atoms.size());
  std::vector<double> rcov(atoms.size(), 0.0);
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    const io::AtomRecord& a = atoms[i];
    auto it = table.find({a.resname, a.name});
    if (it == table.end()) it = table.find({"*", a.name});
    if (it == table.end()) {
      throw Error("atom '" + a.name + "' of residue " + a.resname + " " + std::to_string(a.resid) +
                      " (serial " + std::to_string(a.serial) +
                      ") has no parameters: " + table_source + " has no '" + a.resname + " " +
                      a.name + "' or '* " + a.name + "' entry",
                  pdb_source + ":" + std::to_string(a.line));
    }
    const AtomParameters& p = it->second;
    m.type[i] = a.resname + ":" + a.name;
    m.q[i] = p.charge, m.sigma[i] = p.sigma, m.epsilon[i] = p.epsilon, m.mass[i] = p.mass;
    m.x[i] = a.x, m.y[i] = a.y, m.z[i] = a.z;
    double mass = 0;
    if (!element_of_atom(a.name, mass, rcov[i])) rcov[i] = 0.0;  // no bonds
  }
  m.bonds = bonds_by_distance(m, rcov, bond_k);
  m.validate(pdb_source);
  return m;
}

}  // namespace pairwise::ljc
