// CHARMM/NAMD DCD trajectories (trajectory.hpp). Layout (Fortran unformatted records, each framed
// by a 4-byte length marker before and after; byte order from the first marker, which is 84):
//   header:  84 | "CORD" | 20 int32 (0: frames, 1: first step, 2: step interval, 8: fixed atoms,
//            10: unit cell present, 11: 4-D, 19: CHARMM version) | 84
//   titles:  4 + 80 n | n | n x 80 characters | same
//   atoms:   4 | N | 4
//   frame:   [48 | A gamma B beta alpha C (6 float64) | 48]  if the unit cell flag is set
//            4N | x (N float32) | 4N, the same for y and z
// Angles are degrees (NAMD, MDAnalysis) or cosines (CHARMM >= 22): 90° is 90 or 0. Only
// orthorhombic cells are supported; fixed atoms and 4-D frames are rejected.
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/io/trajectory.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

std::uint32_t swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
std::uint64_t swap64(std::uint64_t v) {
  return (std::uint64_t(swap32(std::uint32_t(v))) << 32) | swap32(std::uint32_t(v >> 32));
}

bool right_angle(double v) {
  return std::abs(v - 90.0) < 1e-3 || std::abs(v) < 1e-6;
}

class DcdReader final : public TrajectoryReader {
 public:
  explicit DcdReader(const std::filesystem::path& path) : TrajectoryReader(path) {
    file_ = std::fopen(path.c_str(), "rb");
    if (!file_) throw Error("cannot open DCD file: " + std::string(std::strerror(errno)), where());
    std::error_code ec;
    file_size_ = std::uint64_t(std::filesystem::file_size(path, ec));
    read_header();
  }
  ~DcdReader() override {
    if (file_) std::fclose(file_);
  }

  bool next(TrajectoryFrame& f) override {
    if (!read_frame_bytes()) return false;
    const char* p = buffer_.data();
    const std::size_t n = atoms_;
    f.index = frame_;
    f.has_cell = cell_;
    if (cell_) {  // markers checked in read_frame_bytes
      double c[6];
      p += 4;
      for (double& v : c) v = get_f64(p), p += 8;
      p += 4;
      // A, gamma, B, beta, alpha, C
      if (!right_angle(c[1]) || !right_angle(c[3]) || !right_angle(c[4])) {
        throw Error("frame " + std::to_string(frame_) + ": non-orthogonal unit cell (angles " +
                        std::to_string(c[4]) + ", " + std::to_string(c[3]) + ", " +
                        std::to_string(c[1]) + "): only orthorhombic cells are supported",
                    where());
      }
      f.cell_origin = {0, 0, 0};
      f.cell_length = {c[0], c[2], c[5]};
    }
    f.x.resize(n), f.y.resize(n), f.z.resize(n);
    double* out[3] = {f.x.data(), f.y.data(), f.z.data()};
    for (int a = 0; a < 3; ++a) {
      p += 4;
      for (std::size_t i = 0; i < n; ++i, p += 4) {
        std::uint32_t u;
        std::memcpy(&u, p, 4);
        if (swapped_) u = swap32(u);
        out[a][i] = double(std::bit_cast<float>(u));
      }
      p += 4;
    }
    ++frame_;
    return true;
  }

  bool skip() override {
    if (frame_ >= frames_in_file()) return read_frame_bytes();  // reports a truncated tail
    if (std::fseek(file_, long(frame_bytes_), SEEK_CUR) != 0) {
      throw Error("cannot seek past frame " + std::to_string(frame_), where());
    }
    ++frame_;
    return true;
  }

  std::size_t atoms() const override { return atoms_; }
  std::string describe() const override {
    return std::string("DCD (") + (little_ ? "little" : "big") + "-endian, " +
           (cell_ ? "unit cell" : "no unit cell") + ", " + std::to_string(frames_in_file()) +
           " frames)";
  }

 private:
  std::string where() const { return path_.string(); }
  std::string frame_where() const { return path_.string() + ": frame " + std::to_string(frame_); }
  long frames_in_file() const {
    return file_size_ > header_bytes_ ? long((file_size_ - header_bytes_) / frame_bytes_) : 0;
  }

