// The thermo log of a run (DESIGN.md, Inputs and outputs), shared by every workload: a LAMMPS-style
// fixed-width table on stdout, the same rows in full precision as CSV on disk, and a progress bar
// on stderr when stderr is a terminal. The CSV is a growing output (core/io/growing_file.hpp):
// written under its final name, flushed every kCsvFlushRows rows and by flush(), so a killed run
// leaves a CSV valid up to its last flushed row; a restarted run cuts it back to the checkpoint's
// size and appends.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "core/io/growing_file.hpp"

namespace pairwise {

struct ThermoColumn {
  std::string name;   // header on stdout and in the CSV
  int width = 12;     // characters on stdout (the header is right-aligned to it)
  int precision = 6;  // digits after the point ('f', 'e') or significant digits ('g')
  char style = 'g';   // printf style 'f', 'e' or 'g'; 'd' prints the value rounded to an integer
};

class ThermoLog {
 public:
  static constexpr int kCsvFlushRows = 16;

  // `csv` empty: no CSV. `progress` false: never draw the bar (it is drawn only on a terminal
  // anyway). `resume_csv_bytes` > 0: continue a checkpointed run's CSV, cut back to that size (no
  // new header line).
  ThermoLog(std::vector<ThermoColumn> columns, std::ostream& out, std::filesystem::path csv,
            bool progress = true, std::uint64_t resume_csv_bytes = 0);
  ~ThermoLog();  // without finish(), the CSV keeps what was flushed

  void header();  // column names on stdout (the CSV gets its own on open)
  void row(std::span<const double> values);  // one row on stdout and in the CSV
  // Redraws the bar: fraction of the run done in [0, 1] and a short status ("t = 0.25").
  void progress(double fraction, std::string_view status);
  // Flushes the CSV and returns its size (0 without a CSV), for a checkpoint. Throws
  // pairwise::Error naming the CSV if writing failed.
  std::uint64_t flush();
  // Clears the bar and closes the CSV. Throws pairwise::Error if writing it failed.
  void finish();

  // Formats one value as the table does (exposed for summaries and tests).
  static std::string format(const ThermoColumn& column, double value);
  const std::filesystem::path& csv_path() const { return csv_path_; }

 private:
  void clear_progress();

  std::vector<ThermoColumn> columns_;
  std::ostream& out_;
  std::filesystem::path csv_path_;
  std::unique_ptr<io::GrowingFile> csv_;
  bool tty_ = false;
  bool bar_shown_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace pairwise
