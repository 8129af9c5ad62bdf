#include "core/output_keys.hpp"

namespace pairwise::config {

RunOptions read_run_options(const Section& run, std::string_view default_precision) {
  RunOptions o;
  o.backend = run.choice("backend", "auto", parse_backend);
  o.precision = run.choice("precision", default_precision, parse_precision);
  return o;
}

OutputNames read_output_names(const Config& config, const Section& s,
                              std::string_view fallback_prefix) {
  OutputNames o;
  o.directory = (config.base_directory() / s.string("directory", ".")).lexically_normal();
  const std::string stem = std::filesystem::path(config.source()).stem().string();
  o.prefix = s.string("prefix", stem.empty() ? fallback_prefix : std::string_view(stem));
  if (o.prefix.empty() || o.prefix.find('/') != std::string::npos)
    s.fail("prefix", "must be a non-empty file name without '/'");
  return o;
}

std::filesystem::path read_output_file(const Section& s, std::string_view key,
                                       const std::filesystem::path& directory,
                                       const std::string& default_name) {
  const std::string name = s.string(key, default_name);
  return name.empty() ? std::filesystem::path() : directory / name;
}

CheckpointKeys read_checkpoint_keys(const Section& s, const OutputNames& names,
                                    std::int64_t max_every) {
  CheckpointKeys c;
  c.path = names.directory / s.string("checkpoint", names.prefix + ".ckpt");
  c.every = s.integer("checkpoint_every", 0, 0, max_every);
  return c;
}

}  // namespace pairwise::config