  std::int32_t get_i32(const char* p) const {
    std::uint32_t u;
    std::memcpy(&u, p, 4);
    return std::int32_t(swapped_ ? swap32(u) : u);
  }
  double get_f64(const char* p) const {
    std::uint64_t u;
    std::memcpy(&u, p, 8);
    return std::bit_cast<double>(swapped_ ? swap64(u) : u);
  }

  // Reads one whole record (markers included) of the header; checks both markers.
  std::vector<char> record(const char* what) {
    char m[4];
    if (std::fread(m, 1, 4, file_) != 4)
      throw Error(std::string("DCD header ends before the ") + what, where());
    const std::int32_t len = get_i32(m);
    if (len < 0 || len > (1 << 24)) {
      throw Error(std::string("bad record marker ") + std::to_string(len) + " of the " + what +
                      " (not a DCD file, or 64-bit markers, which are not supported)",
                  where());
    }
    std::vector<char> data(std::size_t(len) + 4);
    if (std::fread(data.data(), 1, data.size(), file_) != data.size()) {
      throw Error(std::string("DCD header ends inside the ") + what, where());
    }
    if (get_i32(data.data() + len) != len) {
      throw Error(std::string("mismatched record markers around the ") + what + " (" +
                      std::to_string(len) + " and " + std::to_string(get_i32(data.data() + len)) +
                      ")",
                  where());
    }
    data.resize(std::size_t(len));
    header_bytes_ += std::uint64_t(len) + 8;
    return data;
  }

  void read_header() {
    char m[4];
    if (std::fread(m, 1, 4, file_) != 4) throw Error("empty DCD file", where());
    std::uint32_t first;
    std::memcpy(&first, m, 4);
    if (first == 84) {
      swapped_ = false;
    } else if (swap32(first) == 84) {
      swapped_ = true;
    } else {
      throw Error("not a DCD file (first record marker " + std::to_string(first) +
                      ", expected 84 in either byte order)",
                  where());
    }
    little_ = (std::endian::native == std::endian::little) != swapped_;
    std::rewind(file_);
    const auto head = record("header");
    if (head.size() != 84 || std::memcmp(head.data(), "CORD", 4) != 0) {
      throw Error("DCD header does not start with 'CORD'", where());
    }
    auto icntrl = [&](int i) { return get_i32(head.data() + 4 + 4 * i); };
    if (icntrl(8) != 0) {
      throw Error("DCD with " + std::to_string(icntrl(8)) + " fixed atoms is not supported",
                  where());
    }
    if (icntrl(11) != 0) throw Error("4-D DCD frames are not supported", where());
    const bool charmm = icntrl(19) != 0;
    cell_ = charmm && icntrl(10) != 0;
    record("titles");
    const auto n = record("atom count");
    if (n.size() != 4 || get_i32(n.data()) <= 0) throw Error("bad DCD atom count record", where());
    atoms_ = std::size_t(get_i32(n.data()));
    frame_bytes_ = (cell_ ? 56 : 0) + 3 * (atoms_ * 4 + 8);
    buffer_.resize(frame_bytes_);
  }

  // Reads the next frame's bytes into buffer_ and checks every marker; false at a clean end.
  bool read_frame_bytes() {
    const std::size_t got = std::fread(buffer_.data(), 1, frame_bytes_, file_);
    if (got == 0 && std::feof(file_)) return false;
    if (got != frame_bytes_) {
      throw Error("truncated frame: " + std::to_string(got) + " of " +
                      std::to_string(frame_bytes_) + " bytes before the end of the file",
                  frame_where());
    }
    const char* p = buffer_.data();
    auto check = [&](std::int32_t expected, const char* what) {
      const std::int32_t open = get_i32(p);
      const std::int32_t close = get_i32(p + 4 + expected);
      if (open != expected || close != expected) {
        throw Error(std::string("bad record marker of the ") + what + " record (" +
                        std::to_string(open) + ", " + std::to_string(close) + "; expected " +
                        std::to_string(expected) + ")",
                    frame_where());
      }
      p += 8 + expected;
    };
    if (cell_) check(48, "unit cell");
    const auto len = std::int32_t(4 * atoms_);
    check(len, "x");
    check(len, "y");
    check(len, "z");
    return true;
  }

