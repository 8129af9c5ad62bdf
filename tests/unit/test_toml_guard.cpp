// The guard in front of toml++ 3.3.0 (core/toml_guard.hpp): the code points its whitespace test
// cannot classify are accepted in comments only, refused elsewhere with the line, before the parser
// can reach its undefined behaviour (found by the fuzz targets).
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/toml_guard.hpp"
#include "pairwise/error.hpp"

namespace pairwise {
namespace {
using namespace std::string_view_literals;

std::string message_of(std::string_view text) {
  try {
    check_toml_text(text, "f.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TomlGuard, UnsupportedCharactersOnlyInComments) {
  // Comments (also after a value) and characters toml++ handles (∑ U+2211, ✓ U+2713) anywhere.
  EXPECT_EQ(message_of("# Hénon units, 1.53 Å, σ, τ\nname = \"∑ ✓\" # é\nlit = '✓'\n"), "");
  EXPECT_EQ(message_of("a = 1\nb = [1 Å]\n"),
            "unsupported character U+00C5 outside a comment (the TOML parser, toml++ 3.3, "
            "mishandles U+00A1..U+0499, U+2C5E..U+3057 and U+FB26..U+FEFE; use ASCII or a \\u "
            "escape), f.toml:2");
  EXPECT_NE(message_of("dt = 0.005\xcf\x84\n").find("U+03C4"), std::string::npos);
  EXPECT_NE(message_of("s = \"\xc3\xa9\"\n").find("U+00E9"), std::string::npos);  // in a string
  EXPECT_NE(message_of("s = \"a\\\xef\xbb\xaf\"\n").find("U+FEEF"), std::string::npos);
  // Found by the fuzz targets: inside a bare token, after a NUL, after backslashes.
  EXPECT_NE(message_of("w = 4400\0.'\xef\xbb\xb7p"sv).find("U+FEF7"), std::string::npos);
  EXPECT_NE(message_of("\"\"\"-uc5\\\\\\\\\\\xef\xbb\x9f").find("U+FEDF"), std::string::npos);
  // Through Config::parse, as every workload reads its file.
  EXPECT_THROW(config::Config::parse("[run]\nt_end = 1 \xc3\xbc\n", "x.toml"), Error);
  EXPECT_NO_THROW(config::Config::parse("# \xc3\xbc\n[run]\nt_end = 1\n", "x.toml"));
}

}  // namespace
}  // namespace pairwise
