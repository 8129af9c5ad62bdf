#include "pairwise/precision.hpp"

#include "pairwise/error.hpp"

namespace pairwise {

Precision parse_precision(std::string_view text) {
  if (text == "single") return Precision::single;
  if (text == "mixed") return Precision::mixed;
  if (text == "double") return Precision::double_;
  throw Error("unknown precision '" + std::string(text) + "' (expected single, mixed or double)");
}

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::single:
      return "single";
    case Precision::mixed:
      return "mixed";
    case Precision::double_:
      return "double";
  }
  return "?";
}

}  // namespace pairwise
