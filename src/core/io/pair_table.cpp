#include "core/io/pair_table.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "pairwise/error.hpp"

namespace pairwise::io {

namespace {

// The most points a table section may have (as md's and ljc's table_n): N is converted to int and
// sizes the interpolator's arrays.
constexpr int kMaxPoints = 1 << 24;

struct Header {
  int n = 0;
  PairTableFile::Grid grid = PairTableFile::Grid::file;
  bool bitmap = false;
  double lo = 0, hi = 0;
  bool fp = false;
  double fplo = 0, fphi = 0;
};

Header parse_header(const std::string& line, const std::string& where) {
  Header h;
  std::istringstream in(line);
  std::string word;
  auto number = [&](const std::string& key) {
    double v = 0;
    if (!(in >> v)) throw Error("expected a number after '" + key + "'", where);
    return v;
  };
  while (in >> word) {
    if (word == "N") {
      const double v = number("N");
      if (!(v >= 2 && v <= kMaxPoints) || v != std::floor(v))
        throw Error("N must be an integer in [2, " + std::to_string(kMaxPoints) + "]", where);
      h.n = int(v);
    } else if (word == "R" || word == "RSQ" || word == "BITMAP") {
      h.grid = word == "R" ? PairTableFile::Grid::r : PairTableFile::Grid::rsq;
      h.bitmap = word == "BITMAP";
      h.lo = number(word), h.hi = number(word);
      if (!(h.lo > 0) || !(h.hi > h.lo)) throw Error(word + " needs 0 < lo < hi", where);
    } else if (word == "FP") {
      h.fp = true;
      h.fplo = number("FP"), h.fphi = number("FP");
    } else {
      throw Error("invalid keyword '" + word +
                      "' in the table parameters (expected N, R, RSQ, "
                      "BITMAP or FP)",
                  where);
    }
  }
  if (h.n == 0) throw Error("the table parameters do not set N", where);
  return h;
}

}  // namespace

TableStyle parse_table_style(const std::string& text) {
  if (text == "linear") return TableStyle::linear;
  if (text == "spline") return TableStyle::spline;
  throw Error("unknown table style '" + text + "' (expected linear or spline)");
}

PairTableFile read_pair_table(const std::filesystem::path& file, const std::string& keyword) {
  std::ifstream in(file);
  if (!in) throw Error("cannot open the pair table file", file.string());
  std::string line;
  int lineno = 0;
  auto where = [&] { return file.string() + ":" + std::to_string(lineno); };
  auto blank = [](const std::string& s) {
    return s.find_first_not_of(" \t\r\n") == std::string::npos;
  };
  auto first_word = [](const std::string& s) {
    std::istringstream w(s);
    std::string word;
    w >> word;
    return word;
  };
  std::vector<std::string> sections;
  while (std::getline(in, line)) {
    ++lineno;
    if (blank(line) || line[line.find_first_not_of(" \t")] == '#') continue;
    const std::string name = first_word(line);
    if (!std::getline(in, line))
      throw Error("section '" + name + "' has no parameter line", where());
    ++lineno;
    const Header h = parse_header(line, where());
    if (name != keyword) {  // skip this section: a blank line and N points
      sections.push_back(name);
      for (int k = 0; k <= h.n && std::getline(in, line); ++k) ++lineno;
      continue;
    }
    if (h.bitmap)
      throw Error("section '" + keyword +
                      "' is a BITMAP table, which needs LAMMPS's pair_style "
                      "table bitmap (pairwise reads linear and spline tables only)",
                  where());
    PairTableFile t;
    t.keyword = keyword, t.grid = h.grid, t.lo = h.lo, t.hi = h.hi;
    t.fp_given = h.fp, t.fplo = h.fplo, t.fphi = h.fphi;
    // A blank line, then N lines "i r e f".
    while (std::getline(in, line)) {
      ++lineno;
      if (!blank(line)) break;
    }
    for (int i = 0; i < h.n; ++i) {
      if (i > 0 && !std::getline(in, line))
        throw Error("section '" + keyword + "' ends after " + std::to_string(i) + " of " +
                        std::to_string(h.n) + " points",
                    file.string() + ":" + std::to_string(lineno));
      if (i > 0) ++lineno;
      std::istringstream p(line);
      double index = 0, r = 0, e = 0, f = 0;
      if (!(p >> index >> r >> e >> f)) throw Error("expected 'index r energy force'", where());
      if (h.grid == PairTableFile::Grid::r)
        r = h.lo + (h.hi - h.lo) * i / (h.n - 1);
      else if (h.grid == PairTableFile::Grid::rsq)
        r = std::sqrt(h.lo * h.lo + (h.hi * h.hi - h.lo * h.lo) * i / (h.n - 1));
      if (!std::isfinite(r) || !std::isfinite(e) || !std::isfinite(f))
        throw Error("non-finite value in the table", where());
      if (!t.r.empty() && !(r > t.r.back()))
        throw Error("r must increase along the table", where());
      t.r.push_back(r), t.e.push_back(e), t.f.push_back(f);
    }
    if (!(t.r.front() > 0)) throw Error("the table's first r must be > 0", file.string());
    return t;
  }
  std::string have;
  for (const auto& s : sections) have += (have.empty() ? "" : ", ") + s;
  throw Error("no section '" + keyword + "' in the pair table file" +
                  (have.empty() ? "" : " (it has " + have + ")"),
              file.string());
}

std::vector<double> spline_second_derivatives(const std::vector<double>& x,
                                              const std::vector<double>& y, double yp1,
                                              double ypn) {
  const std::size_t n = x.size();
  std::vector<double> y2(n), u(n);
  y2[0] = -0.5;
  u[0] = (3.0 / (x[1] - x[0])) * ((y[1] - y[0]) / (x[1] - x[0]) - yp1);
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const double sig = (x[i] - x[i - 1]) / (x[i + 1] - x[i - 1]);
    const double p = sig * y2[i - 1] + 2.0;
    y2[i] = (sig - 1.0) / p;
    const double d = (y[i + 1] - y[i]) / (x[i + 1] - x[i]) - (y[i] - y[i - 1]) / (x[i] - x[i - 1]);
    u[i] = (6.0 * d / (x[i + 1] - x[i - 1]) - sig * u[i - 1]) / p;
  }
  const double qn = 0.5;
  const double un =
      (3.0 / (x[n - 1] - x[n - 2])) * (ypn - (y[n - 1] - y[n - 2]) / (x[n - 1] - x[n - 2]));
  y2[n - 1] = (un - qn * u[n - 2]) / (qn * y2[n - 2] + 1.0);
  for (std::size_t k = n - 1; k-- > 0;) y2[k] = y2[k] * y2[k + 1] + u[k];
  return y2;
}

