// The [output] and [run] keys that the workloads' configs share (md, nbody, ljc, fredholm read
// them through here), so that their defaults and messages are written once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/config.hpp"
#include "pairwise/types.hpp"

namespace pairwise::config {

// [run] backend (default auto) and precision (default `default_precision`).
RunOptions read_run_options(const Section& run, std::string_view default_precision);

struct OutputNames {
  std::filesystem::path directory;  // where the outputs go
  std::string prefix;               // the file-name stem of the outputs
};
// [output] directory (relative to the config file; default its directory) and prefix (default the
// config file's stem, or `fallback_prefix` when it has none; a file name without '/').
OutputNames read_output_names(const Config& config, const Section& output,
                              std::string_view fallback_prefix);

// An output file named by `key` (default `default_name`) in `directory`; an empty string switches
// it off (an empty path).
std::filesystem::path read_output_file(const Section& output, std::string_view key,
                                       const std::filesystem::path& directory,
                                       const std::string& default_name);

struct CheckpointKeys {
  std::filesystem::path path;  // [output] checkpoint (default <prefix>.ckpt in the directory)
  std::int64_t every = 0;      // [output] checkpoint_every (0: only when stopped by a signal)
};
CheckpointKeys read_checkpoint_keys(const Section& output, const OutputNames& names,
                                    std::int64_t max_every);

}  // namespace pairwise::config
