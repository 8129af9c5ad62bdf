// Files are never left half-written (DESIGN.md, Errors): output goes to "<path>.tmp.<pid>" and is
// renamed onto <path> only once it is complete. rename(2) within one directory is atomic, so a
// reader sees either the old file or the whole new one; a crash or an exception leaves at most the
// temp file, and the exception path removes it.
#pragma once

#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <thread>

namespace pairwise::io {

// A file being written under a temporary name. commit() flushes, checks the stream and renames it
// onto the final path; destroying it uncommitted removes the temporary file. Used for outputs that
// grow during a run (the thermo CSV) as well as by write_file_atomically.
class AtomicFile {
 public:
  // Creates "<path>.tmp.<pid>" (the directory must exist); throws pairwise::Error naming the path.
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::filesystem::path& path() const { return path_; }
  const std::filesystem::path& temp_path() const { return temp_; }
  bool committed() const { return committed_; }

  // Renames the temporary file onto path(); throws pairwise::Error if a write failed.
  void commit();
  // Removes the temporary file without committing (also done by the destructor).
  void discard() noexcept;

 private:
  std::filesystem::path path_, temp_;
  std::ofstream out_;
  bool committed_ = false;
};

// Calls writer(stream) on a temporary file and renames it onto `path`. If the writer throws, the
// temporary file is removed and the exception propagates; `path` is untouched.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& writer);

// Removes the previous file at `path` in the background, for a run that is about to replace it:
// the file is renamed aside at once ("<path>.replaced.tmp.<pid>", so a run killed meanwhile leaves
// a name the next run's remove_stale_temp_files cleans up) and unlinked on a thread of its own,
// since freeing a file of 10^8 bytes costs the kernel 25-50 ms (measured on the H200 host), which
// a rename onto it would spend at the end of the run. The destructor waits for the removal. Only
// for outputs whose previous content is of no use once the run has passed its input checks (a
// failed run then leaves no file at that path, neither half a new one nor the old one). Does
// nothing when there is no regular file at `path` or on ranks other than the writer.
class BackgroundRemoval {
 public:
  explicit BackgroundRemoval(const std::filesystem::path& path);
  ~BackgroundRemoval();
  BackgroundRemoval(const BackgroundRemoval&) = delete;
  BackgroundRemoval& operator=(const BackgroundRemoval&) = delete;

 private:
  std::thread thread_;
};

}  // namespace pairwise::io
