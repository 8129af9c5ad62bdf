#include "core/thermo_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "pairwise/error.hpp"

namespace pairwise {

namespace {

// CSV quoting (RFC 4180) only where needed: names with a comma or a quote.
std::string csv_name(const std::string& name) {
  if (name.find_first_of(",\"") == std::string::npos) return name;
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// 'd' columns print as integers when the value is one that fits; anything else (NaN) prints as %g.
bool prints_as_integer(const ThermoColumn& column, double value) {
  return column.style == 'd' && std::isfinite(value) && std::abs(value) < 9e18;
}

}  // namespace

ThermoLog::ThermoLog(std::vector<ThermoColumn> columns, std::ostream& out,
                     std::filesystem::path csv, bool progress, std::uint64_t resume_csv_bytes)
    : columns_(std::move(columns)), out_(out), csv_path_(std::move(csv)) {
  tty_ = progress && ::isatty(STDERR_FILENO) == 1;
  if (!csv_path_.empty() && resume_csv_bytes > 0) {
    csv_ = std::make_unique<io::GrowingFile>(csv_path_, resume_csv_bytes, kCsvFlushRows);
  } else if (!csv_path_.empty()) {
    csv_ = std::make_unique<io::GrowingFile>(csv_path_, kCsvFlushRows);
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      csv_->stream() << (c ? "," : "") << csv_name(columns_[c].name);
    }
    csv_->stream() << '\n';
    csv_->flush();
  }
}

ThermoLog::~ThermoLog() {
  clear_progress();
  if (csv_) {
    try {
      csv_->close();
    } catch (
        ...) {  // a destructor during unwinding must not throw; the error is reported elsewhere
    }
  }
}

std::string ThermoLog::format(const ThermoColumn& column, double value) {
  char buf[64];
  if (prints_as_integer(column, value)) {
    std::snprintf(buf, sizeof buf, "%*lld", column.width, std::llround(value));
  } else {
    const char fmt[] = {'%', '*', '.', '*', column.style == 'd' ? 'g' : column.style, '\0'};
    std::snprintf(buf, sizeof buf, fmt, column.width, column.precision, value);
  }
  return buf;
}

void ThermoLog::header() {
  clear_progress();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const auto& col = columns_[c];
    out_ << (c ? " " : "") << std::string(std::max<int>(0, col.width - int(col.name.size())), ' ')
         << col.name;
  }
  out_ << '\n' << std::flush;
}

void ThermoLog::row(std::span<const double> values) {
  clear_progress();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const double v = c < values.size() ? values[c] : std::nan("");
    out_ << (c ? " " : "") << format(columns_[c], v);
  }
  out_ << '\n' << std::flush;
  if (csv_) {
    // 17 significant digits: the CSV keeps every bit of the value.
    char buf[40];
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      const double v = c < values.size() ? values[c] : std::nan("");
      if (prints_as_integer(columns_[c], v)) {
        std::snprintf(buf, sizeof buf, "%lld", std::llround(v));
      } else {
        std::snprintf(buf, sizeof buf, "%.17g", v);
      }
      csv_->stream() << (c ? "," : "") << buf;
    }
    csv_->stream() << '\n';
    csv_->end_record();
  }
}

void ThermoLog::progress(double fraction, std::string_view status) {
  if (!tty_) return;
  // At most 10 redraws a second: the bar must not cost anything measurable.
  const auto now = std::chrono::steady_clock::now();
  if (bar_shown_ && now - last_draw_ < std::chrono::milliseconds(100) && fraction < 1) return;
  last_draw_ = now;
  constexpr int kWidth = 30;
  fraction = std::clamp(fraction, 0.0, 1.0);
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '-');
  std::fprintf(stderr, "\r[%s] %3d%% %.*s\033[K", bar.c_str(), static_cast<int>(fraction * 100),
               static_cast<int>(status.size()), status.data());
  std::fflush(stderr);
  bar_shown_ = true;
}

void ThermoLog::clear_progress() {
  if (!bar_shown_) return;
  std::fputs("\r\033[K", stderr);  // carriage return + erase to end of line
  std::fflush(stderr);
  bar_shown_ = false;
}

std::uint64_t ThermoLog::flush() {
  return csv_ ? csv_->flush() : 0;
}

void ThermoLog::finish() {
  clear_progress();
  if (csv_) csv_->close();
}

}  // namespace pairwise
