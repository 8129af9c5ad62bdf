#include "api/run_output.hpp"

#include <system_error>

#include "core/io/growing_file.hpp"
#include "core/signals.hpp"
#include "pairwise/error.hpp"

namespace pairwise::api {

void prepare_output_directory(const std::filesystem::path& directory, std::ostream& out) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) throw Error("cannot create the output directory: " + ec.message(), directory.string());
  out << io::remove_stale_temp_files(directory);
}

int report_stop(std::ostream& out, int sig, const std::string& at,
                const std::filesystem::path& checkpoint,
                const std::vector<std::filesystem::path>& outputs, const std::string& complete) {
  out << "stopped by " << signal_name(sig) << " " << at << ": wrote checkpoint "
      << checkpoint.string() << " (continue with --restart " << checkpoint.string() << ")";
  for (const auto& file : outputs)
    if (!file.empty()) out << ", " << file.string();
  out << " (complete up to " << complete << ")\n" << std::flush;
  return stop_exit_code(sig);
}

}  // namespace pairwise::api
