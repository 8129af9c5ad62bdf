#include "ljc/topology_io.hpp"

#include "core/toml_guard.hpp"

#include <toml++/toml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/config.hpp"
#include "core/io/atomic_file.hpp"
#include "pairwise/error.hpp"

namespace pairwise::ljc {
namespace {

using nlohmann::json;

void check_keys(const json& obj, std::initializer_list<const char*> allowed,
                const std::string& where) {
  std::vector<std::string> names(allowed.begin(), allowed.end());
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(names.begin(), names.end(), it.key()) == names.end()) {
      throw Error("unknown key '" + it.key() + "'" + config::suggestion_suffix(it.key(), names),
                  where);
    }
  }
}

double number(const json& v, const std::string& where) {
  if (!v.is_number()) throw Error("expected a number", where);
  return v.get<double>();
}

int atom_index(const json& v, const std::string& where) {
  if (!v.is_number_integer()) throw Error("expected an atom index (an integer)", where);
  const auto i = v.get<long long>();
  if (i < 0 || i > (1LL << 31) - 1) {
    throw Error("atom index " + std::to_string(i) + " does not exist", where);
  }
  return static_cast<int>(i);
}

std::array<double, 3> vec3(const json& v, const std::string& where) {
  if (!v.is_array() || v.size() != 3) throw Error("expected [x, y, z]", where);
  return {number(v[0], where), number(v[1], where), number(v[2], where)};
}

struct TypeParams {
  std::optional<double> sigma, epsilon, mass, charge;
};

}  // namespace

json toml_to_json(const std::string& text, const std::string& source) {
  toml::table table;
  try {
    check_toml_text(text, source);
    table = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw Error(std::string(e.description()),
                source + ":" + std::to_string(b.line) + ":" + std::to_string(b.column));
  }
  std::ostringstream out;
  out << toml::json_formatter{table};
  return json::parse(out.str());
}

