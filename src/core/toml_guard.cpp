#include "core/toml_guard.hpp"

#include <cstdio>

#include "pairwise/error.hpp"

namespace pairwise {

namespace {

// The code points toml++ 3.3.0's is_non_ascii_horizontal_whitespace() cannot classify (its
// TOML_UNREACHABLE branches): U+00A1..U+0499, U+2C5E..U+3057 but U+3000, U+FB26..U+FEFE.
bool unsupported(unsigned cp) {
  return (cp >= 0xA1 && cp <= 0x499) || (cp >= 0x2C5E && cp <= 0x3057 && cp != 0x3000) ||
         (cp >= 0xFB26 && cp <= 0xFEFE);
}

// The code point of the UTF-8 sequence at text[i] (0 for a malformed one, which toml++ reports).
unsigned code_point(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) {
    return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u;
  };
  const unsigned b0 = b(i);
  if (b0 >= 0xC0 && b0 < 0xE0 && (b(i + 1) & 0xC0) == 0x80)
    return ((b0 & 0x1Fu) << 6) | (b(i + 1) & 0x3Fu);
  if (b0 >= 0xE0 && b0 < 0xF0 && (b(i + 1) & 0xC0) == 0x80 && (b(i + 2) & 0xC0) == 0x80)
    return ((b0 & 0x0Fu) << 12) | ((b(i + 1) & 0x3Fu) << 6) | (b(i + 2) & 0x3Fu);
  return 0;
}

bool bare_key_character(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// "'$'", or "byte 0x0A" for a control or non-ASCII byte.
std::string shown(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u > 0x20 && u < 0x7F) return std::string("'") + c + "'";
  char name[16];
  std::snprintf(name, sizeof name, "byte 0x%02X", u);
  return name;
}

// A table header's key: toml++ 3.3.0's parse_key() asserts (debug builds; an assumption, that is
// undefined behaviour, in release builds) that it starts with a bare-key character or a quote, but
// parse_table_header() calls it after '[' or '[[' and blanks without checking. `i` is the '['.
void check_table_header(std::string_view text, std::size_t i, const std::string& where) {
  auto skip_blanks = [&](std::size_t k) {
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
    return k;
  };
  std::size_t k = skip_blanks(i + 1);
  if (k < text.size() && text[k] == '[') k = skip_blanks(k + 1);
  if (k >= text.size()) return;  // toml++ reports the end of the file
  const char c = text[k];
  if (bare_key_character(c) || c == '"' || c == '\'' || c == ']') return;
  throw Error(
      "a table header must start with a key (letters, digits, _ and -, or a quoted key), "
      "saw " +
          shown(c),
      where);
}

}  // namespace

void check_toml_text(std::string_view text, const std::string& source) {
  // Comments are found by a small lexer (a '#' outside strings); everywhere else an unsupported
  // code point is refused. Where the lexer and toml++ disagree about a string (malformed input),
  // the character is still refused, so toml++ never meets one outside a comment.
  //
  // Table headers are checked too (check_table_header): a '[' first on its line, outside any value.
  // Values are followed from their '=' to the end of the line, or further while their brackets
  // ('[' of arrays, '{' of inline tables) are open: a line of a multi-line array starting with '['
  // is not a header.
  enum class State { normal, comment, basic, literal, multi_basic, multi_literal };
  State state = State::normal;
  std::size_t line = 1;
  bool line_start = true;  // only blanks since the last line break (outside strings)
  bool in_value = false;   // after a key's '=' (at the top level)
  int open_brackets = 0;   // the '[' and '{' of the value open now
  auto starts = [&](std::size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (state != State::comment && static_cast<unsigned char>(c) >= 0xC0) {
      if (const unsigned cp = code_point(text, i); unsupported(cp)) {
        char name[16];
        std::snprintf(name, sizeof name, "U+%04X", cp);
        throw Error(
            std::string("unsupported character ") + name +
                " outside a comment (the TOML parser, toml++ 3.3, mishandles U+00A1..U+0499, "
                "U+2C5E..U+3057 and U+FB26..U+FEFE; use ASCII or a \\u escape)",
            source + ":" + std::to_string(line));
      }
    }
    switch (state) {
      case State::normal:
        if (c == '\n') {
          line_start = true;
          if (open_brackets == 0) in_value = false;
          break;
        }
        if (c == ' ' || c == '\t' || c == '\r') break;
        if (c == '[' && line_start && !in_value && open_brackets == 0) {
          check_table_header(text, i, source + ":" + std::to_string(line));
          line_start = false;
          break;
        }
        line_start = false;
        if (c == '=' && open_brackets == 0) {
          in_value = true;
        } else if (in_value && (c == '[' || c == '{')) {
          ++open_brackets;
        } else if (in_value && (c == ']' || c == '}') && open_brackets > 0) {
          --open_brackets;
        }
        if (c == '#') {
          state = State::comment;
        } else if (starts(i, "\"\"\"")) {
          state = State::multi_basic, i += 2;
        } else if (starts(i, "'''")) {
          state = State::multi_literal, i += 2;
        } else if (c == '"') {
          state = State::basic;
        } else if (c == '\'') {
          state = State::literal;
        }
        break;
      case State::comment:
        if (c == '\n') {
          state = State::normal, line_start = true;
          if (open_brackets == 0) in_value = false;
        }
        break;
      case State::basic:
      case State::multi_basic:
        if (c == '\\') {
          // An escape takes the next character as it is (\\, \" and the others), so an escaped
          // quote does not end the string (toml++ reads on: a '#' after it is no comment). A line
          // break or a non-ASCII byte after it is left to the next trip (the line count, the
          // code-point check above).
          if (i + 1 < text.size() && text[i + 1] != '\n' &&
              static_cast<unsigned char>(text[i + 1]) < 0x80)
            ++i;
        } else if (state == State::basic && (c == '"' || c == '\n')) {
          state = State::normal;
        } else if (state == State::multi_basic && starts(i, "\"\"\"")) {
          state = State::normal, i += 2;
          while (i + 1 < text.size() && text[i + 1] == '"') ++i;  // up to two quotes in content
        }
        break;
      case State::literal:
        if (c == '\'' || c == '\n') state = State::normal;
        break;
      case State::multi_literal:
        if (starts(i, "'''")) {
          state = State::normal, i += 2;
          while (i + 1 < text.size() && text[i + 1] == '\'') ++i;
        }
        break;
    }
  }
}

}  // namespace pairwise
