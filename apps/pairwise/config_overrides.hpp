// A config file with the command line's overrides, as `pairwise run` and `pairwise fredholm` take
// them: every --set KEY=VALUE first, then the dedicated flags (which win; a bad value names the
// flag), then --output DIR (relative to the working directory; a key in the file is relative to
// the file).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/config.hpp"

namespace pairwise::cli {

// A dedicated flag: its value (unset: not given), the key it sets and its name ("--t-end").
struct FlagOverride {
  const std::optional<std::string>* value;
  const char* key;
  const char* flag;
};

config::Config load_config(const std::string& file, const std::vector<std::string>& sets,
                           const std::vector<FlagOverride>& flags,
                           const std::optional<std::string>& output);

}  // namespace pairwise::cli
