#include "core/config.hpp"

#include "core/toml_guard.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "pairwise/error.hpp"

namespace pairwise::config {

namespace {

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string type_name(const toml::node& node) {
  std::ostringstream s;
  s << node.type();
  return s.str();
}

// The value as it appears in a message: 'abc', 2.5, true.
std::string show(const toml::node& node) {
  if (auto s = node.value<std::string>()) return "'" + *s + "'";
  std::ostringstream out;
  node.visit([&](const auto& n) { out << n; });
  return out.str();
}

std::string join(std::string_view table, std::string_view key) {
  return table.empty() ? std::string(key) : std::string(table) + "." + std::string(key);
}

}  // namespace

std::optional<std::string> did_you_mean(std::string_view word,
                                        std::span<const std::string> candidates) {
  const std::size_t limit = word.size() >= 3 ? std::max<std::size_t>(1, word.size() / 3) + 1 : 1;
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance) best_distance = d, best = c;
  }
  return best;
}

std::string suggestion_suffix(std::string_view word, std::span<const std::string> candidates,
                              std::string_view quote) {
  const auto best = did_you_mean(word, candidates);
  if (!best) return {};
  const std::string_view close = quote == "[" ? "]" : quote;
  return ", did you mean " + std::string(quote) + *best + std::string(close) + "?";
}

std::string Range::describe() const {
  std::ostringstream s;
  s.precision(15);
  const double huge = std::numeric_limits<double>::max();
  if (max == huge) {
    s << (min_exclusive ? "> " : ">= ") << min;
  } else if (min == -huge) {
    s << "<= " << max;
  } else {
    s << "in " << (min_exclusive ? "(" : "[") << min << ", " << max << "]";
  }
  return s.str();
}

// ---------------------------------------------------------------------------------------------------
// The document and what the workload asked for

struct ConfigImpl {
  toml::table root;
  std::string source;
  std::filesystem::path base;
  std::map<std::string, std::set<std::string>, std::less<>> known;  // table -> keys asked for
  std::map<std::string, std::string, std::less<>> origins;          // "table.key" -> option text

  const toml::table* table(std::string_view name) const {
    if (name.empty()) return &root;
    const toml::node* node = root.get(name);
    // A nested table: "force_field.pair_1_1" (dotted keys in the file, e.g. pair_1_1.energy).
    if (!node && name.find('.') != std::string_view::npos) node = root.at_path(name).node();
    return node ? node->as_table() : nullptr;
  }
  const toml::node* find(std::string_view name, std::string_view key) const {
    const toml::table* t = table(name);
    return t ? t->get(key) : nullptr;
  }
  const toml::node* lookup(std::string_view name, std::string_view key) {
    known[std::string(name)].insert(std::string(key));
    return find(name, key);
  }
  bool overridden(std::string_view name, std::string_view key) const {
    return origins.count(join(name, key)) > 0;
  }
  // Stores `value` at a dotted key ("integrator.eta"), creating the tables on the way.
  void insert(std::string_view dotted_key, toml::node&& value, std::string origin) {
    toml::table* t = &root;
    std::string_view rest = dotted_key;
    std::string path;
    for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      const std::string part(rest.substr(0, dot));
      rest.remove_prefix(dot + 1);
      path = join(path, part);
      auto [it, inserted] = t->insert(part, toml::table{});
      t = it->second.as_table();
      if (!t) throw Error("'" + path + "' is a value, not a table", origin);
    }
    if (rest.empty()) throw Error("empty key in '" + std::string(dotted_key) + "'", origin);
    value.visit([&](auto&& v) { t->insert_or_assign(std::string(rest), std::move(v)); });
    origins[std::string(dotted_key)] = std::move(origin);
  }
  std::string where(std::string_view name, std::string_view key, const toml::node* node) const {
    if (auto it = origins.find(join(name, key)); it != origins.end()) return it->second;
    if (node && node->source().begin.line > 0) {
      return source + ":" + std::to_string(node->source().begin.line);
    }
    return source;
  }
};

namespace {

[[noreturn]] void type_error(const Section& s, std::string_view key, std::string_view expected,
                             const toml::node& node) {
  s.fail(key, "expected " + std::string(expected) + ", got " + type_name(node) + " " + show(node));
}

}  // namespace

// ---------------------------------------------------------------------------------------------------
// Section

bool Section::has(std::string_view key) const {
  return config_->lookup(name_, key) != nullptr;
}

std::vector<std::string> Section::keys() const {
  std::vector<std::string> out;
  if (const toml::table* t = config_->table(name_))
    for (const auto& [k, node] : *t) out.emplace_back(k.str());
  for (const auto& k : out) config_->known[name_].insert(k);
  return out;
}

std::string Section::where(std::string_view key) const {
  return config_->where(name_, key, config_->find(name_, key));
}

void Section::fail(std::string_view key, std::string_view message) const {
  const std::string label =
      name_.empty() ? std::string(key) : "[" + name_ + "] " + std::string(key);
  throw Error(label + ": " + std::string(message), where(key));
}

double Section::number(std::string_view key, double fallback, Range range) const {
  const toml::node* node = config_->lookup(name_, key);
  if (!node) return fallback;
  double v = 0;
  if (auto f = node->as_floating_point()) {
    v = f->get();
  } else if (auto i = node->as_integer()) {
    v = static_cast<double>(i->get());
  } else {
    type_error(*this, key, "a number", *node);
  }
  if (!std::isfinite(v)) fail(key, "must be finite, got " + show(*node));
  if (!range.contains(v)) fail(key, show(*node) + " is out of range: must be " + range.describe());
  return v;
}

