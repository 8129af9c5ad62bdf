// The TOML config layer: typed getters, ranges, overrides, and unknown keys with a did-you-mean.
#include <gtest/gtest.h>

#include <string>

#include "core/config.hpp"
#include "error_message.hpp"
#include "pairwise/error.hpp"

namespace pairwise::config {
namespace {

using pairwise::test::error_of;

TEST(DidYouMean, FindsCloseNamesOnly) {
  const std::string keys[] = {"integrator", "dt", "eta", "dt_max"};
  EXPECT_EQ(did_you_mean("integrater", keys), "integrator");
  EXPECT_EQ(did_you_mean("itnegrator", keys), "integrator");  // transposition
  EXPECT_EQ(did_you_mean("dt_mx", keys), "dt_max");
  EXPECT_EQ(did_you_mean("ETA", keys), "eta");
  EXPECT_FALSE(did_you_mean("temperature", keys).has_value());
  EXPECT_EQ(suggestion_suffix("eat", keys), ", did you mean 'eta'?");
  EXPECT_EQ(suggestion_suffix("zzzzzz", keys), "");
}

TEST(Config, UnknownKeySuggestsTheClosestKnownKeyWithFileAndLine) {
  auto c = Config::parse("[integrator]\neta = 0.01\n\nintegrater = \"hermite\"\n", "plummer.toml");
  const auto s = c.section("integrator");
  EXPECT_DOUBLE_EQ(s.number("eta", 1.0), 0.01);
  EXPECT_EQ(s.string("integrator", "leapfrog"), "leapfrog");
  EXPECT_EQ(error_of([&] { c.check_unused(); }),
            "unknown key 'integrater' in [integrator], did you mean 'integrator'?, plummer.toml:4");
}

TEST(Config, UnknownTableAndTopLevelKey) {
  auto c = Config::parse("workload = \"nbody\"\n[intgrator]\neta = 1\n", "a.toml");
  c.root().string("workload", "");
  c.section("integrator");
  EXPECT_EQ(error_of([&] { c.check_unused(); }),
            "unknown table [intgrator], did you mean [integrator]?, a.toml:2");

  auto d = Config::parse("wrkload = \"nbody\"\n", "b.toml");
  d.root().string("workload", "");
  EXPECT_EQ(error_of([&] { d.check_unused(); }),
            "unknown key 'wrkload', did you mean 'workload'?, b.toml:1");
}

TEST(Config, TypeErrorsNameTheKeyTheTypeAndTheLine) {
  auto c = Config::parse("[system]\nseed = 3\nn = \"many\"\neps = true\n", "s.toml");
  const auto s = c.section("system");
  EXPECT_EQ(error_of([&] { s.integer("n", 1, 1, 100); }),
            "[system] n: expected an integer, got string 'many', s.toml:3");
  EXPECT_EQ(error_of([&] { s.number("eps", 0.0); }),
            "[system] eps: expected a number, got boolean true, s.toml:4");
  EXPECT_EQ(error_of([&] { s.string("seed", ""); }),
            "[system] seed: expected a string, got integer 3, s.toml:2");
}

TEST(Config, RangesAndIntegralFloats) {
  auto c = Config::parse("[s]\na = -1\nb = 1e6\nc = 1.5\nd = 0\n", "r.toml");
  const auto s = c.section("s");
  EXPECT_EQ(error_of([&] { s.number("a", 1, Range::positive()); }),
            "[s] a: -1 is out of range: must be > 0, r.toml:2");
  EXPECT_EQ(s.integer("b", 0, 0, 10'000'000), 1'000'000);  // 1e6 is a count
  EXPECT_NE(error_of([&] { s.integer("c", 0, 0, 10); }).find("expected an integer"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { s.integer("d", 5, 1, 10); }),
            "[s] d: 0 is out of range: must be in [1, 10], r.toml:5");
  EXPECT_DOUBLE_EQ(s.number("missing", 2.5), 2.5);  // defaults
}

TEST(Config, SyntaxErrorsGiveFileLineAndColumn) {
  const std::string msg = error_of([] { Config::parse("[run]\nt_end = = 1\n", "bad.toml"); });
  EXPECT_NE(msg.find("invalid TOML"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad.toml:2:"), std::string::npos) << msg;
}

TEST(Config, OverridesReplaceValuesAndAreNamedInErrors) {
  auto c = Config::parse("[integrator]\neta = 0.01\n", "o.toml");
  c.set("integrator.eta=0.02");
  c.set("run.backend=cpu");  // a bare word is a string
  c.set_value("run.t_end", "abc", "--t-end abc");
  c.set("output.csv=\"a b.csv\"");
  EXPECT_DOUBLE_EQ(c.section("integrator").number("eta", 0), 0.02);
  EXPECT_EQ(c.section("run").string("backend", ""), "cpu");
  EXPECT_EQ(c.section("output").string("csv", ""), "a b.csv");
  EXPECT_EQ(error_of([&] { c.section("run").number("t_end", 1); }),
            "[run] t_end: expected a number, got string 'abc', --t-end abc");

  c.set("integrator.etaa=1");
  EXPECT_EQ(error_of([&] { c.check_unused(); }),
            "unknown key 'etaa' in [integrator], did you mean 'eta'?, --set integrator.etaa=1");
  EXPECT_NE(error_of([&] { c.set("no_equals_sign"); }).find("expected table.key=value"),
            std::string::npos);
  EXPECT_NE(error_of([&] { c.set("integrator.eta.x=1"); }).find("is a value, not a table"),
            std::string::npos);
}

TEST(Config, ChoiceRethrowsParserErrorsWithTheLocation) {
  auto c = Config::parse("[run]\nbackend = \"gpu\"\n", "c.toml");
  auto parse = [](std::string_view t) -> int {
    if (t == "cpu") return 1;
    throw Error("unknown backend '" + std::string(t) + "'");
  };
  EXPECT_EQ(error_of([&] { c.section("run").choice("backend", "cpu", parse); }),
            "[run] backend: unknown backend 'gpu', c.toml:2");
}

TEST(Config, LoadReportsAMissingFile) {
  EXPECT_NE(error_of([] { Config::load("/nonexistent/x.toml"); }).find("/nonexistent/x.toml"),
            std::string::npos);
}

}  // namespace
}  // namespace pairwise::config