Molecule parse_topology(const json& doc, const std::string& source, std::ostream& warnings) {
  if (!doc.is_object()) throw Error("a topology is a table (object) at the top level", source);
  check_keys(doc, {"net_charge", "types", "atoms", "bonds", "exclusions"}, source);
  std::map<std::string, TypeParams> types;
  if (doc.contains("types")) {
    const json& t = doc["types"];
    if (!t.is_object()) throw Error("types must be a table of type names", source + ": types");
    for (auto it = t.begin(); it != t.end(); ++it) {
      const std::string where = source + ": types." + it.key();
      if (!it->is_object()) throw Error("a type is a table (sigma, epsilon, mass, charge)", where);
      check_keys(*it, {"sigma", "epsilon", "mass", "charge"}, where);
      TypeParams p;
      if (it->contains("sigma")) p.sigma = number((*it)["sigma"], where + ".sigma");
      if (it->contains("epsilon")) p.epsilon = number((*it)["epsilon"], where + ".epsilon");
      if (it->contains("mass")) p.mass = number((*it)["mass"], where + ".mass");
      if (it->contains("charge")) p.charge = number((*it)["charge"], where + ".charge");
      types[it.key()] = p;
    }
  }
  if (!doc.contains("atoms") || !doc["atoms"].is_array() || doc["atoms"].empty()) {
    throw Error("the topology needs a non-empty array 'atoms'", source);
  }
  const json& atoms = doc["atoms"];
  Molecule m;
  m.resize(atoms.size());
  bool any_velocity = false;
  std::vector<std::array<double, 3>> vel(atoms.size());
  std::vector<std::string> type_names;
  for (const auto& [name, p] : types) type_names.push_back(name);
  for (std::size_t i = 0; i < atoms.size(); ++i) {
    const std::string where = source + ": atoms[" + std::to_string(i) + "]";
    const json& a = atoms[i];
    if (!a.is_object()) throw Error("an atom is a table {type, charge, pos, ...}", where);
    check_keys(a, {"type", "charge", "pos", "sigma", "epsilon", "mass", "vel", "name"}, where);
    if (!a.contains("type") || !a["type"].is_string())
      throw Error("atom needs a type (a string)", where);
    const std::string type = a["type"].get<std::string>();
    m.type[i] = type;
    const auto found = types.find(type);
    const TypeParams tp = found != types.end() ? found->second : TypeParams{};
    auto take = [&](const char* key, const std::optional<double>& fallback) -> double {
      if (a.contains(key)) return number(a[key], where + "." + key);
      if (fallback) return *fallback;
      if (found == types.end()) {
        throw Error("type '" + type + "' has no parameters (no [types." + type + "] table" +
                        config::suggestion_suffix(type, type_names) + ", and no " + key +
                        " on the atom)",
                    where);
      }
      throw Error("no " + std::string(key) + " for this atom: neither [types." + type +
                      "] nor the atom gives it",
                  where);
    };
    m.sigma[i] = take("sigma", tp.sigma);
    m.epsilon[i] = take("epsilon", tp.epsilon);
    m.mass[i] = take("mass", tp.mass);
    m.q[i] = take("charge", tp.charge ? tp.charge : std::optional<double>(0.0));
    if (!a.contains("pos")) throw Error("atom needs pos = [x, y, z] (Å)", where);
    const auto p = vec3(a["pos"], where + ".pos");
    m.x[i] = p[0], m.y[i] = p[1], m.z[i] = p[2];
    if (a.contains("vel")) {
      vel[i] = vec3(a["vel"], where + ".vel");
      any_velocity = true;
    }
  }
  if (any_velocity) {
    m.vx.resize(m.size()), m.vy.resize(m.size()), m.vz.resize(m.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
      m.vx[i] = vel[i][0], m.vy[i] = vel[i][1], m.vz[i] = vel[i][2];
    }
  }
  if (doc.contains("bonds")) {
    const json& b = doc["bonds"];
    if (!b.is_array()) throw Error("bonds must be an array of [i, j, r0, k]", source + ": bonds");
    for (std::size_t k = 0; k < b.size(); ++k) {
      const std::string where = source + ": bonds[" + std::to_string(k) + "]";
      if (!b[k].is_array() || b[k].size() != 4) throw Error("a bond is [i, j, r0, k]", where);
      m.bonds.push_back({atom_index(b[k][0], where), atom_index(b[k][1], where),
                         number(b[k][2], where), number(b[k][3], where)});
    }
  }
  if (doc.contains("exclusions")) {
    const json& e = doc["exclusions"];
    if (!e.is_array())
      throw Error("exclusions must be an array of [i, j]", source + ": exclusions");
    for (std::size_t k = 0; k < e.size(); ++k) {
      const std::string where = source + ": exclusions[" + std::to_string(k) + "]";
      if (!e[k].is_array() || e[k].size() != 2) throw Error("an exclusion is [i, j]", where);
      m.exclusions.emplace_back(atom_index(e[k][0], where), atom_index(e[k][1], where));
    }
  }
  m.validate(source);
  if (doc.contains("net_charge")) {
    const double declared = number(doc["net_charge"], source + ": net_charge");
    const double sum = m.net_charge();
    if (std::fabs(sum - declared) > 1e-6) {
      std::ostringstream msg;
      msg.precision(8);
      msg << "warning: the atoms' charges sum to " << sum << " e, not the declared net_charge "
          << declared << " e, " << source << "\n";
      warnings << msg.str();
    }
  }
  return m;
}

Molecule read_topology(const std::filesystem::path& file, std::ostream& warnings) {
  std::ifstream in(file);
  if (!in) throw Error("cannot open the topology file", file.string());
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string ext = file.extension().string();
  json doc;
  if (ext == ".json") {
    try {
      doc = json::parse(buffer.str());
    } catch (const json::parse_error& e) {
      throw Error(std::string("JSON syntax: ") + e.what(), file.string());
    }
  } else if (ext == ".toml") {
    doc = toml_to_json(buffer.str(), file.string());
  } else {
    throw Error("unknown topology format '" + ext + "' (expected .toml or .json)", file.string());
  }
  return parse_topology(doc, file.string(), warnings);
}

json to_topology_json(const Molecule& m) {
  json atoms = json::array();
  for (std::size_t i = 0; i < m.size(); ++i) {
    json a = {{"type", m.type[i]},       {"charge", m.q[i]},  {"sigma", m.sigma[i]},
              {"epsilon", m.epsilon[i]}, {"mass", m.mass[i]}, {"pos", {m.x[i], m.y[i], m.z[i]}}};
    if (!m.vx.empty()) a["vel"] = {m.vx[i], m.vy[i], m.vz[i]};
    atoms.push_back(a);
  }
  json bonds = json::array();
  for (const Bond& b : m.bonds) bonds.push_back({b.i, b.j, b.r0, b.k});
  json excl = json::array();
  for (auto [i, j] : m.exclusions) excl.push_back({i, j});
  return {{"net_charge", m.net_charge()}, {"atoms", atoms}, {"bonds", bonds}, {"exclusions", excl}};
}

void write_topology(const std::filesystem::path& file, const Molecule& m) {
  const json doc = to_topology_json(m);
  io::write_file_atomically(file, [&](std::ostream& out) { out << doc.dump(1) << "\n"; });
}

}  // namespace pairwise::ljc
