// Custom pair styles of the md workload (issue 13, docs/formulas.md): `[force_field] style =
// "custom"` (a formula per type pair) and `style = "table"` (LAMMPS pair_style table files).
//
//   [force_field]
//   style = "custom"
//   cutoff = 2.5                  # global rc; pair_I_J.cutoff overrides
//   truncation = "cut"            # cut | shift | shifted_force (applied to every pair)
//   energy = "4*epsilon*((sigma/r)^12 - (sigma/r)^6)"   # default formula of every pair
//   parameters.kappa = 1.0        # global parameters
//   type_1.epsilon = 1.0          # per-type parameters, combined by...
//   combine.epsilon = "sqrt(epsilon1*epsilon2)"          # ...a formula in name1, name2
//   pair_1_2.energy = "..."       # a pair's own formula; its other numbers are its parameters
//   pair_1_2.sigma = 1.1
//
//   style = "table"
//   table_file = "lj.table"       # LAMMPS pair_style table file (relative to the TOML file)
//   table_keyword = "LJ"          # its section; pair_I_J.table_keyword / table_file override
//   table_style = "linear"        # linear | spline (LAMMPS's interpolation styles)
//   table_n = 1000                # LAMMPS's N: points of the internal table
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "engine/formula/pair_potential.hpp"
#include "engine/radial_pair.hpp"

namespace pairwise::md {

// Text from the configuration with what error messages need.
struct ConfigText {
  std::string text;
  std::string label;  // "[force_field] pair_1_1.energy"
  std::string where;  // "melt.toml:9"
};

struct CustomForceFieldSpec {
  enum class Kind { none, formula, table } kind = Kind::none;
  formula::Truncation truncation = formula::Truncation::cut;
  double cutoff = 2.5;
  std::string source;  // the configuration file (messages)
  // formula
  ConfigText energy;  // default formula ("" if none)
  std::map<std::string, double> globals;
  std::map<int, std::map<std::string, double>> type_params;
  std::map<std::string, ConfigText> combine;
  // table
  std::string table_file, table_keyword, table_style = "linear";
  int table_n = 1000;
  struct Pair {
    int i = 0, j = 0;
    ConfigText energy;  // "" : the default
    std::map<std::string, double> params;
    std::map<std::string, std::string> param_where;
    double cutoff = 0;  // 0: the global one
    std::string table_file, table_keyword;
    std::string where;
  };
  std::vector<Pair> pairs;
};

// Reads `style` of [force_field]; for "custom" and "table" reads the keys above into `out` and
// returns true; for the built-in styles returns false and reads nothing else.
bool read_custom_force_field(config::Config& config, const config::Section& ff,
                             CustomForceFieldSpec& out);

// Every type pair's interaction (types × types, symmetric), resolved and compiled.
struct CustomPairs {
  int types = 1;
  std::vector<std::shared_ptr<const engine::RadialPair>> pairs;
  std::string description;  // e.g. "custom (formula), truncation cut"
  const engine::RadialPair& at(int ti, int tj) const {
    return *pairs[std::size_t(ti - 1) * std::size_t(types) + std::size_t(tj - 1)];
  }
};

// Throws pairwise::Error "error: <what> at column C in <label>[, did you mean 'x'?], <file:line>".
std::shared_ptr<const CustomPairs> build_custom_pairs(const CustomForceFieldSpec& spec, int types);

}  // namespace pairwise::md
