#include "core/io/text_numbers.hpp"

#include <charconv>
#include <cmath>
#include <string>

#include "pairwise/error.hpp"

namespace pairwise::io {

bool parse_double_any(std::string_view text, double& value) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (b < e && *b == '+') ++b;
  if (b == e) return false;
  const auto r = std::from_chars(b, e, value);
  return r.ec == std::errc() && r.ptr == e;
}

bool parse_double(std::string_view text, double& value) {
  return parse_double_any(text, value) && std::isfinite(value);
}

bool parse_long(std::string_view text, long& value) {
  const char* b = text.data();
  const char* e = b + text.size();
  if (b < e && *b == '+') ++b;
  if (b == e) return false;
  const auto r = std::from_chars(b, e, value);
  return r.ec == std::errc() && r.ptr == e;
}

double field_double(std::string_view text, const char* field, const std::string& where) {
  double v = 0;
  if (!parse_double(text, v)) {
    throw Error(std::string("bad ") + field + " '" + std::string(text) + "' (expected a number)",
                where);
  }
  return v;
}

long field_long(std::string_view text, const char* field, const std::string& where) {
  long v = 0;
  if (!parse_long(text, v)) {
    throw Error(std::string("bad ") + field + " '" + std::string(text) + "' (expected an integer)",
                where);
  }
  return v;
}

}  // namespace pairwise::io
