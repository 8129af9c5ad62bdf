#include "config_overrides.hpp"

#include <filesystem>

namespace pairwise::cli {

config::Config load_config(const std::string& file, const std::vector<std::string>& sets,
                           const std::vector<FlagOverride>& flags,
                           const std::optional<std::string>& output) {
  auto config = config::Config::load(file);
  for (const auto& assignment : sets) config.set(assignment);
  // The value is checked by the key's getter, and errors name the flag.
  for (const auto& f : flags)
    if (*f.value) config.set_value(f.key, **f.value, std::string(f.flag) + " " + **f.value);
  if (output)
    config.set_string("output.directory", std::filesystem::absolute(*output).string(),
                      "--output " + *output);
  return config;
}

}  // namespace pairwise::cli
