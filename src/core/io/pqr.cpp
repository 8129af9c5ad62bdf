#include "core/io/pqr.hpp"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

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
  std::vector<std::string> f;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("ATOM", 0) != 0 && line.rfind("HETATM", 0) != 0) continue;
    const std::string where = source + ":" + std::to_string(line_no);
    f.clear();
    const char* p = line.data();
    const char* end = p + line.size();
    for (auto w = next_word(p, end); !w.empty(); w = next_word(p, end)) f.emplace_back(w);
    // f[0] is the record name.
    if (f.size() != 10 && f.size() != 11) {
      throw Error("PQR atom record with " + std::to_string(f.size() - 1) +
                      " fields (expected 'serial name resName [chain] resSeq x y z charge radius')",
                  where);
    }
    const bool chain = f.size() == 11;
    const std::size_t k = chain ? 1 : 0;  // shift of the fields after the residue name
    AtomRecord a;
    a.line = line_no;
    a.serial = parse_field_long(f[1], "serial", where + ":serial");
    a.name = f[2];
    a.resname = f[3];
    if (chain) a.chain = f[4];
    a.resid = parse_field_long(f[4 + k], "resSeq", where + ":resSeq");
    a.x = parse_field_double(f[5 + k], "x", where + ":x");
    a.y = parse_field_double(f[6 + k], "y", where + ":y");
    a.z = parse_field_double(f[7 + k], "z", where + ":z");
    a.charge = parse_field_double(f[8 + k], "charge", where + ":charge");
    a.radius = parse_field_double(f[9 + k], "radius", where + ":radius");
    if (a.radius < 0) throw Error("negative radius '" + f[9 + k] + "'", where + ":radius");
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