  std::FILE* file_ = nullptr;
  std::uint64_t file_size_ = 0, header_bytes_ = 0;
  std::size_t atoms_ = 0, frame_bytes_ = 0;
  bool swapped_ = false, little_ = true, cell_ = false;
  long frame_ = 0;
  std::vector<char> buffer_;
};

}  // namespace

std::unique_ptr<TrajectoryReader> open_dcd(const std::filesystem::path& path) {
  return std::make_unique<DcdReader>(path);
}

DcdWriter::DcdWriter(const std::filesystem::path& path, std::size_t atoms, long frames,
                     DcdWriteOptions options)
    : path_(path), atoms_(atoms), options_(options) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    throw Error("cannot create DCD file: " + std::string(std::strerror(errno)), path.string());
  }
  std::int32_t icntrl[20] = {};
  icntrl[0] = std::int32_t(frames);
  icntrl[1] = 0;  // first step
  icntrl[2] = 1;  // step interval
  icntrl[3] = std::int32_t(frames);
  icntrl[10] = options.unit_cell ? 1 : 0;
  icntrl[19] = 24;  // CHARMM version
  put_i32(84);
  put("CORD", 4);
  for (int i = 0; i < 20; ++i) {
    if (i == 9) {  // DELTA, a float32
      const float dt = 1.0f;
      put_i32(std::bit_cast<std::int32_t>(dt));
    } else {
      put_i32(icntrl[i]);
    }
  }
  put_i32(84);
  char title[80];
  std::memset(title, ' ', sizeof title);
  const char text[] = "REMARKS written by pairwise";
  std::memcpy(title, text, sizeof text - 1);
  put_i32(84);
  put_i32(1);
  put(title, 80);
  put_i32(84);
  put_i32(4);
  put_i32(std::int32_t(atoms));
  put_i32(4);
}

DcdWriter::~DcdWriter() {
  if (file_) std::fclose(file_);
}

void DcdWriter::put(const void* data, std::size_t bytes) {
  if (std::fwrite(data, 1, bytes, file_) != bytes) {
    throw Error("write error: " + std::string(std::strerror(errno)), path_.string());
  }
}

void DcdWriter::put_i32(int v) {
  std::uint32_t u = std::uint32_t(v);
  if (options_.big_endian) u = swap32(u);
  put(&u, 4);
}

void DcdWriter::write(const TrajectoryFrame& f) {
  if (f.size() != atoms_) {
    throw Error(
        "frame of " + std::to_string(f.size()) + " atoms for a DCD of " + std::to_string(atoms_),
        path_.string());
  }
  if (options_.unit_cell) {
    const double c[6] = {f.cell_length[0], 90.0, f.cell_length[1], 90.0, 90.0, f.cell_length[2]};
    put_i32(48);
    for (double v : c) {
      std::uint64_t u = std::bit_cast<std::uint64_t>(v);
      if (options_.big_endian) u = swap64(u);
      put(&u, 8);
    }
    put_i32(48);
  }
  buffer_.resize(atoms_ * 4);
  for (const auto* axis : {&f.x, &f.y, &f.z}) {
    for (std::size_t i = 0; i < atoms_; ++i) {
      std::uint32_t u = std::bit_cast<std::uint32_t>(float((*axis)[i]));
      if (options_.big_endian) u = swap32(u);
      std::memcpy(buffer_.data() + 4 * i, &u, 4);
    }
    put_i32(std::int32_t(4 * atoms_));
    put(buffer_.data(), buffer_.size());
    put_i32(std::int32_t(4 * atoms_));
  }
}

void DcdWriter::close() {
  if (!file_) return;
  const bool bad = std::fflush(file_) != 0 || std::ferror(file_);
  std::fclose(file_);
  file_ = nullptr;
  if (bad) throw Error("write error", path_.string());
}

}  // namespace pairwise::io
