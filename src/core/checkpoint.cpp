#include "core/checkpoint.hpp"

#include <cstdio>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "pairwise/error.hpp"
#include "parallel/communicator.hpp"

namespace pairwise {

namespace {

constexpr char kMagic[8] = {'P', 'W', 'C', 'K', 'P', 'T', '1', '\n'};
constexpr std::size_t kHeaderSize = 24;
std::filesystem::path g_last_checkpoint;

std::array<std::uint32_t, 256> make_crc_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}

// write(2) the whole buffer, retrying short writes; false (errno set) on failure.
bool write_all(int fd, const unsigned char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w, n -= std::size_t(w);
  }
  return true;
}

void fsync_directory(const std::filesystem::path& file) {
  const std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Line "key = value" of `text` whose key is `key`, or "" if none.
std::string line_of(std::string_view text, std::string_view key) {
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);)
    if (line.compare(0, key.size(), key) == 0 && line.size() > key.size() &&
        line.compare(key.size(), 3, " = ") == 0)
      return line;
  return "";
}

std::string key_of(const std::string& line) {
  return line.substr(0, line.find(" = "));
}

}  // namespace

std::uint32_t crc32(const void* data, std::size_t size, std::uint32_t crc) {
  static const auto table = make_crc_table();
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (std::size_t i = 0; i < size; ++i) crc = table[(crc ^ p[i]) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

void CheckpointWriter::raw(const void* p, std::size_t n) {
  if (n == 0) return;
  const auto* b = static_cast<const unsigned char*>(p);
  bytes_.insert(bytes_.end(), b, b + n);
}
void CheckpointWriter::u64(std::uint64_t v) {
  raw(&v, sizeof v);
}
void CheckpointWriter::f64(double v) {
  raw(&v, sizeof v);
}
void CheckpointWriter::string(std::string_view s) {
  u64(s.size());
  raw(s.data(), s.size());
}
void CheckpointWriter::f64s(const std::vector<double>& v) {
  u64(v.size());
  raw(v.data(), v.size() * sizeof(double));
}
void CheckpointWriter::i32s(const std::vector<int>& v) {
  u64(v.size());
  raw(v.data(), v.size() * sizeof(int));
}
void CheckpointWriter::u32s(const std::vector<std::uint32_t>& v) {
  u64(v.size());
  raw(v.data(), v.size() * sizeof(std::uint32_t));
}

void CheckpointWriter::save(const std::filesystem::path& path) const {
  // Many ranks: every rank holds the whole state (the drivers gather it), rank 0 writes it; the
  // others would race it for the same path and its .prev.
  if (!parallel::is_writer()) return;
  std::vector<unsigned char> file(kHeaderSize);
  std::memcpy(file.data(), kMagic, 8);
  const std::uint32_t version = kCheckpointVersion, crc = crc32(bytes_.data(), bytes_.size());
  const std::uint64_t size = bytes_.size();
  std::memcpy(file.data() + 8, &version, 4);
  std::memcpy(file.data() + 12, &crc, 4);
  std::memcpy(file.data() + 16, &size, 8);
  file.insert(file.end(), bytes_.begin(), bytes_.end());

  const std::filesystem::path temp =
      path.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw Error("cannot create the checkpoint: " + std::string(std::strerror(errno)),
                temp.string());
  const bool ok = write_all(fd, file.data(), file.size()) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!ok) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw Error("writing the checkpoint failed (" + std::to_string(file.size()) +
                    " bytes): " + std::strerror(saved_errno) + "; the previous checkpoint is kept",
                path.string());
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) std::filesystem::rename(path, path.string() + ".prev", ec);
  if (!ec) std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw Error("cannot rename the checkpoint into place: " + ec.message(), path.string());
  }
  fsync_directory(path);
  g_last_checkpoint = path;
}

const std::filesystem::path& last_checkpoint_written() {
  return g_last_checkpoint;
}

