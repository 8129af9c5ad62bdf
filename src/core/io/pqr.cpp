#include "core/io/pqr.hpp"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>

#include "core/io/text_numbers.hpp"
#include "pairwise/error.hpp"

namespace pairwise::io {

// std::from_chars (text_numbers.hpp): no locale, no errno, much faster than strtod.
double parse_field_double(const std::string& text, const char* field, const std::string& where) {
  double v = 0;
  if (!parse_double_any(text, v)) {
    throw Error(std::string("bad ") + field + " '" + text + "' (expected a number)", where);
  }
  if (!std::isfinite(v)) {
    throw Error(std::string("bad ") + field + " '" + text + "' (not a finite number)", where);
  }
  return v;
}

long parse_field_long(const std::string& text, const char* field, const std::string& where) {
  return field_long(text, field, where);
}

std::vector<AtomRecord> parse_pqr(std::istream& in, const std::string& source) {
  std::vector<AtomRecord> atoms;
  std::string line;
  long line_no = 0;
  // The fields as views into the line; the "file:line:field" of a message is built only when a
  // message is given (building it for every field was a third of the parse time).
  std::array<std::string_view, 12> f;
  const auto where = [&](const char* field) {
    return source + ":" + std::to_string(line_no) + (field ? std::string(":") + field : "");
  };
  const auto number = [&](std::string_view text, const char* field) {
    double v = 0;
    if (!parse_double_any(text, v)) {
      throw Error(std::string("bad ") + field + " '" + std::string(text) + "' (expected a number)",
                  where(field));
    }
    if (!std::isfinite(v)) {
      throw Error(
          std::string("bad ") + field + " '" + std::string(text) + "' (not a finite number)",
          where(field));
    }
    return v;
  };
  const auto integer = [&](std::string_view text, const char* field) {
    long v = 0;
    if (!parse_long(text, v)) return field_long(text, field, where(field));  // its message
    return v;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("ATOM", 0) != 0 && line.rfind("HETATM", 0) != 0) continue;
    const char* p = line.data();
    const char* end = p + line.size();
    std::size_t count = 0;
    for (auto w = next_word(p, end); !w.empty(); w = next_word(p, end)) {
      if (count < f.size()) f[count] = w;
      ++count;
    }
    // f[0] is the record name.
    if (count != 10 && count != 11) {
      throw Error("PQR atom record with " + std::to_string(count - 1) +
                      " fields (expected 'serial name resName [chain] resSeq x y z charge radius')",
                  where(nullptr));
    }
    const bool chain = count == 11;
    const std::size_t k = chain ? 1 : 0;  // shift of the fields after the residue name
    AtomRecord a;
    a.line = line_no;
    a.serial = integer(f[1], "serial");
    a.name = f[2];
    a.resname = f[3];
    if (chain) a.chain = f[4];
    a.resid = integer(f[4 + k], "resSeq");
    a.x = number(f[5 + k], "x");
    a.y = number(f[6 + k], "y");
    a.z = number(f[7 + k], "z");
    a.charge = number(f[8 + k], "charge");
    a.radius = number(f[9 + k], "radius");
    if (a.radius < 0) {
      throw Error("negative radius '" + std::string(f[9 + k]) + "'", where("radius"));
    }
    atoms.push_back(std::move(a));
  }
  if (in.bad()) throw Error("read error", source);
  return atoms;
}

std::vector<AtomRecord> read_pqr(const std::filesystem::path& path) {
  if (path.extension() == ".gz") {  // a gzip-compressed PQR (as BENCHMARKS' watbox100.pqr.gz)
    gzFile gz = ::gzopen(path.c_str(), "rb");
    if (!gz) {
      throw Error("cannot open PQR file: " + std::string(std::strerror(errno)), path.string());
    }
    std::string text;
    char chunk[1 << 16];
    int n = 0;
    while ((n = ::gzread(gz, chunk, sizeof chunk)) > 0) text.append(chunk, std::size_t(n));
    int status = Z_OK;
    const std::string message = n < 0 ? ::gzerror(gz, &status) : "";
    ::gzclose(gz);
    if (n < 0) throw Error("cannot decompress the PQR file: " + message, path.string());
    std::istringstream in(std::move(text));
    return parse_pqr(in, path.string());
  }
  std::ifstream in(path);
  if (!in) throw Error("cannot open PQR file: " + std::string(std::strerror(errno)), path.string());
  return parse_pqr(in, path.string());
}

}  // namespace pairwise::io
