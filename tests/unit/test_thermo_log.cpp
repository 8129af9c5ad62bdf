// The thermo log: fixed-width table on the stream, CSV renamed into place only by finish().
#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/thermo_log.hpp"

namespace pairwise {
namespace {

TEST(ThermoLog, TableOnTheStreamAndCsvOnlyAfterFinish) {
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
    EXPECT_FALSE(std::filesystem::exists(dir / "a.csv"));  // still under its temporary name
    log.finish();
  }
  EXPECT_EQ(out.str(), "     t  steps      dE/E0\n 0.125     42   1.50e-07\n");
  std::ifstream in(dir / "a.csv");
  std::stringstream csv;
  csv << in.rdbuf();
  EXPECT_EQ(csv.str(), "t,steps,dE/E0\n0.125,42,1.4999999999999999e-07\n");

  {  // an aborted run (no finish) leaves no CSV and no temporary file
    ThermoLog log(columns, out, dir / "b.csv", false);
    log.row(std::vector<double>{1, 2, 3});
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "b.csv"));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pairwise
