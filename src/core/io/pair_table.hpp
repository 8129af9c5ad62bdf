// LAMMPS `pair_style table` files (https://docs.lammps.org/pair_table.html), read and interpolated
// as LAMMPS does for its `linear` and `spline` styles:
//
//   # comment lines and blank lines
//   KEYWORD                                   (section name, given as pair_coeff's keyword)
//   N 500 R 1.0 10.0 FP fplo fphi             (N required; R / RSQ / BITMAP lo hi, FP optional)
//   (blank line)
//   1 r1 e1 f1                                (index, r, energy, force = −dE/dr)
//   ...
//
// R lo hi: the file's r values are replaced by lo + (hi − lo) i/(N − 1); RSQ lo hi: by
// √(lo² + (hi² − lo²) i/(N − 1)); BITMAP tables need LAMMPS's `bitmap` style, which pairwise does
// not provide (as LAMMPS, a BITMAP file with linear/spline style is an error). FP gives dF/dr at
// both ends for the spline of the forces (else estimated from the first and last two points).
//
// Interpolation (LAMMPS's compute_table): the file's E(r) and F(r) are splined in r (natural
// end conditions replaced by the derivatives −F and FP), then sampled on an internal table of
// `n` points evenly spaced in r² from the inner radius (lo, or the file's first r) to the cutoff.
// linear: E and F/r linear in r² within a bin; spline: cubic splines in r² of E and of F/r. When
// the file's points are already that grid (RSQ, N = n, cutoff = hi) linear uses them unchanged.
#pragma once

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace pairwise::io {

struct PairTableFile {
  std::string keyword;
  std::vector<double> r, e, f;  // the file's points, r replaced per R / RSQ
  enum class Grid { file, r, rsq } grid = Grid::file;
  double lo = 0, hi = 0;  // R / RSQ bounds
  bool fp_given = false;
  double fplo = 0, fphi = 0;
};

// Reads section `keyword` of `file`. Throws pairwise::Error with file:line.
PairTableFile read_pair_table(const std::filesystem::path& file, const std::string& keyword);

enum class TableStyle { linear, spline };
TableStyle parse_table_style(const std::string& text);  // linear | spline

// The internal table LAMMPS builds for pair_coeff with this file and cutoff, evaluated as its
// pair_style table linear/spline N does.
class PairTableInterpolator {
 public:
  // cutoff 0: hi for R/RSQ files, else the file's last r (LAMMPS's default).
  PairTableInterpolator(const PairTableFile& file, TableStyle style, int n, double cutoff = 0);
  double cutoff() const { return cut_; }
  double inner() const { return std::sqrt(innersq_); }
  // E and F/r at r² in [inner², cutoff²); outside: an Error is the caller's job (LAMMPS stops
  // with "Pair distance < table inner cutoff").
  template <class T>
  void evaluate(T rsq, T& energy, T& force_over_r) const;

  // The internal table, as evaluate() reads it (engine/table_cuda.hpp writes it into CUDA
  // source): points rsq_i = inner² + i·delta, i < n; E and F/r at them; linear: de, df, their
  // differences to point i + 1; spline: e2, f2, the second derivatives in r².
  TableStyle style() const { return style_; }
  int points() const { return n_; }
  double inner_squared() const { return innersq_; }
  double delta() const { return delta_; }
  const std::vector<double>& rsq() const { return rsq_; }
  const std::vector<double>& e() const { return e_; }
  const std::vector<double>& f() const { return f_; }
  const std::vector<double>& de() const { return de_; }
  const std::vector<double>& df() const { return df_; }
  const std::vector<double>& e2() const { return e2_; }
  const std::vector<double>& f2() const { return f2_; }

 private:
  TableStyle style_;
  int n_;
  double cut_, innersq_, delta_, invdelta_, deltasq6_;
  std::vector<double> rsq_, e_, f_, de_, df_, e2_, f2_;
};

// Numerical Recipes' cubic spline through (x, y) with end slopes yp1, ypn; returns y''.
std::vector<double> spline_second_derivatives(const std::vector<double>& x,
                                              const std::vector<double>& y, double yp1, double ypn);
double spline_at(const std::vector<double>& x, const std::vector<double>& y,
                 const std::vector<double>& y2, double at);

template <class T>
void PairTableInterpolator::evaluate(T rsq, T& energy, T& force_over_r) const {
  // The bin, clamped in double before the conversion (r² far outside the table, or NaN: bin 0).
  const double bin = (double(rsq) - innersq_) * invdelta_;
  const std::size_t i = std::size_t(bin >= n_ - 2 ? n_ - 2 : (bin > 0 ? int(bin) : 0));
  if (style_ == TableStyle::linear) {
    const double fraction = (double(rsq) - rsq_[i]) * invdelta_;
    energy = T(e_[i] + fraction * de_[i]);
    force_over_r = T(f_[i] + fraction * df_[i]);
  } else {
    const double b = (double(rsq) - rsq_[i]) * invdelta_, a = 1.0 - b;
    const double ca = (a * a * a - a) * deltasq6_, cb = (b * b * b - b) * deltasq6_;
    energy = T(a * e_[i] + b * e_[i + 1] + ca * e2_[i] + cb * e2_[i + 1]);
    force_over_r = T(a * f_[i] + b * f_[i + 1] + ca * f2_[i] + cb * f2_[i + 1]);
  }
}

}  // namespace pairwise::io
