// The thermo log: fixed-width table on the stream, CSV growing in place (flushed, resumable).
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/thermo_log.hpp"

namespace pairwise {
namespace {

TEST(ThermoLog, TableOnTheStreamAndCsvInPlace) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("pw_thermo_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::vector<ThermoColumn> columns = {
      {"t", 6, 3, 'f'}, {"steps", 6, 0, 'd'}, {"dE/E0", 10, 2, 'e'}};
  std::ostringstream out;
  {
    ThermoLog log(columns, out, dir / "a.csv", false);
    log.header();
    log.row(std::vector<double>{0.125, 42, 1.5e-7});
    EXPECT_TRUE(std::filesystem::exists(dir / "a.csv"));  // a growing output: under its name
    log.finish();
  }
  EXPECT_EQ(out.str(), "     t  steps      dE/E0\n 0.125     42   1.50e-07\n");
  std::ifstream in(dir / "a.csv");
  std::stringstream csv;
  csv << in.rdbuf();
  EXPECT_EQ(csv.str(), "t,steps,dE/E0\n0.125,42,1.4999999999999999e-07\n");

  std::uint64_t at_checkpoint = 0;
  {  // an aborted run (no finish) keeps its rows; flush() gives the size a checkpoint records
    ThermoLog log(columns, out, dir / "b.csv", false);
    log.row(std::vector<double>{1, 2, 3});
    at_checkpoint = log.flush();
    log.row(std::vector<double>{4, 5, 6});
  }
  EXPECT_EQ(at_checkpoint, std::string("t,steps,dE/E0\n1,2,3\n").size());
  {  // a restart cuts the rows after the checkpoint and appends, without a second header
    ThermoLog log(columns, out, dir / "b.csv", false, at_checkpoint);
    log.row(std::vector<double>{7, 8, 9});
    log.finish();
  }
  std::ifstream b(dir / "b.csv");
  std::stringstream text;
  text << b.rdbuf();
  EXPECT_EQ(text.str(), "t,steps,dE/E0\n1,2,3\n7,8,9\n");
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 2u);  // no temporary file
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pairwise
