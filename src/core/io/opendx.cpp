#include "core/io/opendx.hpp"

#include <omp.h>
#include <unistd.h>
#include <zlib.h>
#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <future>
#include <memory>
#include <sstream>

#include "core/io/atomic_file.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

void check_grid(const ScalarGrid& grid, const std::filesystem::path& path) {
  if (grid.values.size() != grid.size() || grid.size() == 0) {
    throw Error("grid of " + std::to_string(grid.values.size()) + " values for counts " +
                    std::to_string(grid.counts[0]) + " x " + std::to_string(grid.counts[1]) +
                    " x " + std::to_string(grid.counts[2]),
                path.string());
  }
}

// Shortest text that reads back as the same double.
std::string exact(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

std::string dx_header(const ScalarGrid& grid) {
  std::string out;
  for (const auto& c : grid.comments) out += "# " + c + "\n";
  const auto& n = grid.counts;
  const std::string counts =
      std::to_string(n[0]) + " " + std::to_string(n[1]) + " " + std::to_string(n[2]);
  out += "object 1 class gridpositions counts " + counts + "\n";
  out += "origin " + exact(grid.origin[0]) + " " + exact(grid.origin[1]) + " " +
         exact(grid.origin[2]) + "\n";
  out += "delta " + exact(grid.spacing[0]) + " 0 0\n";
  out += "delta 0 " + exact(grid.spacing[1]) + " 0\n";
  out += "delta 0 0 " + exact(grid.spacing[2]) + "\n";
  out += "object 2 class gridconnections counts " + counts + "\n";
  out += "object 3 class array type double rank 0 items " + std::to_string(grid.size()) +
         " data follows\n";
  return out;
}

const char* const kDxTrailer =
    "attribute \"dep\" string \"positions\"\n"
    "object \"regular positions regular connections\" class field\n"
    "component \"positions\" value 1\n"
    "component \"connections\" value 2\n"
    "component \"data\" value 3\n";

// The values as text, three a line: value i is followed by '\n' when i % 3 == 2 or it is the
// last, else by ' '. A value takes at most kMaxChars bytes with its separator: the shortest FP32
// text is at most 15 characters ("-1.17549435e-38"), the shortest FP64 text 24, %.*e fewer than
// 32 for the digits APBS uses.
std::size_t max_chars(const ScalarGrid& grid, int digits) {
  return grid.single_precision && digits <= 0 ? 16 : 32;
}

// Formats values [i0, i1) into `out` (room for (i1 - i0) * max_chars bytes); returns the end.
char* format_values(const ScalarGrid& grid, int digits, std::size_t i0, std::size_t i1, char* out) {
  const std::size_t total = grid.values.size();
  const std::size_t room = max_chars(grid, digits) - 1;
  for (std::size_t i = i0; i < i1; ++i) {
    const double v = grid.values[i];
    const auto r =
        digits > 0 ? std::to_chars(out, out + room, v, std::chars_format::scientific, digits - 1)
        : grid.single_precision ? std::to_chars(out, out + room, float(v))
                                : std::to_chars(out, out + room, v);
    out = r.ptr;
    *out++ = (i % 3 == 2 || i + 1 == total) ? '\n' : ' ';
  }
  return out;
}

// Hands the values' text to `sink(data, size)` in order, block by block. Blocks of kBlockValues
// values are formatted in parallel (OpenMP), a batch of 2 per thread at a time into buffers that
// are reused (no fresh memory, and so no page faults, after the first batch), and each batch is
// handed to the sink on a second thread while the next one is formatted.
constexpr std::size_t kBlockValues = 3 * 8192;

template <class Sink>
void for_each_text_block(const ScalarGrid& grid, int digits, Sink&& sink) {
  const std::size_t total = grid.values.size();
  const std::size_t blocks = (total + kBlockValues - 1) / kBlockValues;
  const std::size_t per_batch =
      std::min<std::size_t>(blocks, 2 * std::size_t(std::max(1, omp_get_max_threads())));
  const std::size_t block_bytes = kBlockValues * max_chars(grid, digits);
  struct Batch {
    std::unique_ptr<char[]> text;  // per_batch blocks of block_bytes
    std::vector<std::size_t> sizes;
  };
  Batch batch[2];
  for (auto& b : batch) b.text.reset(new char[per_batch * block_bytes]), b.sizes.resize(per_batch);
  std::future<void> writing;
  for (std::size_t first = 0, k = 0; first < blocks; first += per_batch, ++k) {
    Batch& b = batch[k % 2];  // batch k - 2, its previous user, was handed over before k - 1
    const std::size_t count = std::min(per_batch, blocks - first);
#pragma omp parallel for schedule(dynamic)
    for (long j = 0; j < long(count); ++j) {
      const std::size_t i0 = (first + std::size_t(j)) * kBlockValues;
      char* start = b.text.get() + std::size_t(j) * block_bytes;
      b.sizes[std::size_t(j)] = std::size_t(
          format_values(grid, digits, i0, std::min(total, i0 + kBlockValues), start) - start);
    }
    if (writing.valid()) writing.get();  // batch k - 1 handed over (its errors rethrown here)
    writing = std::async(std::launch::async, [&sink, &b, count, block_bytes] {
      for (std::size_t j = 0; j < count; ++j) sink(b.text.get() + j * block_bytes, b.sizes[j]);
    });
  }
  if (writing.valid()) writing.get();
}

// The values' text in blocks of about 2.6 MB (for compression in parallel).
std::vector<std::string> format_blocks(const ScalarGrid& grid, int digits) {
  constexpr std::size_t kValues = 3 * 43690;
  const std::size_t total = grid.values.size();
  const std::size_t blocks = (total + kValues - 1) / kValues;
  std::vector<std::string> out(blocks);
#pragma omp parallel for schedule(dynamic)
  for (long b = 0; b < long(blocks); ++b) {
    const std::size_t i0 = std::size_t(b) * kValues;
    const std::size_t i1 = std::min(total, i0 + kValues);
    std::string& text = out[std::size_t(b)];
    text.resize((i1 - i0) * max_chars(grid, digits));
    char* end = format_values(grid, digits, i0, i1, text.data());
    text.resize(std::size_t(end - text.data()));
  }
  return out;
}

}  // namespace

