// Helpers of the potmap mpi tests: the values of a .npy map that pairwise wrote, and the
// comparison of two maps (relative to max(1, |value|); tolerance 0: bitwise); a small trajectory.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "core/io/trajectory.hpp"

namespace pairwise::mpitest {

// The values of a .npy file that pairwise wrote (format 1.0; '<f8', or '<f4' for FP32 maps).
inline std::vector<double> npy_doubles(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(1, 5, "NUMPY") != 0 || bytes[6] != 1) return {};
  const std::size_t start =
      10 + (std::size_t(std::uint8_t(bytes[8])) | std::size_t(std::uint8_t(bytes[9])) << 8);
  if (start > bytes.size()) return {};
  std::vector<double> values;
  if (bytes.find("'<f8'") < start) {
    values.resize((bytes.size() - start) / sizeof(double));
    std::memcpy(values.data(), bytes.data() + start, values.size() * sizeof(double));
  } else if (bytes.find("'<f4'") < start) {
    std::vector<float> f((bytes.size() - start) / sizeof(float));
    std::memcpy(f.data(), bytes.data() + start, f.size() * sizeof(float));
    values.assign(f.begin(), f.end());
  }
  return values;
}

inline void expect_same_maps(const std::filesystem::path& a, const std::filesystem::path& b,
                             double relative) {
  const auto x = npy_doubles(a), y = npy_doubles(b);
  ASSERT_GT(x.size(), 0u) << a;
  ASSERT_EQ(x.size(), y.size()) << a << " vs " << b;
  double worst = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (relative == 0) {
      ASSERT_EQ(std::memcmp(&x[i], &y[i], sizeof(double)), 0)
          << "value " << i << ": " << x[i] << " vs " << y[i];
    }
    worst = std::max(worst, std::abs(x[i] - y[i]) / std::max(1.0, std::abs(x[i])));
  }
  EXPECT_LE(worst, relative);
  std::printf("largest relative difference from one rank: %.3g\n", worst);
}

// potmap-small.pqr's 6 atoms, moved a little in each of `frames` frames (deterministic).
inline std::vector<io::TrajectoryFrame> moving_frames(int frames) {
  const double base[6][3] = {{1, 2, 3}, {1, 2, 4}, {1, 3, 3}, {5, 2, 3}, {5, 2, 4}, {5, 3, 3}};
  std::vector<io::TrajectoryFrame> out(static_cast<std::size_t>(frames));
  for (int f = 0; f < frames; ++f) {
    auto& fr = out[std::size_t(f)];
    for (int i = 0; i < 6; ++i) {
      // float-representable, as DCD stores float32
      fr.x.push_back(double(float(base[i][0] + 0.3 * std::sin(1.7 * f + i))));
      fr.y.push_back(double(float(base[i][1] + 0.3 * std::cos(2.3 * f + 2 * i))));
      fr.z.push_back(double(float(base[i][2] + 0.2 * std::sin(0.9 * f - i))));
    }
    fr.index = f;
  }
  return out;
}

inline void write_dcd(const std::filesystem::path& p,
                      const std::vector<io::TrajectoryFrame>& frames) {
  io::DcdWriter w(p, frames.front().size(), long(frames.size()));
  for (const auto& f : frames) w.write(f);
  w.close();
}

}  // namespace pairwise::mpitest
