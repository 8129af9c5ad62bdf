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

}  // namespace

void check_toml_text(std::string_view text, const std::string& source) {
  // Comments are found by a small lexer (a '#' outside strings); everywhere else an unsupported
  // code point is refused. Where the lexer and toml++ disagree about a string (malformed input),
  // the character is still refused, so toml++ never meets one outside a comment.
  enum class State { normal, comment, basic, literal, multi_basic, multi_literal };
  State state = State::normal;
  std::size_t line = 1;
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
        if (c == '\n') state = State::normal;
        break;
      case State::basic:
      case State::multi_basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\\') {
          ++i;  // an escaped backslash
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