void write_dx(const std::filesystem::path& path, const ScalarGrid& grid, int digits) {
  check_grid(grid, path);
  write_file_atomically(path, [&](std::ostream& out) {
    out << dx_header(grid);
    for_each_text_block(grid, digits, [&out](const char* data, std::size_t size) {
      out.write(data, std::streamsize(size));
    });
    out << kDxTrailer;
  });
}

void write_dx_gz(const std::filesystem::path& path, const ScalarGrid& grid, int digits) {
  check_grid(grid, path);
  auto blocks = format_blocks(grid, digits);
  blocks.front().insert(0, dx_header(grid));
  blocks.back() += kDxTrailer;
  std::vector<std::string> packed(blocks.size());
  bool failed = false;
#pragma omp parallel for schedule(dynamic)
  for (long b = 0; b < long(blocks.size()); ++b) {
    const std::string& in = blocks[std::size_t(b)];
    z_stream z{};
    // windowBits 15 + 16: a gzip member; level 1: speed (maps compress ~3x at any level).
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
#pragma omp atomic write
      failed = true;
      continue;
    }
    std::string& out = packed[std::size_t(b)];
    out.resize(deflateBound(&z, uLong(in.size())));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = uInt(in.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
#pragma omp atomic write
      failed = true;
    }
  }
  if (failed) throw Error("zlib compression failed", path.string());
  write_file_atomically(path, [&](std::ostream& out) {
    for (const auto& b : packed) out.write(b.data(), std::streamsize(b.size()));
  });
}

ScalarGrid read_dx(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    throw Error("cannot open OpenDX file: " + std::string(std::strerror(errno)), path.string());
  ScalarGrid g;
  std::string line;
  long line_no = 0;
  int deltas = 0;
  bool have_counts = false, have_origin = false;
  std::size_t items = 0;
  auto where = [&] { return path.string() + ":" + std::to_string(line_no); };
  auto fail = [&](const std::string& what) -> void { throw Error(what, where()); };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') {
      if (!line.empty()) g.comments.push_back(line.size() > 2 ? line.substr(2) : "");
      continue;
    }
    std::istringstream s(line);
    std::string word;
    s >> word;
    if (word == "object") {
      std::string id, cls, kind;
      s >> id >> cls >> kind;
      if (kind == "gridpositions") {
        std::string counts;
        s >> counts >> g.counts[0] >> g.counts[1] >> g.counts[2];
        if (!s || counts != "counts") fail("bad gridpositions line (expected 'counts nx ny nz')");
        have_counts = true;
      } else if (kind == "array") {
        // "type double rank 0 items N data follows"
        std::string w;
        while (s >> w) {
          if (w == "items") s >> items;
          if (w == "follows") break;
        }
        if (!have_counts || !have_origin || deltas != 3) {
          fail("data before the grid's counts, origin and deltas");
        }
        if (items != g.size()) {
          fail("items " + std::to_string(items) + " differs from counts (" +
               std::to_string(g.size()) + " points)");
        }
        g.values.resize(items);
        std::size_t got = 0;
        while (got < items && std::getline(in, line)) {
          ++line_no;
          const char* p = line.c_str();
          const char* end = p + line.size();
          while (p < end) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
            if (p >= end) break;
            if (got == items) fail("more values than items");
            double v = 0;
            const auto r = std::from_chars(p, end, v);
            if (r.ec != std::errc()) fail("bad value '" + std::string(p, end) + "'");
            g.values[got++] = v;
            p = r.ptr;
          }
        }
        if (got != items) {
          fail("file ends after " + std::to_string(got) + " of " + std::to_string(items) +
               " values");
        }
      }
    } else if (word == "origin") {
      s >> g.origin[0] >> g.origin[1] >> g.origin[2];
      if (!s) fail("bad origin line");
      have_origin = true;
    } else if (word == "delta") {
      double d[3];
      s >> d[0] >> d[1] >> d[2];
      if (!s || deltas >= 3) fail("bad delta line");
      for (int a = 0; a < 3; ++a) {
        if (a != deltas && d[a] != 0) fail("non-orthogonal delta (only axis-aligned grids)");
      }
      g.spacing[deltas] = d[deltas];
      ++deltas;
    }
  }
  if (g.values.empty()) throw Error("no data array found", path.string());
  return g;
}

