#include "nbody/particle_table.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "core/io/atomic_file.hpp"
#include "pairwise/error.hpp"

namespace pairwise::nbody {

namespace {

constexpr std::array<const char*, 7> kColumns = {"m", "x", "y", "z", "vx", "vy", "vz"};

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// Splits a line at white space, at most 8 fields (one more than a row has, to detect extras).
int split(std::string_view line, std::array<std::string_view, 8>& fields) {
  int n = 0;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (n == 8) return 9;
    fields[n++] = line.substr(i, j - i);
    i = j;
  }
  return n;
}

// The whole field as a double ("+1.5", "2e-3"); false when it is not exactly one number.
bool parse_number(std::string_view text, double& value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// "t=<number>" anywhere in a header comment sets the snapshot time.
void parse_header_time(std::string_view comment, double& time) {
  const auto at = comment.find("t=");
  if (at == std::string_view::npos || (at > 0 && !is_space(comment[at - 1]))) return;
  std::string_view rest = comment.substr(at + 2);
  rest = rest.substr(0, std::min(rest.size(), rest.find_first_of(" \t\r")));
  double t = 0;
  if (parse_number(rest, t) && std::isfinite(t)) time = t;
}

}  // namespace

ParticleTable read_particle_table(std::istream& in, const std::string& source) {
  ParticleTable table;
  Particles& p = table.particles;
  std::array<std::vector<double>*, 7> columns = {&p.m, &p.x, &p.y, &p.z, &p.vx, &p.vy, &p.vz};
  std::string line;
  std::size_t line_no = 0;
  bool seen_data = false;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = source + ":" + std::to_string(line_no);
    std::string_view view(line);
    const auto first = view.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) continue;  // blank line
    if (view[first] == '#') {
      if (!seen_data) parse_header_time(view.substr(first + 1), table.time);
      continue;
    }
    seen_data = true;
    std::array<std::string_view, 8> fields;
    const int n = split(view, fields);
    if (n != 7) {
      throw Error("expected 7 fields (m x y z vx vy vz), found " +
                      (n > 7 ? std::string("more than 7") : std::to_string(n)),
                  where);
    }
    for (int c = 0; c < 7; ++c) {
      const std::string field_where = where + ":" + kColumns[c];
      double v = 0;
      if (!parse_number(fields[c], v)) {
        throw Error("field '" + std::string(kColumns[c]) + "' is not a number: '" +
                        std::string(fields[c]) + "'",
                    field_where);
      }
      if (!std::isfinite(v)) {
        throw Error("field '" + std::string(kColumns[c]) + "' is not finite: '" +
                        std::string(fields[c]) + "'",
                    field_where);
      }
      if (c == 0 && !(v > 0)) {
        throw Error("mass must be positive, got '" + std::string(fields[c]) + "'", field_where);
      }
      columns[c]->push_back(v);
    }
  }
  if (in.bad()) throw Error("reading the particle file failed", source);
  if (p.size() == 0) throw Error("the particle file holds no particles (N = 0)", source);
  return table;
}

ParticleTable read_particle_table(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error("cannot open the particle file", file.string());
  return read_particle_table(in, file.string());
}

void write_particle_table(std::ostream& out, const Particles& p, double time) {
  // %.17g round-trips every double exactly.
  char buf[7 * 26 + 2];
  std::snprintf(buf, sizeof buf, "%.17g", time);
  out << "# pairwise nbody snapshot t=" << buf << " n=" << p.size() << "\n# m x y z vx vy vz\n";
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", p.m[i], p.x[i],
                  p.y[i], p.z[i], p.vx[i], p.vy[i], p.vz[i]);
    out << buf;
  }
}

void write_particle_table(const std::filesystem::path& file, const Particles& p, double time) {
  io::write_file_atomically(file, [&](std::ostream& out) { write_particle_table(out, p, time); });
}

}  // namespace pairwise::nbody
