// The guard in front of toml++ 3.3.0 (core/toml_guard.hpp): non-ASCII characters are accepted in
// strings and comments, refused elsewhere with the line, before the parser can reach its
// undefined behaviour (found by the fuzz targets).
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/toml_guard.hpp"
#include "pairwise/error.hpp"

namespace pairwise {
namespace {

std::string message_of(std::string_view text) {
  try {
    check_toml_text(text, "f.toml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(TomlGuard, NonAsciiOnlyInStringsAndComments) {
  EXPECT_EQ(message_of("# Hénon units, 1.53 Å\nname = \"Å é\"\nlit = 'τ'\n"
                       "m = \"\"\"\nσ \"\" \"\"\"\nl = '''ε'''\n"),
            "");
  EXPECT_EQ(message_of("a = 1\nb = [1 Å]\n"),
            "non-ASCII character outside a string or comment (TOML allows them only inside "
            "strings and comments), f.toml:2");
  EXPECT_NE(message_of("dt = 0.005τ\n").find("f.toml:1"), std::string::npos);
  EXPECT_NE(message_of("s = \"ok\" é\n").find("outside a string"), std::string::npos);
  EXPECT_NE(message_of("m = \"\"\"a \\\n   é\"\"\"\n").find("after a line-ending backslash"),
            std::string::npos);
  EXPECT_EQ(message_of("m = \"\"\"a \\\n   x é\"\"\"\n"), "");
  EXPECT_NE(message_of("m = \"\"\"a \\ \xef\xbb\xaf\"\"\"\n").find("after a backslash"),
            std::string::npos);
  // A quote inside a bare token opens no string (found by fuzz_config_fredholm).
  EXPECT_NE(message_of("b = 21lp'''\xcf\x80'''\n").find("outside a string"), std::string::npos);
  // Through Config::parse, as every workload reads its file.
  EXPECT_THROW(config::Config::parse("[run]\nt_end = 1 ü\n", "x.toml"), Error);
  EXPECT_NO_THROW(config::Config::parse("# ü\n[run]\nt_end = 1\n", "x.toml"));
}

}  // namespace
}  // namespace pairwise
