// A small layer over toml++ for run configurations (DESIGN.md, Inputs): typed getters with defaults
// and range checks, command-line overrides (`--set table.key=value`), and strictness: once a
// workload has read its keys, every key it did not ask for is an error with a did-you-mean
// suggestion, e.g.
//   error: unknown key 'integrater' in [integrator], did you mean 'integrator'?, plummer.toml:7
// Every error is a pairwise::Error whose `where` is "file:line" (or "file:line:column" for syntax
// errors) or the command-line option that set the value.
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "pairwise/error.hpp"

namespace pairwise::config {

// The candidate closest to `word` by edit distance (optimal string alignment: insertions,
// deletions, substitutions and adjacent transpositions cost 1), if it is close enough to be a
// plausible typo: distance <= max(1, |word| / 3) + 1 for words of 3 or more characters, else
// distance 1.
std::optional<std::string> did_you_mean(std::string_view word,
                                        std::span<const std::string> candidates);

// ", did you mean 'x'?" or "" (for appending to an error message).
std::string suggestion_suffix(std::string_view word, std::span<const std::string> candidates,
                              std::string_view quote = "'");

// Allowed interval of a number; the defaults allow every finite value.
struct Range {
  double min = -std::numeric_limits<double>::max();
  double max = std::numeric_limits<double>::max();
  bool min_exclusive = false;

  static Range positive() { return {0.0, std::numeric_limits<double>::max(), true}; }
  static Range non_negative() { return {0.0}; }
  static Range between(double lo, double hi) { return {lo, hi}; }
  bool contains(double v) const { return (min_exclusive ? v > min : v >= min) && v <= max; }
  std::string describe() const;  // "> 0", ">= 0", "in [0, 1]"
};

struct ConfigImpl;  // the toml++ document and bookkeeping, kept out of this header

// One table of a configuration ("" is the top level). Every getter records the key as known, so
// that Config::check_unused can tell typos from keys this workload reads. Valid while its Config
// lives.
class Section {
 public:
  Section(ConfigImpl& config, std::string name) : config_(&config), name_(std::move(name)) {}

  bool has(std::string_view key) const;  // present in the file or set on the command line
  // Every key of this table (marked known: the caller checks them itself). A Section may name a
  // nested table with a dotted name ("force_field.pair_1_1").
  std::vector<std::string> keys() const;
  double number(std::string_view key, double fallback, Range range = {}) const;
  std::int64_t integer(std::string_view key, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::string string(std::string_view key, std::string_view fallback) const;

  // A string converted by `parse` (e.g. parse_backend); an exception from the parser is rethrown as
  // a pairwise::Error with this key's location.
  template <class Parse>
  auto choice(std::string_view key, std::string_view fallback, Parse&& parse) const
      -> decltype(parse(fallback)) {
    const std::string text = string(key, fallback);
    try {
      return parse(text);
    } catch (const Error& e) {
      fail(key, e.message());
    } catch (const std::exception& e) {
      fail(key, e.what());
    }
  }

  // "file:line" of the key's value, "--set table.key=value" for overrides, or the file name.
  std::string where(std::string_view key) const;
  // Throws pairwise::Error("[table] key: message", where(key)).
  [[noreturn]] void fail(std::string_view key, std::string_view message) const;
  const std::string& name() const { return name_; }

 private:
  ConfigImpl* config_;
  std::string name_;
};

class Config {
 public:
  // Parses a TOML file. Syntax errors become pairwise::Error with "file:line:column".
  static Config load(const std::filesystem::path& file);
  // Parses TOML text; `source` names it in messages (a file name).
  static Config parse(std::string_view text, std::string source);

  Config(Config&&) noexcept;
  Config& operator=(Config&&) noexcept;
  ~Config();

  // Applies "table.key=value" (a dotted key; the value is TOML: 0.02, true, "text", or a bare word
  // taken as a string). `origin` names the option in messages (default: "--set <assignment>").
  void set(std::string_view assignment, std::string origin = {});
  // Same with the key and the value text apart, e.g. set_value("run.t_end", "2", "--t-end 2").
  void set_value(std::string_view dotted_key, std::string_view value_text, std::string origin);
  // Sets a string value verbatim (no TOML parsing), e.g. a path from --output.
  void set_string(std::string_view dotted_key, std::string value, std::string origin);

  Section section(std::string_view name);  // marks the table known
  Section root() { return section(""); }

  // Throws for the first key (by line; command-line overrides first) that no Section getter asked
  // for, and for unknown tables, suggesting the closest known name.
  void check_unused() const;

  const std::string& source() const;
  // The directory that relative paths in the file are resolved against (the file's directory).
  const std::filesystem::path& base_directory() const;
  void set_base_directory(std::filesystem::path base);

 private:
  Config();
  std::unique_ptr<ConfigImpl> impl_;
};

}  // namespace pairwise::config
