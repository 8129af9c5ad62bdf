// Whole files as text, for tests that compare the outputs of two runs.
#pragma once

#include <unistd.h>

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

// `text` written to a file in the temporary folder named `name` plus the process id (tests of
// readers running in parallel do not share a file).
inline std::filesystem::path write_temp_text(const std::string& name, const std::string& text) {
  const std::filesystem::path p =
      std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()));
  std::ofstream(p) << text;
  return p;
}

}  // namespace pairwise::test
