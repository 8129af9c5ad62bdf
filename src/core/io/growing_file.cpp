#include "core/io/growing_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::io {

GrowingFile::GrowingFile(std::filesystem::path path, int flush_every)
    : path_(std::move(path)), flush_every_(flush_every < 1 ? 1 : flush_every) {
  // Many ranks: rank 0 writes every output file; the others keep the stream closed and their
  // records are dropped (a closed ofstream only sets its fail bit, which flush() then ignores).
  if (!parallel::is_writer()) return;
  out_.open(path_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_)
    throw Error("cannot create output file: " + std::string(std::strerror(errno)), path_.string());
}

GrowingFile::GrowingFile(std::filesystem::path path, std::uint64_t keep_bytes, int flush_every)
    : path_(std::move(path)), flush_every_(flush_every < 1 ? 1 : flush_every) {
  written_ = keep_bytes;
  if (!parallel::is_writer()) return;  // rank 0 alone continues the file (above)
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_, ec);
  if (ec)
    throw Error("cannot continue the output of the checkpointed run: " + ec.message(),
                path_.string());
  if (size < keep_bytes)
    throw Error("cannot continue the output: it has " + std::to_string(size) +
                    " bytes, the checkpoint recorded " + std::to_string(keep_bytes),
                path_.string());
  std::filesystem::resize_file(path_, keep_bytes, ec);
  if (ec)
    throw Error("cannot cut the output back to the checkpoint: " + ec.message(), path_.string());
  out_.open(path_, std::ios::out | std::ios::app | std::ios::binary);
  if (!out_)
    throw Error("cannot open output file: " + std::string(std::strerror(errno)), path_.string());
  written_ = keep_bytes;
}

void GrowingFile::end_record() {
  if (++pending_ >= flush_every_) flush();
}

std::uint64_t GrowingFile::flush() {
  pending_ = 0;
  if (!out_.is_open()) return written_;  // a rank other than 0
  out_.flush();
  if (!out_)
    throw Error("writing the output file failed (disk full or file size limit?)", path_.string());
  const auto at = out_.tellp();
  if (at >= 0) written_ = std::uint64_t(at);
  return written_;
}

void GrowingFile::close() {
  if (!out_.is_open()) return;
  flush();
  out_.close();
}

std::string remove_stale_temp_files(const std::filesystem::path& directory) {
  std::string report;
  if (!parallel::is_writer()) return report;  // rank 0 owns the output directory
  std::error_code ec;
  for (std::filesystem::directory_iterator it(directory, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const auto mark = name.rfind(".tmp.");
    if (mark == std::string::npos || mark == 0) continue;
    const std::string digits = name.substr(mark + 5);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const long pid = std::stol(digits);
    if (pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;  // alive (or not ours to judge)
    std::error_code removed;
    if (std::filesystem::remove(it->path(), removed))
      report += "removed " + it->path().string() + ", left by a run (pid " + digits +
                ") that no longer exists\n";
  }
  return report;
}

}  // namespace pairwise::io
