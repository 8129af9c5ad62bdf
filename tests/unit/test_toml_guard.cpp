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
  // An escaped quote does not end a string, so what follows it is no comment (found by the
  // config_nbody fuzz target, session 23: toml++ read on and met the é).
  EXPECT_NE(message_of("s = \"a\\\" # \xc3\xa9\"\n").find("U+00E9"), std::string::npos);
  EXPECT_NE(message_of("\"\"\"e\\\\\\\"\"\"\\\\#\\\xc3\xa9\"\"\"\n").find("U+00E9"),
            std::string::npos);
  EXPECT_EQ(message_of("s = \"a\\\"\" # \xc3\xa9\nt = \"\"\"x\\\"\"\"\" # \xc3\xa9\n"), "");
  // Through Config::parse, as every workload reads its file.
  EXPECT_THROW(config::Config::parse("[run]\nt_end = 1 \xc3\xbc\n", "x.toml"), Error);
  EXPECT_NO_THROW(config::Config::parse("# \xc3\xbc\n[run]\nt_end = 1\n", "x.toml"));
}

// toml++ 3.3.0's parse_table_header() calls parse_key() on whatever follows '[' or '[[' and blanks;
// parse_key() asserts (debug) or assumes (release: undefined behaviour) a bare-key character or a
// quote there. Found replaying the fuzz corpora under the debug preset.
TEST(TomlGuard, TableHeadersMustStartWithAKey) {
  EXPECT_EQ(message_of("a = 1\n[ =x]\n"),
            "a table header must start with a key (letters, digits, _ and -, or a quoted key), "
            "saw '=', f.toml:2");
  EXPECT_NE(message_of("[}").find("saw '}', f.toml:1"), std::string::npos);
  EXPECT_NE(message_of("[[ #x\n").find("saw '#'"), std::string::npos);
  EXPECT_NE(message_of("  [\t.a]").find("saw '.'"), std::string::npos);
  EXPECT_NE(message_of("[\n").find("saw byte 0x0A"), std::string::npos);
  EXPECT_NE(message_of("# c\n[+]\n").find("f.toml:2"), std::string::npos);
  EXPECT_THROW(config::Config::parse("[ $run]\nt_end = 1\n", "x.toml"), Error);
}

TEST(TomlGuard, ValidTablesAndArraysThatLookLikeHeadersPass) {
  // Headers with blanks, quoted and dotted keys, arrays of tables, an empty header (toml++'s
  // own error), and multi-line arrays whose lines start with '[' followed by anything a value may
  // start with: not headers.
  const std::string valid =
      "[ run ]\nt_end = 1\n[\"a b\".c]\nx = 1\n[[ 'atoms' ]]\nq = -1\n[[t]]\n"
      "m = [\n  [ +1.5, -2 ],\n  [ { x = 1 }, { y = 2 } ],\n  [ \"s\" ], [ 5 ],\n]\n"
      "n = [ # comment [$\n[ +inf ]]\ns = \"\"\"\n[ = not a header\n\"\"\"\n";
  EXPECT_EQ(message_of(valid), "");
  EXPECT_EQ(message_of("[]\n"), "");  // toml++ reports it (blank key), without the assertion
  EXPECT_NO_THROW(config::Config::parse(
      "[run]\nt_end = 1\nlist = [\n  [ +1, 2 ],\n  [ {a = 1} ],\n]\n[output]\ninterval = 2\n",
      "x.toml"));
}

}  // namespace
}  // namespace pairwise
