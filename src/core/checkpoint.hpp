// Checkpoint files (DESIGN.md, Errors): the complete state of a run, so that `pairwise run FILE
// --restart CKPT` continues bitwise. Binary, little-endian as the host writes it, versioned and
// checksummed:
//
//   offset  size  field
//   0       8     magic "PWCKPT1\n"
//   8       4     format version (kCheckpointVersion)
//   12      4     CRC-32 (IEEE 802.3, the zlib polynomial) of the payload
//   16      8     payload size in bytes
//   24      ...   payload: a sequence of fields written by CheckpointWriter (u64, f64, strings and
//                 arrays with their lengths); its first fields are the workload name and the
//                 configuration text (one "key = value" line per key that shapes the results).
//
// A file whose magic, version, size or CRC does not match is refused before any field is read, so a
// truncated or corrupted checkpoint is never half-read. Writing goes to "<path>.tmp.<pid>", is
// fsync'ed, the old checkpoint is renamed to "<path>.prev", and the new one renamed onto <path>
// (then the directory is fsync'ed): a crash at any moment leaves a complete checkpoint.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace pairwise {

inline constexpr std::uint32_t kCheckpointVersion = 1;

// CRC-32 (reflected polynomial 0xEDB88320, initial and final xor 0xFFFFFFFF): "123456789" gives
// 0xCBF43926.
std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc = 0);

class CheckpointWriter {
 public:
  void u64(std::uint64_t v);
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v);
  void string(std::string_view s);
  void f64s(const std::vector<double>& v);
  void i32s(const std::vector<int>& v);
  void u32s(const std::vector<std::uint32_t>& v);
  const std::vector<unsigned char>& payload() const { return bytes_; }

  // Writes the file as described at the top (temp, fsync, keep .prev, rename). Throws
  // pairwise::Error naming the path if anything fails (disk full: the previous checkpoint stays).
  // With many ranks rank 0 writes (every rank holds the same state); the others return.
  void save(const std::filesystem::path& path) const;

 private:
  void raw(const void* p, std::size_t n);
  std::vector<unsigned char> bytes_;
};

class CheckpointReader {
 public:
  // Reads and verifies the whole file (magic, version, size, CRC); throws pairwise::Error naming
  // the path and what is wrong.
  static CheckpointReader load(const std::filesystem::path& path);
  // Verifies an in-memory file image (the fuzz target and tests); `where` names it in errors.
  static CheckpointReader from_bytes(std::vector<unsigned char> file, std::string where);

  std::uint64_t u64();
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64();
  std::string string();
  std::vector<double> f64s();
  std::vector<int> i32s();
  std::vector<std::uint32_t> u32s();
  // Throws unless every byte of the payload was read (a field layout mismatch).
  void expect_end() const;
  const std::string& where() const { return where_; }

 private:
  void raw(void* p, std::size_t n);
  std::size_t count(std::size_t element_size);  // an array length that fits the remaining bytes
  std::vector<unsigned char> payload_;
  std::size_t pos_ = 0;
  std::string where_;
};

// The checkpoint this process wrote last (empty: none), for error messages: a run that fails after
// writing one says where to continue from.
const std::filesystem::path& last_checkpoint_written();

// A value as the configuration text of a checkpoint records it: %.17g, so that it reads back to
// the same double and two configurations compare equal exactly when their values are equal.
std::string config_number(double v);

// The header of every workload's checkpoint: workload name and configuration text.
void write_checkpoint_header(CheckpointWriter& w, std::string_view workload,
                             std::string_view config_text);
// Reads the header and refuses a checkpoint of another workload or configuration, naming the first
// key whose line differs: "checkpoint was written with 'integrator.dt = 0.005', the
// configuration has 'integrator.dt = 0.002'".
void check_checkpoint_header(CheckpointReader& r, std::string_view workload,
                             std::string_view config_text);

}  // namespace pairwise
