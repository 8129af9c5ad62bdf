// Bad input of the md workload: a box shorter than 2 (rc + skin), overlapping atoms (unless
// allowed), unknown atom types, a blow-up detected within one thermo interval with the step and
// atom id, and no half-written output files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/config.hpp"
#include "error_message.hpp"
#include "md/run.hpp"
#include "md/system.hpp"
#include "pairwise/error.hpp"

namespace {

using pairwise::test::error_of;

using namespace pairwise;

TEST(MdErrors, BoxShorterThanTwiceCutoffPlusSkin) {
  md::System s = md::make_lattice("fcc", 0.8442, {3, 3, 3});  // L = 5.04 < 5.6
  const std::string m = error_of([&] { md::validate(s, 0.3, false); });
  EXPECT_NE(m.find("shorter than 2 (cutoff + skin) = 5.6"), std::string::npos) << m;
  md::validate(s, 0.0, false);  // 5.04 >= 5.0 with no skin
}

TEST(MdErrors, OverlappingAtomsUnlessAllowed) {
  md::System s = md::make_lattice("fcc", 0.8442, {4, 4, 4});
  s.atoms.x[5] = s.atoms.x[9] + 0.3, s.atoms.y[5] = s.atoms.y[9], s.atoms.z[5] = s.atoms.z[9];
  const std::string m = error_of([&] { md::validate(s, 0.3, false); });
  EXPECT_NE(m.find("atoms overlap"), std::string::npos) << m;
  EXPECT_NE(m.find("atom ids 6 and 10"), std::string::npos) << m;
  md::validate(s, 0.3, true);
}

TEST(MdErrors, UnknownAtomTypeAndNonFinite) {
  md::System s = md::make_lattice("sc", 0.5, {5, 5, 5});
  s.atoms.type[7] = 2;
  std::string m = error_of([&] { md::validate(s, 0.3, false); });
  EXPECT_NE(m.find("unknown atom type 2"), std::string::npos) << m;
  EXPECT_TRUE(m.ends_with(", atom id 8")) << m;  // the place ends the message: not 80-89
  s.atoms.type[7] = 1;
  s.atoms.vx[3] = std::nan("");
  m = error_of([&] { md::validate(s, 0.3, false); });
  EXPECT_NE(m.find("non-finite"), std::string::npos) << m;
}

std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("pairwise_md_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(MdErrors, BlowUpIsReportedWithStepAndAtomAndLeavesNoFiles) {
  const auto dir = scratch("blowup");
  // Two atoms 0.3 σ apart (allowed at start): the repulsion launches them out of the box.
  // The run's settings after each [system]'s own lines.
  const std::string rest = R"(
allow_overlap = true
[integrator]
dt = 0.005
steps = 50
[run]
backend = "cpu"
[output]
thermo_every = 10
dump_every = 10
final_data = "final.data"
progress = false
)";
  const std::string toml = R"(workload = "md"
[system]
lattice = "sc"
density = 0.3
cells = "8 8 8"
temperature = 0.5)" + rest;
  auto config = config::Config::parse(toml, (dir / "blow.toml").string());
  config.set_base_directory(dir);
  md::MdRunConfig rc = md::read_md_config(config);
  // Move atom 2 onto atom 1.
  md::System s = md::build_system(rc);
  const std::string data = (dir / "start.data").string();
  s.atoms.x[1] = s.atoms.x[0] + 0.3, s.atoms.y[1] = s.atoms.y[0], s.atoms.z[1] = s.atoms.z[0];
  io::write_lammps_data(data, md::data_from_system(s));
  auto config2 = config::Config::parse(R"(workload = "md"
[system]
data_file = "start.data")" + rest,
                                       (dir / "blow.toml").string());
  config2.set_base_directory(dir);
  rc = md::read_md_config(config2);
  std::ostringstream out;
  const std::string m = error_of([&] { md::run_md(rc, out); });
  EXPECT_NE(m.find("blew up"), std::string::npos) << m;
  EXPECT_NE(m.find("by step 10"), std::string::npos) << m;
  EXPECT_TRUE(m.find("atom id 1") != std::string::npos || m.find("atom id 2") != std::string::npos)
      << m;
  // No final data and no temporaries; the growing outputs (CSV, trajectory) keep the rows and
  // frames written before the blow-up (step 0), valid up to there.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "start.data" || name == "blow.csv" || name == "blow.lammpstrj")
        << "left behind: " << name;
  }
  std::ifstream csv(dir / "blow.csv");
  std::string header, row0, extra;
  std::getline(csv, header), std::getline(csv, row0);
  EXPECT_EQ(header.rfind("Step,Temp,", 0), 0u) << header;
  EXPECT_EQ(row0.rfind("0,", 0), 0u) << row0;
  EXPECT_FALSE(std::getline(csv, extra)) << extra;
  std::filesystem::remove_all(dir);
}

TEST(MdErrors, ConfigKeysAreChecked) {
  auto bad = [](const std::string& toml) {
    return error_of([&] {
      auto c = config::Config::parse("workload = \"md\"\n" + toml, "x.toml");
      md::read_md_config(c);
    });
  };
  EXPECT_NE(bad("[system]\nlatice = \"fcc\"\n").find("did you mean 'lattice'"), std::string::npos);
  EXPECT_NE(bad("[system]\ncells = \"2 x\"\n").find("cells"), std::string::npos);
  EXPECT_NE(bad("[force_field]\nstyle = \"soft\"\n").find("unknown pair style"), std::string::npos);
  EXPECT_NE(bad("[integrator]\ngamma = 2\n").find("not used"), std::string::npos);
  EXPECT_NE(bad("[integrator]\nthermostat = \"nose\"\n").find("unknown thermostat"),
            std::string::npos);
}

}  // namespace
