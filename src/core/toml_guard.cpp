#include "core/toml_guard.hpp"

#include "pairwise/error.hpp"

namespace pairwise {

void check_toml_text(std::string_view text, const std::string& source) {
  enum class State { normal, comment, basic, literal, multi_basic, multi_literal };
  State state = State::normal;
  std::size_t line = 1;
  bool trimming = false;  // after a line-ending backslash in a multi-line basic string
  auto starts = [&](std::size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  auto fail = [&](const char* where) {
    throw Error(std::string("non-ASCII character ") + where +
                    " (TOML allows them only inside strings and comments)",
                source + ":" + std::to_string(line));
  };
  // A quote opens a string only where a key or value may start (toml++ reads a quote in the middle
  // of a bare token as part of that token, and scans on).
  auto may_open = [&](std::size_t i) {
    if (i == 0) return true;
    const char p = text[i - 1];
    return p == '\n' || p == ' ' || p == '\t' || p == '=' || p == '[' || p == ',' || p == '{' ||
           p == '.';
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool ascii = static_cast<unsigned char>(c) < 0x80;
    if (c == '\n') ++line;
    switch (state) {
      case State::normal:
        if (!ascii) fail("outside a string or comment");
        if (c == '#') {
          state = State::comment;
        } else if (!may_open(i)) {
          // a quote inside a bare token: not a string
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
        if (c == '\\') {
          std::size_t j = i + 1;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
          if (j > i + 1 && j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80)
            fail("after a backslash and whitespace");
          ++i;  // the escaped character (an escaped newline is an error toml++ reports)
          if (i < text.size() && text[i] == '\n') ++line;
        } else if (c == '"' || c == '\n') {
          state = State::normal;
        }
        break;
      case State::literal:
        if (c == '\'' || c == '\n') state = State::normal;
        break;
      case State::multi_basic:
        if (trimming) {
          if (c == ' ' || c == '\t' || c == '\r' || c == '\n') break;
          if (!ascii) fail("after a line-ending backslash");
          trimming = false;
        }
        if (c == '\\') {
          std::size_t j = i + 1;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t' || text[j] == '\r')) ++j;
          if (j < text.size() && text[j] == '\n') {
            trimming = true;
          } else if (j > i + 1 && j < text.size() && static_cast<unsigned char>(text[j]) >= 0x80) {
            fail("after a backslash and whitespace");  // toml++ scans the whitespace run on
          } else {
            ++i;  // an escape sequence
            if (i < text.size() && text[i] == '\n') ++line;
          }
        } else if (starts(i, "\"\"\"")) {
          state = State::normal, i += 2;
          while (i + 1 < text.size() && text[i + 1] == '"') ++i;  // up to two quotes in content
        }
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