double spline_at(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& y2, double at) {
  std::size_t lo = 0, hi = x.size() - 1;
  while (hi - lo > 1) {
    const std::size_t k = (hi + lo) / 2;
    (x[k] > at ? hi : lo) = k;
  }
  const double h = x[hi] - x[lo];
  const double a = (x[hi] - at) / h, b = (at - x[lo]) / h;
  return a * y[lo] + b * y[hi] +
         ((a * a * a - a) * y2[lo] + (b * b * b - b) * y2[hi]) * (h * h) / 6.0;
}

PairTableInterpolator::PairTableInterpolator(const PairTableFile& t, TableStyle style, int n,
                                             double cutoff)
    : style_(style), n_(n) {
  if (n < 2) throw Error("the table length N must be >= 2");
  if (t.r.size() < 2) throw Error("the table has fewer than 2 points", t.keyword);
  const bool ranged = t.grid != PairTableFile::Grid::file;
  const double rlo = ranged ? t.lo : t.r.front(), rhi = ranged ? t.hi : t.r.back();
  cut_ = cutoff > 0 ? cutoff : rhi;
  if (cut_ <= rlo || cut_ > rhi)
    throw Error("the table cutoff " + std::to_string(cut_) + " is outside the table (" +
                std::to_string(rlo) + ", " + std::to_string(rhi) + "]");
  // Splines of the file's E(r) (slopes −F at the ends) and F(r) (slopes FP, or the end secants).
  const std::size_t m = t.r.size();
  const auto e2file = spline_second_derivatives(t.r, t.e, -t.f[0], -t.f[m - 1]);
  const double fplo = t.fp_given ? t.fplo : (t.f[1] - t.f[0]) / (t.r[1] - t.r[0]);
  const double fphi = t.fp_given ? t.fphi : (t.f[m - 1] - t.f[m - 2]) / (t.r[m - 1] - t.r[m - 2]);
  const auto f2file = spline_second_derivatives(t.r, t.f, fplo, fphi);
  const bool match = style == TableStyle::linear && int(m) == n &&
                     t.grid == PairTableFile::Grid::rsq && t.hi == cut_;

  innersq_ = rlo * rlo;
  delta_ = (cut_ * cut_ - innersq_) / (n - 1);
  invdelta_ = 1.0 / delta_;
  if (!(delta_ > 0) || !std::isfinite(invdelta_) || !std::isfinite(cut_ * cut_))
    throw Error("the table's r range (" + std::to_string(rlo) + ", " + std::to_string(cut_) +
                    ") gives no usable r² spacing for " + std::to_string(n) + " points",
                t.keyword);
  deltasq6_ = delta_ * delta_ / 6.0;
  rsq_.resize(std::size_t(n)), e_.resize(std::size_t(n)), f_.resize(std::size_t(n));
  for (std::size_t i = 0; i < std::size_t(n); ++i) {
    const double rsq = innersq_ + double(i) * delta_, r = std::sqrt(rsq);
    rsq_[i] = rsq;
    e_[i] = match ? t.e[i] : spline_at(t.r, t.e, e2file, r);
    f_[i] = match ? t.f[i] : spline_at(t.r, t.f, f2file, r);  // F for now, F/r below
  }
  if (style == TableStyle::linear) {
    for (std::size_t i = 0; i < std::size_t(n); ++i) f_[i] /= std::sqrt(rsq_[i]);
    de_.resize(std::size_t(n - 1)), df_.resize(std::size_t(n - 1));
    for (std::size_t i = 0; i + 1 < std::size_t(n); ++i)
      de_[i] = e_[i + 1] - e_[i], df_[i] = f_[i + 1] - f_[i];
    de_.push_back(0), df_.push_back(0);
    return;
  }
  // spline: E in r² with end slopes dE/d(r²) taken as −F (LAMMPS's choice), and h = F/r in r²
  // with slopes from FP or a secant over a tenth of a bin.
  e2_ = spline_second_derivatives(rsq_, e_, -f_[0], -f_[std::size_t(n - 1)]);
  const double secant = 0.1;
  double fp0 = 0, fpn = 0;
  if (t.fp_given) {
    fp0 = (t.fplo / std::sqrt(innersq_) - f_[0] / innersq_) / (2.0 * std::sqrt(innersq_));
  } else {
    const double rsq2 = innersq_ + secant * delta_;
    fp0 = (spline_at(t.r, t.f, f2file, std::sqrt(rsq2)) / std::sqrt(rsq2) -
           f_[0] / std::sqrt(innersq_)) /
          (secant * delta_);
  }
  if (t.fp_given && cut_ == t.r.back()) {
    fpn = (t.fphi / cut_ - f_[std::size_t(n - 1)] / (cut_ * cut_)) / (2.0 * cut_);
  } else {
    const double rsq2 = cut_ * cut_, rsq1 = rsq2 - secant * delta_;
    fpn = (f_[std::size_t(n - 1)] / std::sqrt(rsq2) -
           spline_at(t.r, t.f, f2file, std::sqrt(rsq1)) / std::sqrt(rsq1)) /
          (secant * delta_);
  }
  for (std::size_t i = 0; i < std::size_t(n); ++i) f_[i] /= std::sqrt(rsq_[i]);
  f2_ = spline_second_derivatives(rsq_, f_, fp0, fpn);
}

}  // namespace pairwise::io
