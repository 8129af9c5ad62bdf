// Precision modes (DESIGN.md): single = FP32 throughout; mixed = FP32 pair arithmetic with FP64 (or
// double-single) positions and FP64 accumulation; double = FP64 throughout.
#pragma once

#include <string>
#include <string_view>

namespace pairwise {

enum class Precision { single, mixed, double_ };

Precision parse_precision(
    std::string_view text);  // throws pairwise::Error naming the accepted values
std::string_view to_string(Precision p);

}  // namespace pairwise
