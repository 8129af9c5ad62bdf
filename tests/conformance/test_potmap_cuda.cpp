// The cuda backend's own machinery (issue 3): slabs give the map of one pass, bin sizes do not
// change the map beyond rounding, the no-slab error names the bytes. Skipped without a device.
#include <gtest/gtest.h>

#include <cmath>

#include "pairwise/backend.hpp"
#include "pairwise/error.hpp"
#include "potmap/map.hpp"
#include "potmap/run_config.hpp"

namespace pairwise::test {
namespace {

class PotmapCuda : public testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (cuda_devices(&why).empty()) GTEST_SKIP() << "no usable CUDA device: " << why;
  }
};

potmap::Lattice test_lattice() {
  potmap::Lattice l;
  l.origin = {-2, -2, -2};
  l.spacing = 0.5;
  l.counts = {61, 45, 50};
  return l;
}

TEST_F(PotmapCuda, SlabsGiveTheSameMapAndSayHowTheySplit) {
  const auto atoms = potmap::water_box(24.0, 9);
  const auto l = test_lattice();
  for (const double cutoff : {0.0, 9.0}) {
    potmap::MapOptions o;
    o.cutoff = cutoff;
    o.exclusion = 1.0;
    const auto one = potmap::compute_map(BackendKind::cuda, atoms, l, o);
    EXPECT_EQ(one.slabs, 1);
    // 16 planes of the map: FP32 values and their FP64 copy for the host (cuda_map.cu).
    o.device_memory_limit = 16 * 45 * 50 * (sizeof(float) + sizeof(double));
    const auto sliced = potmap::compute_map(BackendKind::cuda, atoms, l, o);
    EXPECT_EQ(sliced.slabs, 4);  // 61 planes in slabs of 16
    EXPECT_NE(sliced.slab_note.find("slabs of at most"), std::string::npos) << sliced.slab_note;
    EXPECT_EQ(sliced.values, one.values);  // the same arithmetic per point
    o.slabs = false;
    try {
      potmap::compute_map(BackendKind::cuda, atoms, l, o);
      ADD_FAILURE() << "no error without slabs";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("bytes of device memory"), std::string::npos)
          << e.what();
    }
  }
}

TEST_F(PotmapCuda, BinSizesAgreeWithTheReference) {
  const auto atoms = potmap::water_box(24.0, 10);
  const auto l = test_lattice();
  potmap::MapOptions o;
  o.cutoff = 7.0;
  o.exclusion = 1.0;
  o.precision = Precision::double_;
  const auto ref = potmap::reference_map(atoms, l, o).values;
  for (const double bin : {1.0, 2.0, 4.0}) {
    o.bin_size = bin;
    const auto e =
        potmap::map_errors(potmap::compute_map(BackendKind::cuda, atoms, l, o).values, ref);
    EXPECT_LT(e.max_relative, 1e-10) << "bin " << bin;
  }
}

}  // namespace
}  // namespace pairwise::test
