// Whole files as text, for tests that compare the outputs of two runs.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace pairwise::test {

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A thermo/diagnostic CSV without its last column (wall-clock seconds, which no two runs share).
inline std::string csv_without_wall(const std::filesystem::path& p) {
  std::istringstream in(read_text(p));
  std::string out;
  for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

}  // namespace pairwise::test
