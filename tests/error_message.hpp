// The message of the error a piece of code throws: for tests of clear errors on bad input.
#pragma once

#include <string>

#include "pairwise/error.hpp"

namespace pairwise::test {

// The message of the pairwise::Error that `f` throws ("" if it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace pairwise::test
