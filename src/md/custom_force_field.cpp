#include "md/custom_force_field.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "engine/formula/formula_pair.hpp"
#include "engine/formula/parser.hpp"
#include "engine/table_pair.hpp"
#include "pairwise/error.hpp"

namespace pairwise::md {

namespace {

constexpr int kMaxTypes = 16;

std::string pair_name(int i, int j) {
  return "pair_" + std::to_string(i) + "_" + std::to_string(j);
}

// Numbers of a [force_field.<name>] table as parameters (every key a number).
std::map<std::string, double> read_numbers(config::Config& config, const std::string& table,
                                           std::map<std::string, std::string>* where = nullptr) {
  std::map<std::string, double> out;
  const auto s = config.section(table);
  for (const auto& key : s.keys()) {
    out[key] = s.number(key, 0);
    if (where) (*where)[key] = s.where(key);
  }
  return out;
}

}  // namespace

bool read_custom_force_field(config::Config& config, const config::Section& ff,
                             CustomForceFieldSpec& out) {
  const std::string style = ff.string("style", "cut");
  if (style != "custom" && style != "table") return false;
  out.kind =
      style == "custom" ? CustomForceFieldSpec::Kind::formula : CustomForceFieldSpec::Kind::table;
  out.source = config.source();
  for (auto key : {"epsilon", "sigma", "mixing"})
    if (ff.has(key))
      ff.fail(key, "is not used with style = '" + style +
                       "' (give the pair's parameters in pair_I_J, type_I, combine)");
  // A table's cutoff defaults to its last r (LAMMPS's pair_coeff without a cutoff).
  out.cutoff = ff.number("cutoff", out.kind == CustomForceFieldSpec::Kind::table ? 0.0 : 2.5,
                         config::Range::positive());
  if (out.kind == CustomForceFieldSpec::Kind::formula)
    out.truncation = ff.choice("truncation", "cut", formula::parse_truncation);
  else if (ff.has("truncation"))
    ff.fail("truncation", "is not used with style = 'table' (the table is used as written)");
  const std::string base = config.base_directory().string();
  auto path = [&](const std::string& f) {
    return f.empty() || base.empty() ? f : (config.base_directory() / f).string();
  };
  if (out.kind == CustomForceFieldSpec::Kind::formula) {
    if (ff.has("energy"))
      out.energy = {ff.string("energy", ""), "[force_field] energy", ff.where("energy")};
    if (ff.has("parameters")) out.globals = read_numbers(config, "force_field.parameters");
    for (int i = 1; i <= kMaxTypes; ++i) {
      const std::string key = "type_" + std::to_string(i);
      if (ff.has(key)) out.type_params[i] = read_numbers(config, "force_field." + key);
    }
    if (ff.has("combine")) {
      const auto s = config.section("force_field.combine");
      for (const auto& key : s.keys())
        out.combine[key] = {s.string(key, ""), "[force_field] combine." + key, s.where(key)};
    }
    for (auto key : {"table_file", "table_keyword", "table_style", "table_n"})
      if (ff.has(key)) ff.fail(key, "is used with style = 'table' only");
  } else {
    out.table_file = path(ff.string("table_file", ""));
    out.table_keyword = ff.string("table_keyword", "");
    out.table_style = ff.string("table_style", "linear");
    io::parse_table_style(out.table_style);
    out.table_n = int(ff.integer("table_n", 1000, 2, 1 << 24));
    for (auto key : {"energy", "parameters", "combine"})
      if (ff.has(key)) ff.fail(key, "is used with style = 'custom' only");
  }
  for (int i = 1; i <= kMaxTypes; ++i)
    for (int j = i; j <= kMaxTypes; ++j) {
      const std::string key = pair_name(i, j);
      if (!ff.has(key)) continue;
      CustomForceFieldSpec::Pair p;
      p.i = i, p.j = j, p.where = ff.where(key);
      const auto s = config.section("force_field." + key);
      for (const auto& k : s.keys()) {
        if (k == "energy" && out.kind == CustomForceFieldSpec::Kind::formula) {
          p.energy = {s.string(k, ""), "[force_field] " + key + ".energy", s.where(k)};
        } else if (k == "cutoff") {
          p.cutoff = s.number(k, 0, config::Range::positive());
        } else if (out.kind == CustomForceFieldSpec::Kind::table &&
                   (k == "table_file" || k == "table_keyword")) {
          (k == "table_file" ? p.table_file : p.table_keyword) =
              k == "table_file" ? path(s.string(k, "")) : s.string(k, "");
        } else if (out.kind == CustomForceFieldSpec::Kind::formula) {
          p.params[k] = s.number(k, 0);
          p.param_where[k] = s.where(k);
        } else {
          s.fail(k, "unknown key (a table pair takes table_file, table_keyword, cutoff)");
        }
      }
      out.pairs.push_back(std::move(p));
    }
  return true;
}

namespace {

// Wraps a formula error as the CLI shows it: "<what> at column C in <label>[, did you mean..]".
[[noreturn]] void rethrow(const formula::FormulaError& e, const ConfigText& text) {
  throw Error(e.describe(text.label), text.where);
}

double combined(const ConfigText& rule, const std::map<std::string, double>& a,
                const std::map<std::string, double>& b) {
  formula::Scope scope;
  for (const auto& [k, v] : a) scope.parameters[k + "1"] = v;
  for (const auto& [k, v] : b) scope.parameters[k + "2"] = v;
  try {
    formula::Graph g;
    const formula::NodeId n = formula::parse(g, rule.text, scope);
    if (!g.is_constant(n)) throw formula::FormulaError("not a constant", 0);
    return g[n].value;
  } catch (const formula::FormulaError& e) {
    rethrow(e, rule);
  }
}

}  // namespace

std::shared_ptr<const CustomPairs> build_custom_pairs(const CustomForceFieldSpec& spec, int types) {
  auto out = std::make_shared<CustomPairs>();
  out->types = types;
  out->pairs.resize(std::size_t(types) * std::size_t(types));
  std::map<std::pair<int, int>, const CustomForceFieldSpec::Pair*> given;
  for (const auto& p : spec.pairs) {
    if (p.j > types)
      throw Error(pair_name(p.i, p.j) + " names an unknown atom type (the system has " +
                      std::to_string(types) + ")",
                  p.where);
    given[{p.i, p.j}] = &p;
  }
  for (const auto& [t, params] : spec.type_params)
    if (t > types)
      throw Error("type_" + std::to_string(t) + " names an unknown atom type (the system has " +
                      std::to_string(types) + ")",
                  spec.source);
  const bool is_formula = spec.kind == CustomForceFieldSpec::Kind::formula;
  // Type pairs with the same table (file, section, cutoff) share one interpolator: one table in
  // the GPU kernels' data and cache.
  std::map<std::tuple<std::string, std::string, double>, std::shared_ptr<const engine::RadialPair>>
      tables;
  for (int i = 1; i <= types; ++i)
    for (int j = i; j <= types; ++j) {
      const auto it = given.find({i, j});
      const CustomForceFieldSpec::Pair* p = it == given.end() ? nullptr : it->second;
      const double cutoff = p && p->cutoff > 0 ? p->cutoff : spec.cutoff;
      std::shared_ptr<const engine::RadialPair> pair;
      if (is_formula) {
        const ConfigText& text = p && !p->energy.text.empty() ? p->energy : spec.energy;
        if (text.text.empty())
          throw Error("no energy formula for type pair " + std::to_string(i) + " " +
                          std::to_string(j) + " (give [force_field] energy or " + pair_name(i, j) +
                          ".energy)",
                      spec.source);
        formula::PairPotentialSpec ps;
        ps.energy = text.text, ps.cutoff = cutoff, ps.truncation = spec.truncation;
        ps.parameters = spec.globals;
        static const std::map<std::string, double> none;
        const auto ti = spec.type_params.find(i), tj = spec.type_params.find(j);
        for (const auto& [name, rule] : spec.combine)
          ps.parameters[name] = combined(rule, ti == spec.type_params.end() ? none : ti->second,
                                         tj == spec.type_params.end() ? none : tj->second);
        if (p)
          for (const auto& [k, v] : p->params) ps.parameters[k] = v;
        try {
          // A pair's own number the formula never uses is a typo, not a parameter.
          if (p && !p->params.empty()) {
            const auto used = formula::free_names(text.text);
            for (const auto& [k, v] : p->params)
              if (!std::count(used.begin(), used.end(), k))
                throw Error("[force_field] " + pair_name(i, j) + "." + k +
                                ": the formula does not use '" + k + "'" +
                                config::suggestion_suffix(k, used),
                            p->param_where.at(k));
          }
          pair = std::make_shared<formula::FormulaPair>(ps);
        } catch (const formula::FormulaError& e) {
          rethrow(e, text);
        }
      } else {
        const std::string file = p && !p->table_file.empty() ? p->table_file : spec.table_file;
        const std::string keyword =
            p && !p->table_keyword.empty() ? p->table_keyword : spec.table_keyword;
        const std::string label = "[force_field] " + pair_name(i, j);
        if (file.empty() || keyword.empty())
          throw Error("no table for type pair " + std::to_string(i) + " " + std::to_string(j) +
                          " (give table_file and table_keyword, or " + pair_name(i, j) +
                          ".table_file/.table_keyword)",
                      spec.source);
        auto& shared = tables[{file, keyword, cutoff}];
        if (!shared)
          shared =
              engine::make_table_pair(file, keyword, spec.table_style, spec.table_n, cutoff, label);
        pair = shared;
      }
      out->pairs[std::size_t(i - 1) * types + (j - 1)] = pair;
      out->pairs[std::size_t(j - 1) * types + (i - 1)] = pair;
    }
  out->description = std::string(is_formula ? "custom (formula)" : "table") + ", truncation " +
                     (is_formula ? formula::to_string(spec.truncation) : "none");
  return out;
}

}  // namespace pairwise::md
