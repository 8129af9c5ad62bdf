// External reference: LAMMPS 29 Sep 2021 ran bench/in.lj from tests/data/lj32k-initial.data.gz
// (its exact initial state) with tests/data/lj32k-ref.in and printed tests/data/lj32k-ref.log.
// pairwise reproduces the thermo: step 0 E_pair, TotEng, Press to 1e-8 relative in double and 1e-6
// in mixed; steps 10..100 to 1e-4 in mixed (and double).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "md/engine.hpp"
#include "md/run.hpp"
#include "md_systems.hpp"

namespace {

using namespace pairwise;

struct Row {
  double temp, epair, etotal, press;
};

std::map<int, Row> lammps_thermo() {
  std::ifstream in(test::md_test_data() + "/lj32k-ref.log");
  std::map<int, Row> rows;
  bool table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("Step Temp", 0) == 0) {
      table = true;
      continue;
    }
    if (!table) continue;
    std::istringstream s(line);
    int step;
    double temp, epair, emol, etotal, press;
    if (!(s >> step >> temp >> epair >> emol >> etotal >> press)) break;
    rows[step] = {temp, epair, etotal, press};
  }
  return rows;
}

double rel(double a, double b) {
  return std::abs(a - b) / std::abs(b);
}

// Runs the reference input on `backend` and checks every thermo row of the log.
void reproduce(BackendKind backend, Precision precision, double tol0, double tol_steps) {
  const auto ref = lammps_thermo();
  ASSERT_EQ(ref.size(), 11u);
  md::System s = md::system_from_data(test::md_test_data() + "/lj32k-initial.data.gz");
  ASSERT_EQ(s.atoms.size(), 32000u);
  s.ff.cutoff = 2.5;
  md::validate(s, 0.3, false);
  md::EngineOptions o;
  o.precision = precision;
  o.skin = 0.3;
  o.dynamics.dt = 0.005;
  auto engine = md::make_md_engine(backend, o);
  engine->set_state(s);
  const double n = 32000, volume = s.box.volume();
  double worst0 = 0, worst = 0;
  for (int step = 0; step <= 100; step += 10) {
    if (step > 0) engine->advance(std::uint64_t(step - 9), 10);
    const md::Thermo t = engine->thermo();
    const Row& r = ref.at(step);
    const double temp = md::temperature_of(t.kinetic, 32000);
    const double errs[] = {rel(t.potential / n, r.epair),
                           rel((t.kinetic + t.potential) / n, r.etotal),
                           rel(md::pressure(t, volume), r.press), rel(temp, r.temp)};
    const double tol = step == 0 ? tol0 : tol_steps;
    for (double e : errs) EXPECT_LE(e, tol) << "step " << step;
    for (double e : errs) (step == 0 ? worst0 : worst) = std::max(step == 0 ? worst0 : worst, e);
  }
  std::printf("[ info ] %s %s: step 0 max rel. error %.2e, steps 10..100 %.2e\n",
              std::string(to_string(backend)).c_str(), std::string(to_string(precision)).c_str(),
              worst0, worst);
}

TEST(MdLammps, CpuDoubleReproducesThermo) {
  reproduce(BackendKind::cpu, Precision::double_, 1e-8, 1e-4);
}

TEST(MdLammps, CpuMixedReproducesThermo) {
  reproduce(BackendKind::cpu, Precision::mixed, 1e-6, 1e-4);
}

TEST(MdLammps, CudaMixedReproducesThermo) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  reproduce(BackendKind::cuda, Precision::mixed, 1e-6, 1e-4);
}

TEST(MdLammps, CudaDoubleReproducesThermo) {
  if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA device";
  reproduce(BackendKind::cuda, Precision::double_, 1e-8, 1e-4);
}

}  // namespace