void write_npy(const std::filesystem::path& path, const ScalarGrid& grid, bool single) {
  check_grid(grid, path);
  static_assert(std::endian::native == std::endian::little,
                "the .npy writer assumes little-endian");
  std::string header = std::string("{'descr': '") + (single ? "<f4" : "<f8") +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(grid.counts[0]) +
                       ", " + std::to_string(grid.counts[1]) + ", " +
                       std::to_string(grid.counts[2]) + "), }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, '\n'.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  write_file_atomically(path, [&](std::ostream& out) {
    out.write("\x93NUMPY\x01\x00", 8);
    const std::uint16_t len = std::uint16_t(header.size());
    const char len_bytes[2] = {char(len & 0xff), char(len >> 8)};
    out.write(len_bytes, 2);
    out.write(header.data(), std::streamsize(header.size()));
    if (single) {  // converted a chunk at a time into one reused buffer (no fresh full-size copy)
      const std::size_t total = grid.values.size(), chunk = std::min<std::size_t>(total, 1 << 20);
      const std::unique_ptr<float[]> f(new float[chunk]);
      for (std::size_t i0 = 0; i0 < total; i0 += chunk) {
        const long n = long(std::min(chunk, total - i0));
        const double* v = grid.values.data() + i0;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; ++i) f[std::size_t(i)] = float(v[i]);
        out.write(reinterpret_cast<const char*>(f.get()), std::streamsize(std::size_t(n) * 4));
      }
    } else {
      out.write(reinterpret_cast<const char*>(grid.values.data()),
                std::streamsize(grid.values.size() * sizeof(double)));
    }
  });
}

namespace {

std::string npy_header(const std::string& descr, const std::string& shape) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Magic (6) + version (2) + length (2) + header, padded with spaces to a multiple of 64, '\n'.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  const std::uint16_t len = std::uint16_t(header.size());
  return std::string("\x93NUMPY\x01\x00", 8) + char(len & 0xff) + char(len >> 8) + header;
}

// Fixed width, so that the header can be rewritten in place with the final count.
std::string npy_frames_header(long frames, const std::array<std::size_t, 3>& n, bool single) {
  char count[24];
  std::snprintf(count, sizeof count, "%12ld", frames);
  return npy_header(single ? "<f4" : "<f8", std::string(count) + ", " + std::to_string(n[0]) +
                                                ", " + std::to_string(n[1]) + ", " +
                                                std::to_string(n[2]));
}

}  // namespace

NpyFrames::NpyFrames(const std::filesystem::path& path, std::array<std::size_t, 3> counts,
                     bool single)
    : path_(path), counts_(counts), single_(single) {
  temp_ = path;
  temp_ += ".tmp." + std::to_string(::getpid());
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) throw Error("cannot create: " + std::string(std::strerror(errno)), temp_.string());
  const std::string h = npy_frames_header(0, counts_, single_);
  std::fwrite(h.data(), 1, h.size(), file_);
}

NpyFrames::~NpyFrames() {
  if (file_) {
    std::fclose(file_);
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void NpyFrames::add(const ScalarGrid& grid) {
  check_grid(grid, path_);
  if (grid.counts != counts_) throw Error("frame map of another lattice", path_.string());
  bool ok;
  if (single_) {
    std::vector<float> f(grid.values.begin(), grid.values.end());
    ok = std::fwrite(f.data(), sizeof(float), f.size(), file_) == f.size();
  } else {
    ok = std::fwrite(grid.values.data(), sizeof(double), grid.values.size(), file_) ==
         grid.values.size();
  }
  if (!ok) throw Error("write error: " + std::string(std::strerror(errno)), temp_.string());
  ++frames_;
}

void NpyFrames::commit() {
  const std::string h = npy_frames_header(frames_, counts_, single_);
  const bool ok = std::fseek(file_, 0, SEEK_SET) == 0 &&
                  std::fwrite(h.data(), 1, h.size(), file_) == h.size() && std::fflush(file_) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok) {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
    throw Error("write error", temp_.string());
  }
  std::filesystem::rename(temp_, path_);
}

}  // namespace pairwise::io
