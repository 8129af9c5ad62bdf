// Outputs that grow during a run (DESIGN.md, Inputs and outputs: trajectories, the thermo CSV) are
// written in place under their final names, flushed every `flush_every` records, so that a run
// killed even with SIGKILL leaves a file valid up to its last complete flushed record. Temp +
// rename (io::AtomicFile) stays for final files.
//
// On restart a growing file is cut back to the size a checkpoint recorded (size_at_flush()) and
// appended to, so that records after the checkpoint are not duplicated.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>

namespace pairwise::io {

class GrowingFile {
 public:
  // Creates (truncates) `path`. Throws pairwise::Error naming it.
  GrowingFile(std::filesystem::path path, int flush_every = 1);
  // Opens `path` for appending after cutting it to `keep_bytes` (its size when a checkpoint was
  // written); throws if the file is missing or shorter than that.
  GrowingFile(std::filesystem::path path, std::uint64_t keep_bytes, int flush_every);
  GrowingFile(const GrowingFile&) = delete;
  GrowingFile& operator=(const GrowingFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::filesystem::path& path() const { return path_; }
  // Marks the end of one record (a row, a frame): flushes every `flush_every` records.
  void end_record();
  // Flushes and checks the stream: throws pairwise::Error naming the path if a write failed (disk
  // full, file size limit). Returns the file size after the flush.
  std::uint64_t flush();
  // Flushes and closes (throws as flush()).
  void close();

 private:
  std::filesystem::path path_;
  std::ofstream out_;
  int flush_every_ = 1;
  int pending_ = 0;
  std::uint64_t written_ = 0;  // size at the last flush
};

// Removes temporary files "<name>.tmp.<pid>" in `directory` whose process no longer exists (left
// by a crashed or killed run) and returns one "removed ..." line per file (empty: none).
std::string remove_stale_temp_files(const std::filesystem::path& directory);

}  // namespace pairwise::io