CheckpointReader CheckpointReader::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw Error("cannot open the checkpoint: " + std::string(std::strerror(errno)), path.string());
  std::vector<unsigned char> file((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  return from_bytes(std::move(file), path.string());
}

CheckpointReader CheckpointReader::from_bytes(std::vector<unsigned char> file, std::string where) {
  if (file.size() < kHeaderSize || std::memcmp(file.data(), kMagic, 8) != 0)
    throw Error("not a pairwise checkpoint (bad magic or shorter than its header)", where);
  std::uint32_t version = 0, crc = 0;
  std::uint64_t size = 0;
  std::memcpy(&version, file.data() + 8, 4);
  std::memcpy(&crc, file.data() + 12, 4);
  std::memcpy(&size, file.data() + 16, 8);
  if (version != kCheckpointVersion)
    throw Error("checkpoint format version " + std::to_string(version) + ", this pairwise reads " +
                    std::to_string(kCheckpointVersion),
                where);
  if (size != file.size() - kHeaderSize)
    throw Error("truncated or extended checkpoint: the header says " + std::to_string(size) +
                    " payload bytes, the file has " + std::to_string(file.size() - kHeaderSize),
                where);
  if (crc32(file.data() + kHeaderSize, size) != crc)
    throw Error("corrupted checkpoint: the CRC-32 checksum does not match", where);
  CheckpointReader r;
  r.payload_.assign(file.begin() + kHeaderSize, file.end());
  r.where_ = std::move(where);
  return r;
}

void CheckpointReader::raw(void* p, std::size_t n) {
  if (n == 0) return;  // an empty string or array: p may be null
  if (n > payload_.size() - pos_)
    throw Error("checkpoint payload ends early (a field layout mismatch)", where_);
  std::memcpy(p, payload_.data() + pos_, n);
  pos_ += n;
}
std::uint64_t CheckpointReader::u64() {
  std::uint64_t v;
  raw(&v, sizeof v);
  return v;
}
double CheckpointReader::f64() {
  double v;
  raw(&v, sizeof v);
  return v;
}
std::size_t CheckpointReader::count(std::size_t element_size) {
  const std::uint64_t n = u64();
  if (n > (payload_.size() - pos_) / element_size)
    throw Error("checkpoint array length " + std::to_string(n) + " exceeds the payload", where_);
  return std::size_t(n);
}
std::string CheckpointReader::string() {
  std::string s(count(1), '\0');
  raw(s.data(), s.size());
  return s;
}
std::vector<double> CheckpointReader::f64s() {
  std::vector<double> v(count(sizeof(double)));
  raw(v.data(), v.size() * sizeof(double));
  return v;
}
std::vector<int> CheckpointReader::i32s() {
  std::vector<int> v(count(sizeof(int)));
  raw(v.data(), v.size() * sizeof(int));
  return v;
}
std::vector<std::uint32_t> CheckpointReader::u32s() {
  std::vector<std::uint32_t> v(count(sizeof(std::uint32_t)));
  raw(v.data(), v.size() * sizeof(std::uint32_t));
  return v;
}
void CheckpointReader::expect_end() const {
  if (pos_ != payload_.size())
    throw Error("checkpoint has " + std::to_string(payload_.size() - pos_) +
                    " unread bytes (a field layout mismatch)",
                where_);
}

void write_checkpoint_header(CheckpointWriter& w, std::string_view workload,
                             std::string_view config_text) {
  w.string(workload);
  w.string(config_text);
}

void check_checkpoint_header(CheckpointReader& r, std::string_view workload,
                             std::string_view config_text) {
  const std::string saved_workload = r.string();
  if (saved_workload != workload)
    throw Error("checkpoint of workload '" + saved_workload + "', the configuration is '" +
                    std::string(workload) + "'",
                r.where());
  const std::string saved = r.string();
  if (saved == config_text) return;
  // Name the first differing key, looking both ways (a key only one side has).
  auto first_difference = [](std::string_view a, std::string_view b) -> std::string {
    std::istringstream in{std::string(a)};
    for (std::string line; std::getline(in, line);)
      if (line_of(b, key_of(line)) != line) return key_of(line);
    return "";
  };
  std::string key = first_difference(config_text, saved);
  if (key.empty()) key = first_difference(saved, config_text);
  auto shown = [&](std::string_view text) {
    const std::string line = line_of(text, key);
    return line.empty() ? "no '" + key + "'" : "'" + line + "'";
  };
  throw Error("checkpoint from another configuration: it was written with " + shown(saved) +
                  ", the configuration has " + shown(config_text),
              r.where());
}

std::string config_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace pairwise
