#include "core/io/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

namespace pairwise::io {

AtomicFile::AtomicFile(std::filesystem::path path)
    : path_(std::move(path)),
      temp_(path_.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()))) {
  // Many ranks: rank 0 writes every output file; the others write into a stream that is never
  // opened (its writes are dropped) and commit nothing.
  if (!parallel::is_writer()) {
    committed_ = true;
    return;
  }
  out_.open(temp_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) {
    throw Error("cannot create output file: " + std::string(std::strerror(errno)), temp_.string());
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::commit() {
  if (committed_) return;
  out_.flush();
  const bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) {
    discard();
    throw Error("writing the output file failed (disk full?)", path_.string());
  }
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) {
    discard();
    throw Error("cannot rename the output file into place: " + ec.message(), path_.string());
  }
  committed_ = true;
}

void AtomicFile::discard() noexcept {
  if (out_.is_open()) out_.close();
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
}

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& writer) {
  AtomicFile file(path);
  writer(file.stream());  // an exception here unwinds through ~AtomicFile, which removes the temp
  file.commit();
}

BackgroundRemoval::BackgroundRemoval(const std::filesystem::path& path) {
  if (!parallel::is_writer()) return;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return;
  std::filesystem::path aside = path;
  aside += ".replaced.tmp." + std::to_string(static_cast<long>(::getpid()));
  std::filesystem::rename(path, aside, ec);
  if (ec) return;  // left in place: the final rename replaces it
  thread_ = std::thread([aside] {
    std::error_code ignored;
    std::filesystem::remove(aside, ignored);
  });
}

BackgroundRemoval::~BackgroundRemoval() {
  if (thread_.joinable()) thread_.join();
}

}  // namespace pairwise::io
