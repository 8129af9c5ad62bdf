// Fast number parsing for the text readers (std::from_chars: no locale, no allocation, no
// stream state), shared by the trajectory readers, the PQR reader and the OpenDX reader.
#pragma once

#include <string_view>

namespace pairwise::io {

// Skips blanks (space, tab, '\r') from `p`; returns the first other character or `end`.
inline const char* skip_blanks(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  return p;
}

// The next whitespace-separated word of [p, end), advancing p past it; empty at the end.
inline std::string_view next_word(const char*& p, const char* end) {
  p = skip_blanks(p, end);
  const char* b = p;
  while (p < end && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') ++p;
  return {b, std::size_t(p - b)};
}

// Parses the whole of `text` as a double, NaN and infinity included (a leading '+' accepted).
bool parse_double_any(std::string_view text, double& value);
// Parses the whole of `text` as a finite double (a leading '+' is accepted, as strtod does);
// false for anything else (empty, trailing characters, out of range, NaN, infinity).
bool parse_double(std::string_view text, double& value);
// Parses the whole of `text` as a decimal integer (a leading '+' accepted).
bool parse_long(std::string_view text, long& value);

// As parse_double / parse_long, but throws pairwise::Error("bad <field> '<text>' (expected a
// number)", where) on failure.
double field_double(std::string_view text, const char* field, const std::string& where);
long field_long(std::string_view text, const char* field, const std::string& where);

}  // namespace pairwise::io