std::int64_t Section::integer(std::string_view key, std::int64_t fallback, std::int64_t min,
                              std::int64_t max) const {
  const toml::node* node = config_->lookup(name_, key);
  if (!node) return fallback;
  std::int64_t v = 0;
  if (auto i = node->as_integer()) {
    v = i->get();
  } else if (auto f = node->as_floating_point(); f && std::isfinite(f->get()) &&
                                                 f->get() == std::floor(f->get()) &&
                                                 std::abs(f->get()) < 9.2e18) {
    v = static_cast<std::int64_t>(f->get());  // 1e6 is accepted for a count: it is an integer
  } else {
    type_error(*this, key, "an integer", *node);
  }
  if (v < min || v > max) {
    fail(key, show(*node) + " is out of range: must be in [" + std::to_string(min) + ", " +
                  std::to_string(max) + "]");
  }
  return v;
}

bool Section::boolean(std::string_view key, bool fallback) const {
  const toml::node* node = config_->lookup(name_, key);
  if (!node) return fallback;
  if (auto b = node->as_boolean()) return b->get();
  type_error(*this, key, "true or false", *node);
}

std::string Section::string(std::string_view key, std::string_view fallback) const {
  const toml::node* node = config_->lookup(name_, key);
  if (!node) return std::string(fallback);
  if (auto s = node->as_string()) return s->get();
  type_error(*this, key, "a string", *node);
}

// ---------------------------------------------------------------------------------------------------
// Config

Config::Config() : impl_(std::make_unique<ConfigImpl>()) {}
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;
Config::~Config() = default;

const std::string& Config::source() const {
  return impl_->source;
}
const std::filesystem::path& Config::base_directory() const {
  return impl_->base;
}
void Config::set_base_directory(std::filesystem::path base) {
  impl_->base = std::move(base);
}

Config Config::load(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot open the configuration file", file.string());
  std::ostringstream text;
  text << in.rdbuf();
  Config config = parse(text.str(), file.string());
  config.impl_->base = file.parent_path();
  return config;
}

Config Config::parse(std::string_view text, std::string source) {
  Config config;
  config.impl_->source = std::move(source);
  try {
    check_toml_text(text, config.impl_->source);
    config.impl_->root = toml::parse(text, config.impl_->source);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw Error(
        "invalid TOML: " + std::string(e.description()),
        config.impl_->source + ":" + std::to_string(at.line) + ":" + std::to_string(at.column));
  }
  return config;
}

void Config::set(std::string_view assignment, std::string origin) {
  if (origin.empty()) origin = "--set " + std::string(assignment);
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw Error("expected table.key=value, got '" + std::string(assignment) + "'", origin);
  }
  set_value(assignment.substr(0, eq), assignment.substr(eq + 1), std::move(origin));
}

void Config::set_value(std::string_view dotted_key, std::string_view value_text,
                       std::string origin) {
  // The value is parsed as TOML ("v = <text>"); anything that is not a TOML value (cpu, plummer) is
  // a bare string, so --set run.backend=cpu works without shell quoting.
  toml::table parsed;
  try {
    check_toml_text(value_text, origin.empty() ? std::string(dotted_key) : origin);
    parsed = toml::parse("v = " + std::string(value_text));
  } catch (const toml::parse_error&) {
    parsed.insert("v", std::string(value_text));
  }
  impl_->insert(dotted_key, std::move(*parsed.get("v")), std::move(origin));
}

void Config::set_string(std::string_view dotted_key, std::string value, std::string origin) {
  impl_->insert(dotted_key, toml::value<std::string>(std::move(value)), std::move(origin));
}

Section Config::section(std::string_view name) {
  impl_->known[std::string(name)];  // the table itself is known even if none of its keys is read
  return Section(*impl_, std::string(name));
}

void Config::check_unused() const {
  const ConfigImpl& c = *impl_;
  struct Unknown {
    std::uint32_t line;
    std::string message, where;
  };
  std::vector<Unknown> unknown;
  auto add = [&](std::string_view table, std::string_view key, const toml::node& node,
                 std::string message) {
    // Command-line overrides have no line in the file: they sort first.
    const std::uint32_t line = c.overridden(table, key) ? 0u : node.source().begin.line;
    unknown.push_back({line, std::move(message), c.where(table, key, &node)});
  };
  auto names = [](const std::set<std::string>& s) {
    return std::vector<std::string>(s.begin(), s.end());
  };
  std::vector<std::string> tables, top_keys;
  for (const auto& [name, keys] : c.known) {
    if (!name.empty()) tables.push_back(name);
  }
  if (auto it = c.known.find(""); it != c.known.end()) top_keys = names(it->second);

  for (const auto& [k, node] : c.root) {
    const std::string_view key = k.str();
    if (auto known = c.known.find(key); known != c.known.end() && node.is_table()) {
      const auto keys = names(known->second);
      for (const auto& [sub, subnode] : *node.as_table()) {
        if (known->second.count(std::string(sub.str()))) continue;
        add(key, sub.str(), subnode,
            "unknown key '" + std::string(sub.str()) + "' in [" + std::string(key) + "]" +
                suggestion_suffix(sub.str(), keys));
      }
    } else if (node.is_table()) {
      add("", key, node,
          "unknown table [" + std::string(key) + "]" + suggestion_suffix(key, tables, "["));
    } else if (!std::count(top_keys.begin(), top_keys.end(), key)) {
      // A top-level key may be a misspelt key or a table name written as a key.
      std::vector<std::string> all = top_keys;
      all.insert(all.end(), tables.begin(), tables.end());
      add("", key, node, "unknown key '" + std::string(key) + "'" + suggestion_suffix(key, all));
    }
  }
  if (unknown.empty()) return;
  const auto first = std::min_element(unknown.begin(), unknown.end(),
                                      [](const auto& a, const auto& b) { return a.line < b.line; });
  throw Error(first->message, first->where);
}

}  // namespace pairwise::config
