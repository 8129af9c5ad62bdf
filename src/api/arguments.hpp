// Input checks of the API calls that compute in one go (fredholm::solve, potmap::compute_map):
// the internal checks throw pairwise::Error with the CLI's messages; the API rethrows them as
// InvalidArgument (a pairwise::Error too), so that clients can tell bad input from a failed
// computation (the Python package raises ValueError for the first, RuntimeError for the second).
#pragma once

#include "pairwise/types.hpp"

namespace pairwise::api {

template <class F>
auto checked_argument(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const InvalidArgument&) {
    throw;
  } catch (const Error& e) {
    throw InvalidArgument(e.message(), e.where());
  }
}

}  // namespace pairwise::api
