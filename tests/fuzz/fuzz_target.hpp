// One libFuzzer target per parser (issue 11). Each target file defines
//   PAIRWISE_FUZZ_TARGET(const std::uint8_t* data, std::size_t size) { ... }
// which must return normally or throw pairwise::Error for any input: anything else (a crash, a
// sanitizer report, another exception) is a bug. Built two ways (tests/fuzz/CMakeLists.txt):
// with clang's -fsanitize=fuzzer (the `fuzz` preset) as a fuzzer, and with any compiler linked to
// replay_main.cpp, which feeds every file of the committed corpus to the same function (the CI
// smoke, label unit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pairwise/error.hpp"

namespace pairwise::fuzz {
void one_input(const std::uint8_t* data, std::size_t size);
inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}
}  // namespace pairwise::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

#define PAIRWISE_FUZZ_TARGET(DATA, SIZE)                                                \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {   \
    try {                                                                               \
      pairwise::fuzz::one_input(data, size);                                            \
    } catch (const pairwise::Error& e) {                                                \
      if (std::getenv("PAIRWISE_FUZZ_VERBOSE")) std::fprintf(stderr, "%s\n", e.what()); \
    }                                                                                   \
    return 0;                                                                           \
  }                                                                                     \
  void pairwise::fuzz::one_input(const std::uint8_t* DATA, std::size_t SIZE)
